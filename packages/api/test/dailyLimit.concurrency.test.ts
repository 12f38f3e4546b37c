// A provider's daily limit under concurrency (CONTRACT §8 v1.4, issue 46): simultaneous bookings,
// moves and a series for a provider's last place of a local day give it to exactly one. The reads
// all see the place free; only the writes' count, taken under the lock of the provider's version
// row (clinic_check_daily_limit after clinic_bookings_changed), sees the winner: counted under
// clinic_check_schedule's key-share locks instead, several win (docs/database-functions.md).
import { describe, expect, inject, it } from "vitest";
import {
  addMember,
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const at = (iso: string) => new Date(iso);
/** "OK" for a call that succeeded, else its API code. */
const outcome = (call: Promise<unknown>) =>
  codeOf(call).catch((error: unknown) =>
    error instanceof Error && error.message === "expected the call to fail" ? "OK" : `THREW ${String(error)}`,
  );
const ROUNDS = 5;

async function limitedClinic(max: number, options: Parameters<typeof bookableClinic>[1] = {}) {
  const c = await bookableClinic(t.db, options);
  await c.asAdmin.members.update({ clinic_id: c.clinicId, user_id: c.provider.id, max_daily_appointments: max });
  const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
  const agents = await Promise.all(Array.from({ length: 6 }, () => addMember(t.db, c.clinicId, { role: "STAFF" })));
  return { ...c, service, callers: agents.map((a) => callerFor(t.db, a, { now: pinnedNow })) };
}

/** The provider's appointments that occupy time with a start in [from, to). */
async function countBetween(c: Awaited<ReturnType<typeof limitedClinic>>, from: string, to: string) {
  const { appointments } = await c.asStaff.appointments.list({ clinic_id: c.clinicId, from: at(from), to: at(to) });
  return appointments.filter((a) => a.status !== "canceled" && a.start >= at(from) && a.start < at(to)).length;
}

// Real parallel connections only exist on the PostgreSQL server (PGlite is one connection).
describe.skipIf(!inject("databaseUrl"))("a provider's daily limit under concurrency (PostgreSQL)", () => {
  it("six simultaneous bookings for the provider's last place of the day: exactly one 201", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const c = await limitedClinic(2);
      await c.callers[0]?.appointments.book({
        clinic_id: c.clinicId,
        service_id: c.service,
        start: at("2027-03-15T09:00:00Z"),
        patient: { name: "First" },
      });
      const outcomes = await Promise.all(
        c.callers.map((caller, k) =>
          outcome(
            caller.appointments.book({
              clinic_id: c.clinicId,
              service_id: c.service,
              start: at(`2027-03-15T${String(10 + k)}:00:00Z`),
              patient: { name: `Patient ${String(k)}` },
            }),
          ),
        ),
      );
      expect(
        outcomes.filter((o) => o === "OK"),
        outcomes.join(", "),
      ).toHaveLength(1);
      expect(
        outcomes.filter((o) => o === "SLOT_UNAVAILABLE"),
        outcomes.join(", "),
      ).toHaveLength(5);
      expect(await countBetween(c, "2027-03-15T00:00:00Z", "2027-03-16T00:00:00Z")).toBe(2);
    }
  });

  it("on a DST day (Berlin, 2027-03-28, 23 hours): one of the local day's racers wins, the neighbours' dates are others", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const c = await limitedClinic(1, {
        timezone: "Europe/Berlin",
        hours: { weekdays: [1, 2, 3, 4, 5, 6, 7], opens: "00:00", closes: "24:00" },
      });
      // Local 2027-03-28: 00:30 (23:30Z the day before), 03:00 (01:00Z, after the jump), 12:00, 23:00 (21:00Z).
      const sameDay = ["2027-03-27T23:30:00Z", "2027-03-28T01:00:00Z", "2027-03-28T10:00:00Z", "2027-03-28T21:00:00Z"];
      // Local 23:30 on the 27th and 00:00 on the 29th: each the only booking of its own date.
      const neighbours = ["2027-03-27T22:30:00Z", "2027-03-28T22:00:00Z"];
      const outcomes = await Promise.all(
        [...sameDay, ...neighbours].map((start, k) =>
          outcome(
            (c.callers[k] ?? c.asStaff).appointments.book({
              clinic_id: c.clinicId,
              service_id: c.service,
              start: at(start),
              patient: { name: `Patient ${String(k)}` },
            }),
          ),
        ),
      );
      expect(
        outcomes.slice(0, 4).filter((o) => o === "OK"),
        outcomes.join(", "),
      ).toHaveLength(1);
      expect(
        outcomes.slice(0, 4).filter((o) => o === "SLOT_UNAVAILABLE"),
        outcomes.join(", "),
      ).toHaveLength(3);
      expect(outcomes.slice(4), outcomes.join(", ")).toEqual(["OK", "OK"]);
      expect(await countBetween(c, "2027-03-27T23:00:00Z", "2027-03-28T22:00:00Z")).toBe(1);
    }
  });

  it("simultaneous moves into the last place of a day (B5): exactly one moves", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const c = await limitedClinic(1);
      const caller = c.callers[0];
      if (!caller) throw new Error("no caller");
      const ids = [];
      for (const day of ["16", "17", "18", "19"])
        ids.push(
          (
            await caller.appointments.book({
              clinic_id: c.clinicId,
              service_id: c.service,
              start: at(`2027-03-${day}T09:00:00Z`),
              patient: { name: `Patient ${day}` },
            })
          ).id,
        );
      const outcomes = await Promise.all(
        ids.map((id, k) =>
          outcome(
            (c.callers[k] ?? caller).appointments.reschedule({
              clinic_id: c.clinicId,
              id,
              start: at(`2027-03-15T${String(10 + k)}:00:00Z`),
            }),
          ),
        ),
      );
      expect(
        outcomes.filter((o) => o === "OK"),
        outcomes.join(", "),
      ).toHaveLength(1);
      expect(
        outcomes.filter((o) => o === "SLOT_UNAVAILABLE"),
        outcomes.join(", "),
      ).toHaveLength(3);
      expect(await countBetween(c, "2027-03-15T00:00:00Z", "2027-03-16T00:00:00Z")).toBe(1);
    }
  });

  it("a series and bookings for the last place of one of its days: the day is given once (R1)", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const c = await limitedClinic(1);
      const [first, ...others] = c.callers;
      if (!first) throw new Error("no caller");
      const outcomes = await Promise.all([
        outcome(
          first.series.book({
            clinic_id: c.clinicId,
            service_id: c.service,
            start: at("2027-03-15T14:00:00Z"),
            rrule: "FREQ=DAILY;COUNT=3",
            patient: { name: "Series" },
          }),
        ),
        ...others.slice(0, 3).map((caller, k) =>
          outcome(
            caller.appointments.book({
              clinic_id: c.clinicId,
              service_id: c.service,
              start: at(`2027-03-16T${String(10 + k)}:00:00Z`),
              patient: { name: `Patient ${String(k)}` },
            }),
          ),
        ),
      ]);
      // All or nothing: the series has Tuesday and no booking does, or one booking has it and the series nothing.
      const [series, ...bookings] = outcomes;
      expect(["OK", "SLOT_UNAVAILABLE"], outcomes.join(", ")).toContain(series);
      expect(
        bookings.every((o) => o === "OK" || o === "SLOT_UNAVAILABLE"),
        outcomes.join(", "),
      ).toBe(true);
      const won = bookings.filter((o) => o === "OK").length;
      expect(series === "OK" ? won : won - 1, outcomes.join(", ")).toBe(0);
      expect(await countBetween(c, "2027-03-16T00:00:00Z", "2027-03-17T00:00:00Z")).toBe(1);
    }
  });
});
