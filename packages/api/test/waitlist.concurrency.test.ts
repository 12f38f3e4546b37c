// The waitlist matcher in several processes at once (PostgreSQL): two connection pools, each with
// its own availability cache, run the matcher over the same freed slots and entries in parallel.
// The database decides: each slot is held for one entry, no entry holds two offers, and no run
// fails.
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, describe, expect, inject, it } from "vitest";
import { type Db, type DbHandle, appointments, openDatabase, waitlistEntries } from "@clinic/db";
import { TEST_CONNECT_TIMEOUT_S } from "@clinic/db/testing";
import { AvailabilityCache } from "../src/modules/availability/index.ts";
import { bookAppointment } from "../src/modules/booking/index.ts";
import { matchWaitlist } from "../src/modules/waitlist/index.ts";
import { addService, bookableClinic, callerFor, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const MIN = 60_000;
const monday = "2027-03-08";
const slotAt = (i: number) => new Date(Date.parse(`${monday}T09:00:00Z`) + i * 30 * MIN);

const url = inject("databaseUrl");
let second: DbHandle | undefined;
afterAll(async () => {
  await second?.close();
});

describe.skipIf(!url)("the waitlist matcher in two processes (PostgreSQL)", () => {
  it(
    "offers each freed slot to exactly one entry and no entry twice, round after round",
    { timeout: 60_000 },
    async () => {
      second = await openDatabase({ url, poolMax: 10, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
      const processes: { db: Db; cache: AvailabilityCache }[] = [
        { db: t.db, cache: new AvailabilityCache() },
        { db: second.db, cache: new AvailabilityCache() },
      ];
      const c = await bookableClinic(t.db);
      const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
      const staff = callerFor(t.db, c.staff, { now: pinnedNow });
      // Monday 09:00–17:00 fully booked (16 slots), 12 entries waiting for that day.
      const booked = [];
      for (let i = 0; i < 16; i++) {
        booked.push(
          await callerFor(t.db, c.staff, {
            now: () => new Date(pinnedNow().getTime() + i * 3 * MIN),
          }).appointments.book({
            clinic_id: c.clinicId,
            service_id: service,
            start: slotAt(i),
            patient: { name: `Booked ${i}` },
          }),
        );
      }
      const entryIds: string[] = [];
      for (let i = 0; i < 12; i++) {
        const entry = await staff.waitlist.add({
          clinic_id: c.clinicId,
          service_id: service,
          from_date: monday,
          to_date: monday,
          patient: { name: `Waiting ${i}`, email: `w${i}@test.example` },
        });
        entryIds.push(entry.id);
      }
      // Six of them are canceled: six freed slots.
      for (const appointment of booked.filter((_, i) => i % 3 === 0)) {
        await staff.appointments.cancel({ clinic_id: c.clinicId, id: appointment.id });
      }
      const freed = booked.filter((_, i) => i % 3 === 0).map((a) => a.start.toISOString());
      expect(freed).toHaveLength(6);

      /** Six matcher runs at once, alternating between the two processes. */
      const race = async (now: number) => {
        const runs = await Promise.allSettled(
          [0, 1, 0, 1, 0, 1].map((p) => {
            const process = processes[p];
            if (!process) throw new Error("no process");
            return matchWaitlist(process.db, process.cache, c.clinicId, new Date(now));
          }),
        );
        const failures = runs.filter((r) => r.status === "rejected");
        expect(failures).toEqual([]);
        return runs.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      };

      const check = async (now: number) => {
        const entries = await t.db
          .select()
          .from(waitlistEntries)
          .where(and(eq(waitlistEntries.clinicId, c.clinicId), inArray(waitlistEntries.id, entryIds)));
        const offered = entries.filter((e) => e.status === "offered");
        const holds = await t.db
          .select()
          .from(appointments)
          .where(and(eq(appointments.clinicId, c.clinicId), eq(appointments.status, "held")));
        const live = holds.filter((h) => (h.heldUntil?.getTime() ?? 0) > now);
        // Each live hold is one entry's offer, and each offer one live hold: no slot offered twice, no entry twice.
        expect(offered.map((e) => e.offerAppointmentId).sort()).toEqual(live.map((h) => h.id).sort());
        expect(new Set(live.map((h) => h.startsAt.toISOString())).size).toBe(live.length);
        for (const e of offered) {
          const hold = live.find((h) => h.id === e.offerAppointmentId);
          expect(hold && e.passed.includes(hold.startsAt.toISOString())).toBe(false);
        }
        return { offered, live, entries };
      };

      const t0 = pinnedNow().getTime();
      const first = await race(t0);
      const round1 = await check(t0);
      expect(round1.live.map((h) => h.startsAt.toISOString()).sort()).toEqual([...freed].sort());
      expect(first.reduce((n, r) => n + r.offered, 0)).toBe(6);
      // The six oldest entries got them.
      expect(round1.offered.map((e) => e.id).sort()).toEqual(entryIds.slice(0, 6).sort());

      // Every offer expires: the processes return each once (with its start in `passed`) and offer
      // the six slots again, to the oldest entries each fits (never the start an entry passed on).
      const t1 = t0 + 31 * MIN;
      const second1 = await race(t1);
      expect(second1.reduce((n, r) => n + r.returned, 0)).toBe(6);
      expect(second1.reduce((n, r) => n + r.offered, 0)).toBe(6);
      const round2 = await check(t1);
      expect(round2.live.map((h) => h.startsAt.toISOString()).sort()).toEqual([...freed].sort());

      const t2 = t1 + 31 * MIN;
      const third = await race(t2);
      expect(third.reduce((n, r) => n + r.returned, 0)).toBe(6);
      const round3 = await check(t2);
      expect(round3.live.map((h) => h.startsAt.toISOString()).sort()).toEqual([...freed].sort());
      // No entry passed on one start twice: it was never offered a start it had passed on.
      for (const e of round3.entries) expect(new Set(e.passed).size).toBe(e.passed.length);
      expect(round3.entries.reduce((n, e) => n + e.passed.length, 0)).toBe(12);
    },
  );

  it("an accept racing the matcher at the offer's end: the entry is booked exactly when its hold is", async () => {
    second ??= await openDatabase({ url, poolMax: 10, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    const other = second.db;
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    // Ten entries, each wanting one slot of Monday of its own.
    const entries: { id: string; start: Date }[] = [];
    for (let i = 0; i < 10; i++) {
      const start = slotAt(i);
      const hhmm = (d: Date) => d.toISOString().slice(11, 16);
      const entry = await staff.waitlist.add({
        clinic_id: c.clinicId,
        service_id: service,
        from_date: monday,
        to_date: monday,
        earliest: hhmm(start),
        latest: hhmm(new Date(start.getTime() + 30 * MIN)),
        patient: { name: `Waiting ${i}`, email: `w${i}@test.example` },
      });
      entries.push({ id: entry.id, start });
    }
    const t0 = pinnedNow().getTime();
    expect((await matchWaitlist(t.db, new AvailabilityCache(), c.clinicId, new Date(t0))).offered).toBe(10);
    const rows = await t.db
      .select()
      .from(waitlistEntries)
      .where(and(eq(waitlistEntries.clinicId, c.clinicId), eq(waitlistEntries.status, "offered")));
    const end = t0 + 30 * MIN;
    // Each accept's clock is a millisecond before the offer's end, the matchers' a millisecond after.
    const accepts = entries.map((e) => {
      const hold = rows.find((r) => r.id === e.id)?.offerAppointmentId ?? "";
      return bookAppointment(
        other,
        {
          clinicId: c.clinicId,
          timeZone: "UTC",
          userId: null,
          serviceId: service,
          start: e.start,
          holdId: hold,
          patient: { name: "Accepting" },
        },
        new Date(end - 1),
      ).then(
        () => "OK",
        (error: unknown) => (error instanceof Error ? error.message : "THREW"),
      );
    });
    const matchers = [t.db, other].map((db) =>
      matchWaitlist(db, new AvailabilityCache(), c.clinicId, new Date(end + 1)),
    );
    const [outcomes, runs] = await Promise.all([Promise.all(accepts), Promise.allSettled(matchers)]);
    expect(runs.filter((r) => r.status === "rejected")).toEqual([]);
    expect(outcomes.filter((o) => o !== "OK" && !/hold not found/.test(o))).toEqual([]);
    const after = await t.db
      .select()
      .from(waitlistEntries)
      .where(
        and(
          eq(waitlistEntries.clinicId, c.clinicId),
          inArray(
            waitlistEntries.id,
            entries.map((e) => e.id),
          ),
        ),
      );
    const holds = await t.db
      .select()
      .from(appointments)
      .where(
        and(
          eq(appointments.clinicId, c.clinicId),
          inArray(
            appointments.id,
            rows.flatMap((r) => (r.offerAppointmentId ? [r.offerAppointmentId] : [])),
          ),
        ),
      );
    for (const [i, e] of entries.entries()) {
      const entry = after.find((r) => r.id === e.id);
      const hold = holds.find((h) => h.id === rows.find((r) => r.id === e.id)?.offerAppointmentId);
      if (outcomes[i] === "OK") {
        expect([entry?.status, hold?.status]).toEqual(["booked", "booked"]);
      } else {
        expect([entry?.status, entry?.passed, hold?.status]).toEqual(["waiting", [e.start.toISOString()], undefined]);
      }
    }
  });
});
