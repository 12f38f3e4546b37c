// Resources in availability and booking (CONTRACT §14): a slot is offered only when a resource of
// every required kind is free for the occupied range, a booking takes the free one first by name
// and records it, the database refuses one resource in two overlapping appointments (seats of a
// group session share theirs), and every change reaches cached answers. The 100-request race is in
// resourceBooking.concurrency.test.ts.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { resourceClosures, rowsOf } from "@clinic/db";
import {
  addHours,
  addMember,
  addResource,
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  pinnedNow,
  rejectionOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const MIN = 60_000;
/** A Monday 09:00 UTC, two weeks after the pinned clock. */
const nine = new Date("2027-03-15T09:00:00.000Z");
const at = (minutes: number) => new Date(nine.getTime() + minutes * MIN);

/** Three providers, an any-provider 30-minute service that needs a treatment room, two rooms. */
async function roomClinic() {
  const c = await bookableClinic(t.db);
  const others = await Promise.all(
    ["B", "C"].map((n) => addMember(t.db, c.clinicId, { isProvider: true, fullName: `${n} Provider` })),
  );
  for (const p of others) await addHours(t.db, c.clinicId, p.id, [1, 2, 3, 4, 5], "09:00", "17:00");
  const service = await addService(t.db, c.clinicId, { name: "Ultrasound", durationMin: 30 });
  await t.db.execute(
    sql`update services set required_resource_kinds = '{treatment_room}' where clinic_id = ${c.clinicId}::uuid and id = ${service}::uuid`,
  );
  const room2 = await addResource(t.db, c.clinicId, { name: "Room 2" });
  const room1 = await addResource(t.db, c.clinicId, { name: "Room 1" });
  await addResource(t.db, c.clinicId, { name: "Room 0 (closed for good)", isActive: false });
  await addResource(t.db, c.clinicId, { name: "Scanner", kind: "ultrasound_device" });
  const staff = callerFor(t.db, c.staff, { now: pinnedNow });
  const book = (start: Date, name = "Pat") =>
    staff.appointments.book({ clinic_id: c.clinicId, service_id: service, start, patient: { name } });
  const starts = async () =>
    (
      await staff.availability.get({ clinic_id: c.clinicId, service_id: service, from: "2027-03-15", to: "2027-03-15" })
    ).slots.map((s) => s.start.getTime());
  return { ...c, others, staffUser: c.staff, service, room1, room2, staff, book, starts };
}

describe("resources in availability and booking", () => {
  it("books the free room first by name, records it, and offers no slot once every room is taken", async () => {
    const r = await roomClinic();
    expect(await r.starts()).toContain(nine.getTime());
    const first = await r.book(nine, "A");
    expect(first.resources).toEqual([{ id: r.room1, name: "Room 1", kind: "treatment_room" }]);
    const second = await r.book(nine, "B");
    expect(second.resources.map((x) => x.name)).toEqual(["Room 2"]);
    // A third provider is free at 09:00, but no room is.
    expect(await r.starts()).not.toContain(nine.getTime());
    const rejection = await rejectionOf(r.book(nine, "C"));
    expect(rejection.domainCode).toBe("SLOT_UNAVAILABLE");
    const why = await r.staff.availability.explain({ clinic_id: r.clinicId, service_id: r.service, start: nine });
    const free = why.providers.find((p) => p.reasons.every((x) => x.code === "RESOURCE_UNAVAILABLE"));
    expect(free?.reasons.map((x) => x.code)).toEqual(["RESOURCE_UNAVAILABLE"]);
    expect(free?.reasons[0]?.detail).toContain("treatment_room");
    // A cancel frees its room, also in the cached answer read above.
    await r.staff.appointments.cancel({ clinic_id: r.clinicId, id: first.id });
    expect(await r.starts()).toContain(nine.getTime());
    expect((await r.book(nine, "C")).resources.map((x) => x.name)).toEqual(["Room 1"]);
  });

  it("a room's closure and the service's buffers count against the occupied range", async () => {
    const r = await roomClinic();
    await t.db.insert(resourceClosures).values([
      { clinicId: r.clinicId, resourceId: r.room1, startsAt: at(60), endsAt: at(120), reason: "Cleaning" },
      { clinicId: r.clinicId, resourceId: r.room2, startsAt: at(60), endsAt: at(90) },
    ]);
    const starts = await r.starts();
    expect(starts).not.toContain(at(60).getTime());
    expect(starts).toContain(at(90).getTime());
    expect(await codeOf(r.book(at(60)))).toBe("SLOT_UNAVAILABLE");
    // 09:30–10:00 plus 15 minutes' buffer reaches into both closures.
    await r.asAdmin.services.update({ clinic_id: r.clinicId, id: r.service, buffer_after_min: 15 });
    expect(await r.starts()).not.toContain(at(30).getTime());
  });

  it("a move takes a room at the new time and frees the old one", async () => {
    const r = await roomClinic();
    const a = await r.book(nine, "A");
    await r.book(nine, "B");
    expect(await r.starts()).not.toContain(nine.getTime());
    const moved = await r.staff.appointments.reschedule({ clinic_id: r.clinicId, id: a.id, start: at(120) });
    expect(moved.resources.map((x) => x.name)).toEqual(["Room 1"]);
    expect(await r.starts()).toContain(nine.getTime());
    const rows = rowsOf<{ occupied_start: string }>(
      await t.db.execute(
        sql`select occupied_start::text from resource_bookings where clinic_id = ${r.clinicId}::uuid and appointment_id = ${a.id}::uuid`,
      ),
    );
    expect(rows).toHaveLength(1);
  });

  it("seats of a group session share one room; the database refuses one room in two overlapping appointments", async () => {
    const r = await roomClinic();
    const group = await addService(t.db, r.clinicId, {
      name: "Back school",
      providerId: r.provider.id,
      durationMin: 60,
    });
    await t.db.execute(
      sql`update services set capacity = 3, required_resource_kinds = '{treatment_room}' where clinic_id = ${r.clinicId}::uuid and id = ${group}::uuid`,
    );
    const seat = (name: string) =>
      r.staff.appointments.book({ clinic_id: r.clinicId, service_id: group, start: at(240), patient: { name } });
    const seats = [await seat("A"), await seat("B"), await seat("C")];
    expect(new Set(seats.map((s) => s.resources[0]?.id))).toEqual(new Set([r.room1]));
    await expect(
      t.db
        .execute(sql`insert into resource_bookings (clinic_id, resource_id, appointment_id, occupied_start, occupied_end)
        values (${r.clinicId}::uuid, ${r.room1}::uuid, gen_random_uuid(), ${at(250).toISOString()}::timestamptz, ${at(260).toISOString()}::timestamptz)`),
    ).rejects.toThrow();
    // The session holds Room 1 only: Room 2 is still free then for other services.
    const single = await r.book(at(240), "Single");
    expect(single.resources.map((x) => x.name)).toEqual(["Room 2"]);
  });

  it("booking a hold whose room another booking took after the hold ended is refused, never both", async () => {
    const r = await roomClinic();
    const held = await r.staff.appointments.hold({
      clinic_id: r.clinicId,
      service_id: r.service,
      start: nine,
      provider_id: r.provider.id,
    });
    const end = held.held_until?.getTime() ?? 0;
    // Two rooms: the hold has Room 1; take Room 2 first, then Room 1 by a clock past the hold's end.
    const [second, third] = r.others;
    await r.staff.appointments.book({
      clinic_id: r.clinicId,
      service_id: r.service,
      start: nine,
      provider_id: second?.id,
      patient: { name: "Room 2 taker" },
    });
    // Another provider's booking, by a clock past the hold's end: the hold's room looks free to it.
    const late = callerFor(t.db, r.staffUser, { now: () => new Date(end + 1) });
    const taker = await late.appointments.book({
      clinic_id: r.clinicId,
      service_id: r.service,
      start: nine,
      provider_id: third?.id,
      patient: { name: "Late" },
    });
    expect(taker.resources.map((x) => x.name)).toEqual(["Room 1"]);
    const early = callerFor(t.db, r.staffUser, { now: () => new Date(end - 1) });
    expect(
      await codeOf(
        early.appointments.book({
          clinic_id: r.clinicId,
          service_id: r.service,
          start: nine,
          hold_id: held.id,
          patient: { name: "Holder" },
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
  });

  it("a full group session's room is not offered to another provider's session at that time", async () => {
    const c = await bookableClinic(t.db);
    const second = await addMember(t.db, c.clinicId, { isProvider: true, fullName: "Second" });
    await addHours(t.db, c.clinicId, second.id, [1], "09:00", "17:00");
    const group = await addService(t.db, c.clinicId, { name: "Gym class", durationMin: 60 });
    await t.db.execute(
      sql`update services set capacity = 2, required_resource_kinds = '{gym}' where clinic_id = ${c.clinicId}::uuid and id = ${group}::uuid`,
    );
    await addResource(t.db, c.clinicId, { name: "Gym", kind: "gym" });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const seat = (name: string) =>
      staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: group,
        start: nine,
        provider_id: c.provider.id,
        patient: { name },
      });
    await seat("A");
    const open = (
      await staff.availability.get({ clinic_id: c.clinicId, service_id: group, from: "2027-03-15", to: "2027-03-15" })
    ).slots.find((x) => x.start.getTime() === nine.getTime());
    // The first provider's session has a seat and the gym; the second provider has no gym then.
    expect(open).toMatchObject({ provider_ids: [c.provider.id], remaining: 1 });
    await seat("B");
    const full = (
      await staff.availability.get({ clinic_id: c.clinicId, service_id: group, from: "2027-03-15", to: "2027-03-15" })
    ).slots.find((x) => x.start.getTime() === nine.getTime());
    expect(full).toBeUndefined();
  });
});
