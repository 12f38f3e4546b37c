// Guest holds under concurrency (CONTRACT §15 v1.3, docs/manage-links.md#guest-holds): the limits on
// a clinic's unconfirmed guest holds are decided by the database, under the clinic's row lock, so
// they hold for parallel requests on several connections and with two server processes (two pools
// on one database). Real parallel connections only exist on the PostgreSQL server (PGlite is one).
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db, DbHandle } from "@clinic/db";
import { openTestDatabase } from "@clinic/db/testing";
import { createContextInner, defaultApiLimits } from "../src/context.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
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
const createCaller = createCallerFactory(appRouter);
// Enough guest writes a minute for 20 attempts from one address: the holds' limits are under test.
const limits = { ...defaultApiLimits, guestWritesPerMinute: 1000 };

const outcome = (call: Promise<unknown>) =>
  codeOf(call).catch((error: unknown) =>
    error instanceof Error && error.message === "expected the call to fail" ? "OK" : "THREW",
  );

/** The k-th free half hour: Monday 15 March 2027 09:00 UTC onwards, 16 a day. */
const startAt = (k: number) =>
  new Date(Date.parse("2027-03-15T09:00:00Z") + Math.floor(k / 16) * 86_400_000 + (k % 16) * 30 * 60_000);

describe.skipIf(!inject("databaseUrl"))("guest holds under concurrency (PostgreSQL)", () => {
  let second: DbHandle | undefined;
  beforeAll(async () => {
    second = await openTestDatabase({ url: inject("databaseUrl") });
  });
  afterAll(async () => {
    await second?.close();
  });
  /** The k-th request's server process: every other one on the second pool. */
  const poolOf = (k: number): Db => (k % 2 === 1 && second ? second.db : t.db);

  async function guestClinic(guestHoldsMax?: number) {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    await c.asAdmin.clinics.update({
      clinic_id: c.clinicId,
      online_booking: true,
      ...(guestHoldsMax === undefined ? {} : { guest_holds_max: guestHoldsMax }),
    });
    return { ...c, service };
  }

  /** 20 guest bookings at once, each of a free half hour of its own, from `address(k)` for `email(k)`. */
  function twentyGuests(
    c: { clinicId: string; service: string },
    address: (k: number) => string,
    email: (k: number) => string,
  ): Promise<string[]> {
    return Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        outcome(
          createCaller(
            createContextInner({ db: poolOf(k), user: null, clientAddress: address(k), now: pinnedNow, limits }),
          ).onlineBooking.book({
            clinic_id: c.clinicId,
            service_id: c.service,
            start: startAt(k),
            patient: { name: `Guest ${String(k)}`, email: email(k) },
          }),
        ),
      ),
    );
  }

  const tally = (outcomes: string[]) =>
    outcomes.reduce<Record<string, number>>((counts, o) => ({ ...counts, [o]: (counts[o] ?? 0) + 1 }), {});

  async function heldCount(c: { asStaff: ReturnType<typeof callerFor>; clinicId: string }): Promise<number> {
    const list = await c.asStaff.appointments.list({
      clinic_id: c.clinicId,
      status: "held",
      from: new Date("2027-03-15T00:00:00Z"),
      to: new Date("2027-03-17T00:00:00Z"),
    });
    return list.appointments.length;
  }

  it("20 parallel guest bookings from one address: exactly 3 held, 17 × 409 BOOKING_LIMIT", async () => {
    const c = await guestClinic();
    const outcomes = await twentyGuests(
      c,
      () => "198.51.100.20",
      (k) => `guest${String(k)}@example.test`,
    );
    expect(tally(outcomes)).toEqual({ OK: 3, BOOKING_LIMIT: 17 });
    expect(await heldCount(c)).toBe(3);
  });

  it("20 parallel guest bookings for one e-mail address (in any case) from 20 addresses: exactly 1 held, 19 × 409 BOOKING_LIMIT", async () => {
    const c = await guestClinic();
    const outcomes = await twentyGuests(
      c,
      (k) => `203.0.113.${String(k + 1)}`,
      (k) => (k % 2 === 0 ? "Same.Person@Example.test" : "same.person@example.TEST"),
    );
    expect(tally(outcomes)).toEqual({ OK: 1, BOOKING_LIMIT: 19 });
    expect(await heldCount(c)).toBe(1);
  });

  it("20 parallel guest bookings at a clinic keeping 5: exactly 5 held, 15 × 429 RATE_LIMITED; signed-in patients book meanwhile", async () => {
    const c = await guestClinic(5);
    const patients = await Promise.all(Array.from({ length: 4 }, () => createUser(t.db)));
    const [outcomes, patientOutcomes] = await Promise.all([
      twentyGuests(
        c,
        (k) => `192.0.2.${String(k + 1)}`,
        (k) => `guest${String(k)}@example.test`,
      ),
      Promise.all(
        patients.map((patient, k) =>
          outcome(
            callerFor(t.db, patient, { now: pinnedNow }).onlineBooking.book({
              clinic_id: c.clinicId,
              service_id: c.service,
              start: startAt(20 + k),
              patient: { name: `Patient ${String(k)}` },
            }),
          ),
        ),
      ),
    ]);
    expect(tally(outcomes)).toEqual({ OK: 5, RATE_LIMITED: 15 });
    expect(patientOutcomes).toEqual(["OK", "OK", "OK", "OK"]);
    expect(await heldCount(c)).toBe(5);
  });
});
