// The seat count of a group session under real parallel connections (CONTRACT §14): 100 bookings
// of a 10-seat slot at once give exactly 10 appointments. PostgreSQL only (PGlite is one connection).
import { describe, expect, inject, it } from "vitest";
import {
  addMember,
  addService,
  bookableClinic,
  callerFor,
  pinnedNow,
  refusalCodesOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();

describe.skipIf(!inject("databaseUrl"))("group sessions under concurrency (PostgreSQL)", () => {
  it("100 simultaneous bookings of a 10-seat slot yield exactly 10 seats, and 90 × SLOT_UNAVAILABLE", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, capacity: 10 });
    // One caller each: the booking-write limit counts per user.
    const callers = await Promise.all(
      Array.from({ length: 100 }, () => addMember(t.db, c.clinicId, { role: "BOOKING_AGENT" })),
    );
    const start = new Date("2027-03-15T09:00:00Z");
    const results = await Promise.allSettled(
      callers.map((user, k) =>
        callerFor(t.db, user, { now: pinnedNow }).appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start,
          patient: { name: `P${String(k)}` },
        }),
      ),
    );
    const codes = refusalCodesOf(results);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(10);
    expect(codes).toHaveLength(90);
    expect(new Set(codes)).toEqual(new Set(["SLOT_UNAVAILABLE"]));
    const list = await callerFor(t.db, c.staff).appointments.list({ clinic_id: c.clinicId, limit: 200 });
    expect(list.appointments.filter((a) => a.status === "booked")).toHaveLength(10);
    const slots = await callerFor(t.db, c.staff, { now: pinnedNow }).availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: "2027-03-15",
      to: "2027-03-15",
    });
    expect(slots.slots.map((s) => s.start.getTime())).not.toContain(start.getTime());
  });
});
