// The race of two clinics for one person (CONTRACT §14): concurrent bookings of one provider in two
// clinics at overlapping times give exactly one appointment, on PostgreSQL and on Citus (where the
// clinics may sit on different workers and provider_busy on a third shard).
import { describe, expect, inject, it } from "vitest";
import {
  addMember,
  addService,
  callerFor,
  pinnedNow,
  refusalCodesOf,
  refusalDetailsOf,
  sharedProviderClinics,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();

describe.skipIf(!inject("databaseUrl"))("one provider, two clinics, under concurrency", () => {
  it("20 simultaneous bookings of one person at overlapping times in two clinics give exactly one", async () => {
    const { a, b, person } = await sharedProviderClinics(t.db, [1]);
    const serviceA = await addService(t.db, a.clinicId, { providerId: person.id, durationMin: 30 });
    const serviceB = await addService(t.db, b.clinicId, { providerId: person.id, durationMin: 60 });
    // One caller each (the booking-write limit counts per user); A books 09:00, B 08:30 or 09:00 (overlapping).
    const jobs = await Promise.all(
      Array.from({ length: 20 }, async (_, k) => {
        const inA = k % 2 === 0;
        const user = await addMember(t.db, inA ? a.clinicId : b.clinicId, { role: "BOOKING_AGENT" });
        return () =>
          callerFor(t.db, user, { now: pinnedNow }).appointments.book({
            clinic_id: inA ? a.clinicId : b.clinicId,
            service_id: inA ? serviceA : serviceB,
            start: new Date(
              inA ? "2027-03-15T09:00:00Z" : k % 4 === 1 ? "2027-03-15T09:00:00Z" : "2027-03-15T08:30:00Z",
            ),
            patient: { name: `P${String(k)}` },
          });
      }),
    );
    const results = await Promise.allSettled(jobs.map((job) => job()));
    const codes = refusalCodesOf(results);
    const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(won, refusalDetailsOf(results)).toHaveLength(1);
    expect(codes, refusalDetailsOf(results)).not.toContain("CONFLICT");
    expect(codes).toHaveLength(19);
    expect(new Set(codes)).toEqual(new Set(["SLOT_UNAVAILABLE"]));
  });
});
