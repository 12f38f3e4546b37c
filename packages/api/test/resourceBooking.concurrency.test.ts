// Rooms under 100 parallel requests (CONTRACT §14), on PostgreSQL (PGlite is one connection): ten
// free providers but one room give exactly one appointment; a 10-seat session that needs the room
// gives exactly ten seats, all in that room.
import { sql } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import {
  addHours,
  addMember,
  addResource,
  addService,
  bookableClinic,
  callerFor,
  pinnedNow,
  refusalCodesOf,
  refusalDetailsOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const nine = new Date("2027-03-15T09:00:00Z");

describe.skipIf(!inject("databaseUrl"))("resources under concurrency (PostgreSQL)", () => {
  it("100 simultaneous bookings with ten free providers and one room give exactly one appointment", async () => {
    const c = await bookableClinic(t.db);
    const providers = await Promise.all(
      Array.from({ length: 9 }, (_, k) => addMember(t.db, c.clinicId, { isProvider: true, fullName: `P${String(k)}` })),
    );
    for (const p of providers) await addHours(t.db, c.clinicId, p.id, [1], "09:00", "17:00");
    const service = await addService(t.db, c.clinicId, { durationMin: 30 });
    await t.db.execute(
      sql`update services set required_resource_kinds = '{treatment_room}' where clinic_id = ${c.clinicId}::uuid and id = ${service}::uuid`,
    );
    await addResource(t.db, c.clinicId, { name: "The room" });
    const callers = await Promise.all(
      Array.from({ length: 100 }, () => addMember(t.db, c.clinicId, { role: "BOOKING_AGENT" })),
    );
    const results = await Promise.allSettled(
      callers.map((user, k) =>
        callerFor(t.db, user, { now: pinnedNow }).appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: nine,
          patient: { name: `P${String(k)}` },
        }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(new Set(refusalCodesOf(results)), refusalDetailsOf(results)).toEqual(new Set(["SLOT_UNAVAILABLE"]));
    expect(refusalCodesOf(results)).toHaveLength(99);
  });

  it("100 simultaneous bookings of a 10-seat session that needs a room give ten seats in one room", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    await t.db.execute(
      sql`update services set capacity = 10, required_resource_kinds = '{gym}' where clinic_id = ${c.clinicId}::uuid and id = ${service}::uuid`,
    );
    const gyms = [
      await addResource(t.db, c.clinicId, { name: "Gym A", kind: "gym" }),
      await addResource(t.db, c.clinicId, { name: "Gym B", kind: "gym" }),
    ];
    const callers = await Promise.all(
      Array.from({ length: 100 }, () => addMember(t.db, c.clinicId, { role: "BOOKING_AGENT" })),
    );
    const results = await Promise.allSettled(
      callers.map((user, k) =>
        callerFor(t.db, user, { now: pinnedNow }).appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: nine,
          patient: { name: `P${String(k)}` },
        }),
      ),
    );
    const seats = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(seats).toHaveLength(10);
    expect(new Set(seats.map((s) => s.resources[0]?.id))).toEqual(new Set([gyms[0]]));
    expect(new Set(refusalCodesOf(results)), refusalDetailsOf(results)).toEqual(new Set(["SLOT_UNAVAILABLE"]));
  });
});
