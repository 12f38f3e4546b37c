// Guest holds cannot hoard a clinic's time (CONTRACT §15 v1.3, docs/manage-links.md#guest-holds):
// at most 3 unconfirmed guest holds per client address and 1 per e-mail address (409 BOOKING_LIMIT,
// its detail saying when the oldest lapses), at most the clinic's guest_holds_max in all (429
// RATE_LIMITED with retry_after_s), while signed-in patients and staff book as before. The same
// under concurrency: guestHolds.concurrency.test.ts.
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointments, clinics, rateLimitCounters, rowsOf } from "@clinic/db";
import { sql } from "drizzle-orm";
import { type ApiLimits, createContextInner, defaultApiLimits } from "../src/context.ts";
import { manageToken } from "../src/modules/manage/index.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import {
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  createUser,
  rejectionOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const createCaller = createCallerFactory(appRouter);
// Two weeks before the appointments, so that nothing is past and no cutoff applies.
const startOfRun = new Date("2027-03-01T08:00:00.000Z");
const roomy: ApiLimits = { ...defaultApiLimits, guestWritesPerMinute: 1000 };

/** A clinic that takes online bookings, with one 30-minute service. */
async function guestClinic() {
  const c = await bookableClinic(t.db);
  const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true });
  return { ...c, service };
}

/** The k-th free half hour: Monday 15 March 2027 09:00 UTC onwards, 16 a day. */
const startAt = (k: number) =>
  new Date(Date.parse("2027-03-15T09:00:00Z") + Math.floor(k / 16) * 86_400_000 + (k % 16) * 30 * 60_000);

/** A visitor without a token at `address`, on a clock that tests may move. */
function visitor(address: string, clock: { now: Date }, limits: ApiLimits = roomy) {
  return createCaller(
    createContextInner({ db: t.db, user: null, clientAddress: address, now: () => clock.now, limits }),
  );
}

const guestBooking = (clinicId: string, service: string, k: number, email: string) => ({
  clinic_id: clinicId,
  service_id: service,
  start: startAt(k),
  patient: { name: `Guest ${String(k)}`, email },
});

