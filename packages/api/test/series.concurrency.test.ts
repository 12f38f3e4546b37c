// Series under real parallel requests (CONTRACT §14), on PostgreSQL (PGlite is one connection):
// ten staff members booking the same course at once get one series and nine 409s; overlapping
// courses never put two appointments in one slot; parallel retries with one Idempotency-Key
// answer one series.
import { describe, expect, inject, it } from "vitest";
import {
  addMember,
  addService,
  bookableClinic,
  callerFor,
  pinnedNow,
  refusalCodesOf,
  refusalDetailsOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const start = new Date("2027-03-16T09:00:00Z");

async function courseClinic() {
  const c = await bookableClinic(t.db);
  const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  // One caller each: the booking-write limit counts per user.
  const staff = await Promise.all(Array.from({ length: 10 }, () => addMember(t.db, c.clinicId, { role: "STAFF" })));
  const book = (k: number, input: { rrule: string; start?: Date; mode?: "skip_unavailable"; key?: string }) =>
    callerFor(t.db, staff[k] ?? c.staff, { now: pinnedNow }).series.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: input.start ?? start,
      rrule: input.rrule,
      patient: { name: `P${String(k)}` },
      ...(input.mode ? { mode: input.mode } : {}),
      ...(input.key ? { idempotency_key: input.key } : {}),
    });
  const booked = async () =>
    (await callerFor(t.db, c.staff).appointments.list({ clinic_id: c.clinicId, limit: 200 })).appointments.filter(
      (a) => a.status === "booked",
    );
  return { ...c, book, booked };
}

describe.skipIf(!inject("databaseUrl"))("series under concurrency (PostgreSQL)", () => {
  it("ten simultaneous requests for one course (all or nothing) give one series and nine 409s", async () => {
    const c = await courseClinic();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, k) => c.book(k, { rrule: "FREQ=WEEKLY;COUNT=5" })),
    );
    expect(
      results.filter((r) => r.status === "fulfilled"),
      refusalDetailsOf(results),
    ).toHaveLength(1);
    expect(refusalCodesOf(results)).toEqual(Array.from({ length: 9 }, () => "SLOT_UNAVAILABLE"));
    expect(await c.booked()).toHaveLength(5);
  });

  it("overlapping courses booked at once (skip_unavailable) never put two appointments in one slot", async () => {
    const c = await courseClinic();
    // Weekly from 16 March, and from each of the next weeks: every later course shares its slots.
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, k) =>
        c.book(k, {
          rrule: "FREQ=WEEKLY;COUNT=4",
          start: new Date(start.getTime() + (k % 5) * 7 * 86_400_000),
          mode: "skip_unavailable",
        }),
      ),
    );
    expect(new Set(refusalCodesOf(results)), refusalDetailsOf(results)).toEqual(
      new Set(refusalCodesOf(results).length > 0 ? ["SLOT_UNAVAILABLE"] : []),
    );
    const booked = await c.booked();
    const starts = booked.map((a) => a.start.getTime());
    expect(new Set(starts).size).toBe(starts.length);
    // Every week from 16 March through the last course's end (8 weeks) is taken once.
    expect(starts).toHaveLength(8);
  });

  it("parallel retries with one Idempotency-Key answer one series", async () => {
    const c = await courseClinic();
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => c.book(0, { rrule: "FREQ=DAILY;COUNT=3", key: "course-race" })),
    );
    const ids = new Set(
      results.flatMap((r) => (r.status === "fulfilled" && !("dry_run" in r.value) ? [r.value.id] : [])),
    );
    expect(ids.size).toBe(1);
    // A request still waiting on the first one's key may be told to retry; none books again.
    expect(new Set(refusalCodesOf(results))).toEqual(new Set(refusalCodesOf(results).length > 0 ? ["CONFLICT"] : []));
    expect(await c.booked()).toHaveLength(3);
  });
});
