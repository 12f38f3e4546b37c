import { describe, expect, it } from "vitest";
import { AvailabilityCache } from "../src/modules/availability/cache.ts";
import { createContextInner, defaultApiLimits } from "../src/context.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import {
  addClosure,
  addHours,
  addMember,
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const monday = "2027-03-15";
const times = (slots: { start_local: string }[]) => slots.map((s) => s.start_local.slice(11));

describe("availability", () => {
  it("yields 16 slots of 30 min and 8 of 60 min in 09:00-17:00", async () => {
    const c = await bookableClinic(t.db);
    const thirty = await addService(t.db, c.clinicId, { durationMin: 30, providerId: c.provider.id });
    const sixty = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const a = await caller.availability.get({ clinic_id: c.clinicId, service_id: thirty, from: monday, to: monday });
    expect(a.slots).toHaveLength(16);
    expect(a).toMatchObject({ timezone: "UTC", duration_min: 30, from: monday, to: monday });
    expect(a.slots[0]).toEqual({
      start: new Date("2027-03-15T09:00:00Z"),
      end: new Date("2027-03-15T09:30:00Z"),
      start_local: "2027-03-15T09:00",
      provider_ids: [c.provider.id],
    });
    const b = await caller.availability.get({ clinic_id: c.clinicId, service_id: sixty, from: monday, to: monday });
    expect(times(b.slots)).toEqual(["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"]);
  });

  it("intersects provider and clinic hours, converting wall-clock in the clinic's zone across DST", async () => {
    const c = await bookableClinic(t.db, { timezone: "Europe/Berlin" });
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    const caller = callerFor(t.db, c.staff, { now: pinnedNow });
    const before = await caller.availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: "2027-03-26",
      to: "2027-03-26",
    });
    const after = await caller.availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: "2027-03-29",
      to: "2027-03-29",
    });
    expect(before.slots[0]?.start.toISOString()).toBe("2027-03-26T08:00:00.000Z");
    expect(after.slots[0]?.start.toISOString()).toBe("2027-03-29T07:00:00.000Z");
    expect(after.slots[0]?.start_local).toBe("2027-03-29T09:00");
  });

  it("unions the schedules of approved providers for an unassigned service, with provider_ids", async () => {
    const c = await bookableClinic(t.db);
    const second = await addMember(t.db, c.clinicId, { isProvider: true, status: "approved", fullName: "Bert" });
    await addHours(t.db, c.clinicId, second.id, [1], "16:00", "18:00");
    const pending = await addMember(t.db, c.clinicId, { isProvider: true, status: "pending" });
    const suspended = await addMember(t.db, c.clinicId, { isProvider: true, status: "suspended" });
    await addHours(t.db, c.clinicId, pending.id, [1], "07:00", "09:00");
    await addHours(t.db, c.clinicId, suspended.id, [1], "07:00", "09:00");
    const service = await addService(t.db, c.clinicId, { durationMin: 60 });
    const result = await callerFor(t.db, c.custom, { now: pinnedNow }).availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: monday,
      to: monday,
    });
    expect(times(result.slots)).toEqual(["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"]);
    expect(result.slots.at(-1)?.provider_ids).toEqual([c.provider.id, second.id].sort());
    expect(result.slots.flatMap((s) => s.provider_ids)).not.toContain(pending.id);
    const onlySecond = await callerFor(t.db, c.custom, { now: pinnedNow }).availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: monday,
      to: monday,
      provider_id: second.id,
    });
    expect(times(onlySecond.slots)).toEqual(["16:00"]);
  });

  it("gives no slots for a suspended or pending assigned provider, a provider without hours, or a closed weekday", async () => {
    const c = await bookableClinic(t.db);
    const noHours = await addMember(t.db, c.clinicId, { isProvider: true, status: "approved" });
    const pending = await addMember(t.db, c.clinicId, { isProvider: true, status: "pending" });
    await addHours(t.db, c.clinicId, pending.id, [1], "09:00", "17:00");
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    for (const providerId of [noHours.id, pending.id]) {
      const service = await addService(t.db, c.clinicId, { providerId });
      expect(
        (await caller.availability.get({ clinic_id: c.clinicId, service_id: service, from: monday, to: monday })).slots,
      ).toEqual([]);
    }
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    // 2027-03-20/21 is a weekend: no clinic hours.
    expect(
      (
        await caller.availability.get({
          clinic_id: c.clinicId,
          service_id: service,
          from: "2027-03-20",
          to: "2027-03-21",
        })
      ).slots,
    ).toEqual([]);
  });

  it("removes slots during clinic and provider closures; they return after", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    await addClosure(t.db, c.clinicId, null, "2027-03-15T00:00:00Z", "2027-03-16T00:00:00Z");
    await addClosure(t.db, c.clinicId, c.provider.id, "2027-03-16T09:00:00Z", "2027-03-16T11:30:00Z");
    const result = await callerFor(t.db, c.custom, { now: pinnedNow }).availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: monday,
      to: "2027-03-16",
    });
    expect(result.slots.map((s) => s.start_local)).toEqual([
      "2027-03-16T12:00",
      "2027-03-16T13:00",
      "2027-03-16T14:00",
      "2027-03-16T15:00",
      "2027-03-16T16:00",
    ]);
  });

  it("answers 404 for a deleted or foreign service, 422 for an inactive one or a wrong provider_id", async () => {
    const c = await bookableClinic(t.db);
    const other = await bookableClinic(t.db);
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const deleted = await addService(t.db, c.clinicId, { deleted: true });
    const inactive = await addService(t.db, c.clinicId, { isActive: false });
    const foreign = await addService(t.db, other.clinicId, {});
    const assigned = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    expect(await codeOf(caller.availability.get({ clinic_id: c.clinicId, service_id: deleted }))).toBe("NOT_FOUND");
    expect(await codeOf(caller.availability.get({ clinic_id: c.clinicId, service_id: foreign }))).toBe("NOT_FOUND");
    expect(await codeOf(caller.availability.get({ clinic_id: c.clinicId, service_id: inactive }))).toBe(
      "SERVICE_INACTIVE",
    );
    expect(
      await codeOf(caller.availability.get({ clinic_id: c.clinicId, service_id: assigned, provider_id: c.staff.id })),
    ).toBe("NOT_A_PROVIDER");
    const unassigned = await addService(t.db, c.clinicId, {});
    expect(
      await codeOf(
        caller.availability.get({ clinic_id: c.clinicId, service_id: unassigned, provider_id: other.admin.id }),
      ),
    ).toBe("NOT_A_PROVIDER");
  });

  it("defaults to a week from today in the clinic's zone and refuses more than 62 dates", async () => {
    const c = await bookableClinic(t.db, { timezone: "Asia/Kolkata" });
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    // 20:00Z on the 14th is already the 15th in Kolkata (+05:30).
    const caller = callerFor(t.db, c.custom, { now: () => new Date("2027-03-14T20:00:00Z") });
    const week = await caller.availability.get({ clinic_id: c.clinicId, service_id: service });
    expect([week.from, week.to]).toEqual(["2027-03-15", "2027-03-21"]);
    expect(
      await codeOf(
        caller.availability.get({ clinic_id: c.clinicId, service_id: service, from: "2027-03-15", to: "2027-05-16" }),
      ),
    ).toBe("VALIDATION_FAILED");
    expect(
      (
        await caller.availability.get({
          clinic_id: c.clinicId,
          service_id: service,
          from: "2027-03-15",
          to: "2027-05-15",
        })
      ).to,
    ).toBe("2027-05-15");
    expect(
      await codeOf(
        caller.availability.get({ clinic_id: c.clinicId, service_id: service, from: "2027-03-15", to: "2027-03-14" }),
      ),
    ).toBe("VALIDATION_FAILED");
  });

  it("never serves a cached answer after a write that changes it", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    const cache = new AvailabilityCache();
    const caller = createCallerFactory(appRouter)(
      createContextInner({ db: t.db, user: c.admin, availabilityCache: cache, now: pinnedNow }),
    );
    const query = { clinic_id: c.clinicId, service_id: service, from: monday, to: monday };
    expect((await caller.availability.get(query)).slots).toHaveLength(8);
    expect(cache.size).toBe(1);
    await caller.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date("2027-03-15T09:00:00Z"),
      patient: { name: "P" },
    });
    expect(times((await caller.availability.get(query)).slots)[0]).toBe("10:00");
  });

  it("refuses an answer of more slots than the limit with 400, and dates past 9999 with 400", async () => {
    const c = await bookableClinic(t.db);
    const oneMinute = await addService(t.db, c.clinicId, { durationMin: 1 });
    const limited = createCallerFactory(appRouter)(
      createContextInner({
        db: t.db,
        user: c.custom,
        now: pinnedNow,
        limits: { ...defaultApiLimits, maxSlotsPerAnswer: 1_000 },
      }),
    );
    // 09:00–17:00 on five weekdays is 2,400 one-minute slots: over the limit; one day (480) is not.
    const refused = await codeOf(
      limited.availability.get({ clinic_id: c.clinicId, service_id: oneMinute, from: monday, to: "2027-03-19" }),
    );
    expect(refused).toBe("VALIDATION_FAILED");
    expect(
      (await limited.availability.get({ clinic_id: c.clinicId, service_id: oneMinute, from: monday, to: monday }))
        .slots,
    ).toHaveLength(480);
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    expect(
      await codeOf(caller.availability.get({ clinic_id: c.clinicId, service_id: oneMinute, from: "9999-12-31" })),
    ).toBe("VALIDATION_FAILED");
    expect(
      await codeOf(caller.availability.get({ clinic_id: c.clinicId, service_id: oneMinute, to: "9999-12-31" })),
    ).toBe("VALIDATION_FAILED");
    expect(
      await codeOf(caller.availability.get({ clinic_id: c.clinicId, service_id: oneMinute, from: "0001-01-01" })),
    ).toBe("VALIDATION_FAILED");
    const last = await caller.availability.get({ clinic_id: c.clinicId, service_id: oneMinute, from: "9999-12-28" });
    expect([last.from, last.to]).toEqual(["9999-12-28", "9999-12-29"]);
  });
});