describe("guest holds (§15 v1.3)", () => {
  it("keep at most 3 unconfirmed guest holds per client address: the 4th is 409 BOOKING_LIMIT, saying when the oldest lapses", async () => {
    const c = await guestClinic();
    const clock = { now: startOfRun };
    const first = visitor("198.51.100.7", clock);
    const held = [];
    for (let k = 0; k < 3; k++) {
      held.push(await first.onlineBooking.book(guestBooking(c.clinicId, c.service, k, `a${String(k)}@example.test`)));
      // A minute apart, so that "the oldest" is the first.
      clock.now = new Date(clock.now.getTime() + 60_000);
    }
    expect(held.map((a) => a.status)).toEqual(["held", "held", "held"]);
    const oldestLapses = held[0]?.held_until?.toISOString() ?? "";
    expect(oldestLapses).toBe(new Date(startOfRun.getTime() + 10 * 60_000).toISOString());

    const refused = await rejectionOf(
      first.onlineBooking.book(guestBooking(c.clinicId, c.service, 3, "a3@example.test")),
    );
    expect(refused.domainCode).toBe("BOOKING_LIMIT");
    expect(refused.message).toContain(oldestLapses);
    expect(refused.extra).toMatchObject({ lapses_at: oldestLapses });

    // Another address is not held to this one's holds; this one's are no other clinic's business.
    const other = visitor("198.51.100.8", clock);
    expect((await other.onlineBooking.book(guestBooking(c.clinicId, c.service, 4, "b@example.test"))).status).toBe(
      "held",
    );
    const elsewhere = await guestClinic();
    expect(
      (await first.onlineBooking.book(guestBooking(elsewhere.clinicId, elsewhere.service, 0, "a0@example.test")))
        .status,
    ).toBe("held");

    // An expired hold counts for nothing: once the oldest has lapsed, the address books again.
    clock.now = new Date(Date.parse(oldestLapses) + 1);
    expect((await first.onlineBooking.book(guestBooking(c.clinicId, c.service, 5, "a5@example.test"))).status).toBe(
      "held",
    );
  });

  it("keep at most 1 unconfirmed guest hold per e-mail address, compared case-insensitively", async () => {
    const c = await guestClinic();
    const clock = { now: startOfRun };
    const held = await visitor("203.0.113.1", clock).onlineBooking.book(
      guestBooking(c.clinicId, c.service, 0, "Pat.Doe@Example.test"),
    );
    const refused = await rejectionOf(
      visitor("203.0.113.2", clock).onlineBooking.book(guestBooking(c.clinicId, c.service, 1, "pat.doe@EXAMPLE.TEST")),
    );
    expect(refused.domainCode).toBe("BOOKING_LIMIT");
    expect(refused.message).toContain(held.held_until?.toISOString() ?? "never");
    expect(
      (
        await visitor("203.0.113.2", clock).onlineBooking.book(
          guestBooking(c.clinicId, c.service, 1, "someone.else@example.test"),
        )
      ).status,
    ).toBe("held");
  });

  it("a confirmed or released hold is no longer an unconfirmed one", async () => {
    const c = await guestClinic();
    const clock = { now: startOfRun };
    const guest = visitor("192.0.2.44", clock);
    const holds = [];
    for (let k = 0; k < 3; k++)
      holds.push(await guest.onlineBooking.book(guestBooking(c.clinicId, c.service, k, `c${String(k)}@example.test`)));
    expect(await codeOf(guest.onlineBooking.book(guestBooking(c.clinicId, c.service, 3, "c3@example.test")))).toBe(
      "BOOKING_LIMIT",
    );
    const tokenOf = async (id: string) => {
      const [row] = await t.db
        .select({ key: appointments.manageKey })
        .from(appointments)
        .where(and(eq(appointments.clinicId, c.clinicId), eq(appointments.id, id)));
      return manageToken(c.clinicId, id, row?.key ?? "");
    };
    const [confirmed, released] = holds;
    if (!confirmed || !released) throw new Error("no holds");
    expect((await guest.manage.confirm({ token: await tokenOf(confirmed.id) })).status).toBe("booked");
    expect((await guest.onlineBooking.book(guestBooking(c.clinicId, c.service, 3, "c3@example.test"))).status).toBe(
      "held",
    );
    // The confirmed one's e-mail may hold again; the released one's too, once released.
    expect(await codeOf(guest.onlineBooking.book(guestBooking(c.clinicId, c.service, 4, "c4@example.test")))).toBe(
      "BOOKING_LIMIT",
    );
    await guest.manage.decline({ token: await tokenOf(released.id) });
    expect((await guest.onlineBooking.book(guestBooking(c.clinicId, c.service, 4, "c1@example.test"))).status).toBe(
      "held",
    );
  });

  it("keep at most the clinic's guest_holds_max in all: past it 429 RATE_LIMITED until the oldest lapses; members and patients book as before", async () => {
    const c = await guestClinic();
    expect((await c.asAdmin.clinics.get({ clinic_id: c.clinicId })).guest_holds_max).toBe(20);
    expect((await c.asAdmin.clinics.update({ clinic_id: c.clinicId, guest_holds_max: 2 })).guest_holds_max).toBe(2);
    const clock = { now: startOfRun };
    await visitor("192.0.2.1", clock).onlineBooking.book(guestBooking(c.clinicId, c.service, 0, "d0@example.test"));
    clock.now = new Date(startOfRun.getTime() + 90_000);
    await visitor("192.0.2.2", clock).onlineBooking.book(guestBooking(c.clinicId, c.service, 1, "d1@example.test"));
    const full = await rejectionOf(
      visitor("192.0.2.3", clock).onlineBooking.book(guestBooking(c.clinicId, c.service, 2, "d2@example.test")),
    );
    expect(full.domainCode).toBe("RATE_LIMITED");
    // The oldest lapses at 08:10:00, 8.5 minutes after 08:01:30.
    expect(full.extra).toEqual({ retry_after_s: 510 });

    // A signed-in patient and the staff book as before.
    const patient = callerFor(t.db, await createUser(t.db), { now: () => clock.now });
    expect(
      (
        await patient.onlineBooking.book({
          clinic_id: c.clinicId,
          service_id: c.service,
          start: startAt(3),
          patient: { name: "Pat" },
        })
      ).status,
    ).toBe("booked");
    const desk = createCaller(createContextInner({ db: t.db, user: c.staff, now: () => clock.now }));
    expect(
      (
        await desk.appointments.book({
          clinic_id: c.clinicId,
          service_id: c.service,
          start: startAt(4),
          patient: { name: "Walk-in" },
        })
      ).status,
    ).toBe("booked");

    // 0 turns guest booking off.
    await c.asAdmin.clinics.update({ clinic_id: c.clinicId, guest_holds_max: 0 });
    clock.now = new Date(startOfRun.getTime() + 60 * 60_000);
    const off = await rejectionOf(
      visitor("192.0.2.4", clock).onlineBooking.book(guestBooking(c.clinicId, c.service, 5, "d5@example.test")),
    );
    expect(off.domainCode).toBe("RATE_LIMITED");
    expect(off.extra?.retry_after_s).toBeGreaterThan(0);
  });

  it("guest_holds_max is an integer 0–1000, checked by the API and by the database", async () => {
    const c = await guestClinic();
    for (const value of [-1, 1001, 2.5])
      expect(await codeOf(c.asAdmin.clinics.update({ clinic_id: c.clinicId, guest_holds_max: value }))).toBe(
        "VALIDATION_FAILED",
      );
    expect(await codeOf(c.asStaff.clinics.update({ clinic_id: c.clinicId, guest_holds_max: 5 }))).toBe("FORBIDDEN");
    expect((await c.asAdmin.clinics.update({ clinic_id: c.clinicId, guest_holds_max: 1000 })).guest_holds_max).toBe(
      1000,
    );
    await expect(t.db.update(clinics).set({ guestHoldsMax: 1001 }).where(eq(clinics.id, c.clinicId))).rejects.toThrow();
  });

  it("stores and counts a guest's address only as its keyed hash", async () => {
    const c = await guestClinic();
    const address = "198.51.100.250";
    const held = await visitor(address, { now: startOfRun }).onlineBooking.book(
      guestBooking(c.clinicId, c.service, 0, "e@example.test"),
    );
    const [row] = await t.db
      .select({ hash: appointments.guestAddressHash })
      .from(appointments)
      .where(and(eq(appointments.clinicId, c.clinicId), eq(appointments.id, held.id)));
    expect(row?.hash).toMatch(/^[\w-]{43}$/);
    expect(row?.hash).not.toContain(address);
    const keys = await t.db
      .select({ key: rateLimitCounters.key })
      .from(rateLimitCounters)
      .where(and(eq(rateLimitCounters.clinicId, c.clinicId), like(rateLimitCounters.key, "guest-writes:%")));
    expect(keys).toHaveLength(1);
    expect(keys[0]?.key).toBe(`guest-writes:${row?.hash ?? ""}`);
    const anywhere = rowsOf<{ n: number }>(
      await t.db.execute(
        sql`select count(*)::int as n from ${appointments} a where a.clinic_id = ${c.clinicId} and a::text like ${`%${address}%`}`,
      ),
    );
    expect(anywhere[0]?.n).toBe(0);
  });

  it("a guest past GUEST_RATE_LIMIT gets 429 RATE_LIMITED with retry_after_s", async () => {
    const c = await guestClinic();
    const clock = { now: startOfRun };
    const guest = visitor("192.0.2.99", clock, { ...defaultApiLimits, guestWritesPerMinute: 2 });
    for (let k = 0; k < 2; k++)
      await guest.onlineBooking.book(guestBooking(c.clinicId, c.service, k, `f${String(k)}@example.test`));
    const limited = await rejectionOf(
      guest.onlineBooking.book(guestBooking(c.clinicId, c.service, 2, "f2@example.test")),
    );
    expect(limited.domainCode).toBe("RATE_LIMITED");
    expect(limited.extra?.retry_after_s).toBeGreaterThan(0);
  });
});
