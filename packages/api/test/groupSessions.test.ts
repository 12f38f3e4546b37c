// Group sessions (CONTRACT §14): a service's capacity, `remaining` in availability, and the seats
// of one slot sharing it while everything else stays refused by the exclusion constraint. The race
// of 100 parallel bookings is in groupSessions.concurrency.test.ts.
import { describe, expect, it } from "vitest";
import {
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  createUser,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const MIN = 60_000;
/** A Monday 09:00 UTC, two weeks after the pinned clock. */
const nine = new Date("2027-03-15T09:00:00.000Z");
const at = (minutes: number) => new Date(nine.getTime() + minutes * MIN);

async function groupClinic(capacity = 3) {
  const c = await bookableClinic(t.db);
  const service = await addService(t.db, c.clinicId, {
    name: "Back school",
    providerId: c.provider.id,
    durationMin: 60,
  });
  await c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, capacity, slot_step_min: 30 });
  const single = await addService(t.db, c.clinicId, { name: "Check-up", providerId: c.provider.id, durationMin: 30 });
  const staff = callerFor(t.db, c.staff, { now: pinnedNow });
  const book = (start: Date, name: string, serviceId = service) =>
    staff.appointments.book({ clinic_id: c.clinicId, service_id: serviceId, start, patient: { name } });
  const slotsOf = async (serviceId = service) =>
    (
      await staff.availability.get({
        clinic_id: c.clinicId,
        service_id: serviceId,
        from: "2027-03-15",
        to: "2027-03-15",
      })
    ).slots;
  const remainingAt = async (start: Date) =>
    (await slotsOf()).find((s) => s.start.getTime() === start.getTime())?.remaining;
  return { ...c, service, single, staff, book, slotsOf, remainingAt };
}

describe("group sessions", () => {
  it("a service's capacity is 1 to 200, shown on the service", async () => {
    const c = await bookableClinic(t.db);
    const created = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Yoga",
      duration_min: 60,
      capacity: 8,
    });
    expect(created.capacity).toBe(8);
    const plain = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Plain", duration_min: 30 });
    expect(plain.capacity).toBe(1);
    for (const capacity of [0, 201, 1.5])
      expect(await codeOf(c.asAdmin.services.update({ clinic_id: c.clinicId, id: plain.id, capacity }))).toBe(
        "VALIDATION_FAILED",
      );
  });

  it("seats fill one slot: remaining counts down, a full slot is not offered and refuses, a cancel frees a seat", async () => {
    const g = await groupClinic(3);
    expect(await g.remainingAt(nine)).toBe(3);
    const first = await g.book(nine, "A");
    await g.book(nine, "B");
    expect(await g.remainingAt(nine)).toBe(1);
    // Slots overlapping the session are gone; the next session's are whole.
    expect(await g.remainingAt(at(30))).toBeUndefined();
    expect(await g.remainingAt(at(60))).toBe(3);
    expect(await codeOf(g.book(at(30), "Overlapping start"))).toBe("SLOT_UNAVAILABLE");
    await g.book(nine, "C");
    expect(await g.remainingAt(nine)).toBeUndefined();
    expect(await codeOf(g.book(nine, "D"))).toBe("SLOT_UNAVAILABLE");
    await g.staff.appointments.cancel({ clinic_id: g.clinicId, id: first.id });
    expect(await g.remainingAt(nine)).toBe(1);
    expect((await g.book(nine, "D")).start).toEqual(nine);
  });

  it("a session blocks its provider for other services, and a single booking blocks the session", async () => {
    const g = await groupClinic(4);
    await g.book(nine, "A");
    const single = await g.slotsOf(g.single);
    expect(single.map((s) => s.start.getTime())).not.toContain(nine.getTime());
    expect(single.every((s) => s.remaining === undefined)).toBe(true);
    expect(await codeOf(g.book(at(30), "Other service", g.single))).toBe("SLOT_UNAVAILABLE");
    await g.book(at(120), "Single first", g.single);
    expect(await g.remainingAt(at(120))).toBeUndefined();
    expect(await codeOf(g.book(at(120), "Seat"))).toBe("SLOT_UNAVAILABLE");
  });

  it("a seat moves into a session with a seat left, not into a full one", async () => {
    const g = await groupClinic(2);
    await g.book(nine, "A");
    await g.book(nine, "B");
    const moving = await g.book(at(60), "C");
    expect(await codeOf(g.staff.appointments.reschedule({ clinic_id: g.clinicId, id: moving.id, start: nine }))).toBe(
      "SLOT_UNAVAILABLE",
    );
    const other = await g.book(at(120), "D");
    const moved = await g.staff.appointments.reschedule({ clinic_id: g.clinicId, id: moving.id, start: at(120) });
    expect(moved.start).toEqual(at(120));
    expect(await g.remainingAt(at(120))).toBeUndefined();
    expect(await g.remainingAt(at(60))).toBe(2);
    expect(other.id).not.toBe(moved.id);
  });

  it("a seat's patient is not seated twice in one session", async () => {
    const g = await groupClinic(5);
    const patient = await createUser(t.db);
    const seat = () =>
      g.staff.appointments.book({
        clinic_id: g.clinicId,
        service_id: g.service,
        start: nine,
        patient: { name: "Pat Seat" },
        patient_user_id: patient.id,
      });
    await seat();
    expect(await codeOf(seat())).toBe("PATIENT_DOUBLE_BOOKED");
    expect(await g.remainingAt(nine)).toBe(4);
  });
});
