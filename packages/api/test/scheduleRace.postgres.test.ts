import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { type DbHandle, appointments, closures, openDatabase } from "@clinic/db";
import { TEST_CONNECT_TIMEOUT_S } from "@clinic/db/testing";
import { invalidateAvailability } from "../src/modules/availability/index.ts";
import { addService, bookableClinic, callerFor, codeOf, lockWaiters, pinnedNow } from "../testing/index.ts";

// A booking checks the schedule it read, and the write re-checks that schedule's version under a
// key-share lock (docs/performance.md#re-checking-the-schedule-without-making-bookings-wait-for-each-other).
// Here a closure is being added while a booking that read the schedule without it is writing: the
// booking waits for the closure's commit, sees the new version, reads again and is refused.
const databaseUrl = inject("databaseUrl");

describe.skipIf(!databaseUrl)("a booking racing a schedule change (PostgreSQL)", () => {
  let writer: DbHandle;
  let booker: DbHandle;
  beforeAll(async () => {
    writer = await openDatabase({ url: databaseUrl, poolMax: 2, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    booker = await openDatabase({ url: databaseUrl, poolMax: 2, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
  });
  afterAll(async () => {
    await writer.close();
    await booker.close();
  });

  it("never books into a closure that committed while it was writing", async () => {
    const c = await bookableClinic(writer.db);
    const service = await addService(writer.db, c.clinicId, { durationMin: 30 });
    const start = new Date("2027-03-15T10:00:00Z");
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The schedule change: its transaction stays open until the booking is waiting on it.
    const change = writer.db.transaction(async (tx) => {
      await invalidateAvailability(tx, c.clinicId, [c.clinicId]);
      await tx.insert(closures).values({
        clinicId: c.clinicId,
        scope: "clinic",
        startsAt: new Date("2027-03-15T09:00:00Z"),
        endsAt: new Date("2027-03-15T12:00:00Z"),
        reason: "race",
      });
      await held;
    });
    const booking = codeOf(
      callerFor(booker.db, c.staff, { now: pinnedNow }).appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: start.toISOString(),
        patient: { name: "Pat" },
      }),
    );
    // The booking has read the schedule (without the closure) once its write waits for a lock
    // (on Citus the write runs on the clinic's worker: citus_stat_activity shows every node's).
    try {
      expect(await lockWaiters(writer.db, "clinic_book_appointment")).toBeGreaterThan(0);
    } finally {
      release();
    }
    await change;
    expect(await booking).toBe("SLOT_UNAVAILABLE");
    const inside = await writer.db
      .select()
      .from(appointments)
      .where(and(eq(appointments.clinicId, c.clinicId), eq(appointments.startsAt, start)));
    expect(inside).toEqual([]);
  }, 30_000);
});
