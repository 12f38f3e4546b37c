// Booking rules and calendar exceptions through the procedures: service rules, date overrides
// (D1–D6), reschedule (B5) and the explanation of a start (V2).
import { describe, expect, it } from "vitest";
import {
  addClosure,
  addHours,
  addMember,
  addProvider,
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  pinnedNow,
  rejectionOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const monday = "2027-03-15";
const at = (iso: string) => new Date(iso);
const patient = { name: "Pat Patient" };
const times = (slots: { start_local: string }[]) => slots.map((s) => s.start_local.slice(11));

describe("service booking rules", () => {
  it("are set and changed on services, audited, and shape the slots at once", async () => {
    const c = await bookableClinic(t.db);
    const admin = callerFor(t.db, c.admin, { now: pinnedNow });
    const created = await admin.services.create({
      clinic_id: c.clinicId,
      name: "Check",
      duration_min: 60,
      provider_id: c.provider.id,
      slot_step_min: 30,
      buffer_after_min: 15,
    });
    expect(created).toMatchObject({
      slot_step_min: 30,
      buffer_after_min: 15,
      buffer_before_min: 0,
      min_notice_min: 0,
      booking_horizon_days: null,
    });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const before = await caller.availability.get({
      clinic_id: c.clinicId,
      service_id: created.id,
      from: monday,
      to: monday,
    });
    expect(times(before.slots).slice(0, 3)).toEqual(["09:00", "09:30", "10:00"]);
    expect(times(before.slots).at(-1)).toBe("16:00");
    const updated = await admin.services.update({
      clinic_id: c.clinicId,
      id: created.id,
      slot_step_min: null,
      min_notice_min: 0,
      booking_horizon_days: 30,
    });
    expect(updated).toMatchObject({ slot_step_min: null, booking_horizon_days: 30 });
    const after = await caller.availability.get({
      clinic_id: c.clinicId,
      service_id: created.id,
      from: monday,
      to: monday,
    });
    expect(times(after.slots)).toEqual(["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"]);
    const audit = await admin.audit.list({ clinic_id: c.clinicId, resource_id: created.id });
    expect(audit.entries[0]?.details.changed_fields).toEqual(["slot_step_min", "booking_horizon_days"]);
    expect(audit.entries[1]?.details.changed_fields).toEqual([
      "name",
      "duration_min",
      "provider_id",
      "is_active",
      "buffer_after_min",
      "slot_step_min",
    ]);
  });

  it("refuses values out of range with 400", async () => {
    const c = await bookableClinic(t.db);
    for (const bad of [
      { buffer_before_min: 241 },
      { buffer_after_min: -1 },
      { slot_step_min: 4 },
      { min_notice_min: 525_601 },
      { booking_horizon_days: 0 },
      { booking_horizon_days: 731 },
    ]) {
      expect(
        await codeOf(c.asAdmin.services.create({ clinic_id: c.clinicId, name: "X", duration_min: 30, ...bad })),
      ).toBe("VALIDATION_FAILED");
    }
  });

  it("apply to booking: a start inside the notice or beyond the horizon is 409 SLOT_UNAVAILABLE", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: service,
      min_notice_min: 24 * 60,
      booking_horizon_days: 14,
    });
    const now = () => at("2027-03-15T08:00:00Z");
    const caller = callerFor(t.db, c.custom, { now });
    expect(
      await codeOf(
        caller.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T12:00:00Z"),
          patient,
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    expect(
      await codeOf(
        caller.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-30T09:00:00Z"),
          patient,
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    expect(
      (
        await caller.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-16T09:00:00Z"),
          patient,
        })
      ).status,
    ).toBe("booked");
    const listed = await caller.availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: monday,
      to: "2027-04-05",
    });
    // Notice cuts everything before 2027-03-16 08:00 (clinic opens 09:00; 09:00 is booked); the horizon ends on 03-29.
    expect(listed.slots[0]?.start_local).toBe("2027-03-16T09:30");
    expect(listed.slots.at(-1)?.start_local.slice(0, 10)).toBe("2027-03-29");
  });

  it("see the longest buffers, 4 h on either side, in the check before the write", async () => {
    const c = await bookableClinic(t.db, { hours: { weekdays: [1, 2, 3, 4, 5], opens: "06:00", closes: "22:00" } });
    const plain = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const longBefore = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const longAfter = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: longBefore, buffer_before_min: 240 });
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: longAfter, buffer_after_min: 240 });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const book = (service: string, start: string) =>
      caller.appointments.book({ clinic_id: c.clinicId, service_id: service, start: at(start), patient });
    // Refused by the check of the start, which read the booking in the way ("not an available
    // slot"), not only by the database's constraint at the write ("just booked by someone else").
    const refusedByTheCheck = async (service: string, start: string) => {
      const refusal = await rejectionOf(book(service, start));
      expect(refusal.domainCode).toBe("SLOT_UNAVAILABLE");
      expect(refusal.message).toContain("is not an available slot");
    };
    // A booking 10:00–10:30 keeps a 4-hour lead-in from starting before 14:30.
    await book(plain, "2027-03-15T10:00:00Z");
    await refusedByTheCheck(longBefore, "2027-03-15T14:00:00Z");
    expect((await book(longBefore, "2027-03-15T14:30:00Z")).buffer_before_min).toBe(240);
    // Its own 4-hour clean-up after 16:00–16:30 holds the provider until 20:30.
    await book(longAfter, "2027-03-15T16:00:00Z");
    await refusedByTheCheck(plain, "2027-03-15T20:00:00Z");
    expect((await book(plain, "2027-03-15T20:30:00Z")).status).toBe("booked");
    // A booking at 14:30 with a 4-hour lead-in occupies from 10:30: a clean-up of 4 hours after a
    // 06:30 start runs into it, one after 06:00 does not.
    await book(longBefore, "2027-03-16T14:30:00Z");
    await refusedByTheCheck(longAfter, "2027-03-16T06:30:00Z");
    expect((await book(longAfter, "2027-03-16T06:00:00Z")).status).toBe("booked");
  });

  it("keep the buffers an appointment was booked with, and the database refuses overlapping occupied time", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, buffer_after_min: 30 });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const first = await caller.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    expect(first).toMatchObject({ buffer_before_min: 0, buffer_after_min: 30, rescheduled_at: null });
    // 09:30 is inside the first one's clean-up time.
    expect(
      await codeOf(
        caller.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T09:30:00Z"),
          patient,
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    // Dropping the buffer later does not shorten the booked one's occupied time.
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, buffer_after_min: 0 });
    expect(
      await codeOf(
        caller.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T09:30:00Z"),
          patient,
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    expect(
      (
        await caller.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T10:00:00Z"),
          patient,
        })
      ).buffer_after_min,
    ).toBe(0);
  });
});

describe("date overrides (D1–D6)", () => {
  it("create, replace with if_updated_at, list by date and delete; the slots follow", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 60 });
    const saturday = "2027-03-20";
    await addHours(t.db, c.clinicId, c.provider.id, [6], "08:00", "14:00");
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const slotsOn = async (date: string) =>
      times(
        (await caller.availability.get({ clinic_id: c.clinicId, service_id: service, from: date, to: date })).slots,
      );
    expect(await slotsOn(saturday)).toEqual([]);

    const created = await c.asAdmin.dateOverrides.putClinic({
      clinic_id: c.clinicId,
      date: saturday,
      periods: [{ opens_at: "09:00", closes_at: "12:00" }],
      reason: "Saturday surgery",
    });
    expect(created).toMatchObject({
      scope: "clinic",
      provider_id: null,
      date: saturday,
      periods: [{ opens_at: "09:00", closes_at: "12:00" }],
      reason: "Saturday surgery",
    });
    expect(created.created_at.getTime()).toBe(created.updated_at.getTime());
    expect(await slotsOn(saturday)).toEqual(["09:00", "10:00", "11:00"]);

    // Replacing needs the current stamp.
    const replace = {
      clinic_id: c.clinicId,
      date: saturday,
      periods: [
        { opens_at: "10:00", closes_at: "11:00" },
        { opens_at: "12:00", closes_at: "13:00" },
      ],
    };
    expect(await codeOf(c.asAdmin.dateOverrides.putClinic(replace))).toBe("PRECONDITION_REQUIRED");
    const stale = await rejectionOf(
      c.asAdmin.dateOverrides.putClinic({ ...replace, if_updated_at: at("2020-01-01T00:00:00Z") }),
    );
    expect(stale).toMatchObject({
      domainCode: "STALE_UPDATED_AT",
      extra: { current_updated_at: created.updated_at.toISOString() },
    });
    const replaced = await c.asAdmin.dateOverrides.putClinic({ ...replace, if_updated_at: created.updated_at });
    expect(replaced.id).toBe(created.id);
    expect(replaced.updated_at.getTime()).toBeGreaterThan(created.updated_at.getTime());
    expect(replaced.reason).toBeNull();
    expect(await slotsOn(saturday)).toEqual(["10:00", "12:00"]);

    // A closed day: an override without periods.
    await c.asAdmin.dateOverrides.putClinic({
      clinic_id: c.clinicId,
      date: "2027-03-17",
      periods: [],
      reason: "Inventory",
    });
    expect(await slotsOn("2027-03-17")).toEqual([]);
    const listed = await c.asStaff.dateOverrides.listClinic({
      clinic_id: c.clinicId,
      from: "2027-03-16",
      to: "2027-03-31",
    });
    expect(listed.date_overrides.map((o) => [o.date, o.periods.length])).toEqual([
      ["2027-03-17", 0],
      [saturday, 2],
    ]);
    expect(
      (await c.asStaff.dateOverrides.listClinic({ clinic_id: c.clinicId, to: "2027-03-19" })).date_overrides.map(
        (o) => o.date,
      ),
    ).toEqual(["2027-03-17"]);

    await c.asAdmin.dateOverrides.deleteClinic({ clinic_id: c.clinicId, date: "2027-03-17" });
    expect(await slotsOn("2027-03-17")).toHaveLength(8);
    expect(await codeOf(c.asAdmin.dateOverrides.deleteClinic({ clinic_id: c.clinicId, date: "2027-03-17" }))).toBe(
      "NOT_FOUND",
    );
  });

  it("refuses overlapping periods (409, named as for work hours) and a period closing before it opens (422)", async () => {
    const c = await bookableClinic(t.db);
    const overlap = await rejectionOf(
      c.asAdmin.dateOverrides.putClinic({
        clinic_id: c.clinicId,
        date: monday,
        periods: [
          { opens_at: "09:00", closes_at: "12:00" },
          { opens_at: "11:00", closes_at: "13:00" },
        ],
      }),
    );
    expect(overlap).toMatchObject({
      domainCode: "WORK_HOUR_OVERLAP",
      message: "overlap detected, period 11:00-13:00 overlaps with existing period 09:00-12:00",
    });
    expect(
      await codeOf(
        c.asAdmin.dateOverrides.putClinic({
          clinic_id: c.clinicId,
          date: monday,
          periods: [{ opens_at: "12:00", closes_at: "09:00" }],
        }),
      ),
    ).toBe("INVALID_TIME_RANGE");
    // Touching periods do not overlap.
    const touching = await c.asAdmin.dateOverrides.putClinic({
      clinic_id: c.clinicId,
      date: monday,
      periods: [
        { opens_at: "12:00", closes_at: "13:00" },
        { opens_at: "09:00", closes_at: "12:00" },
      ],
    });
    expect(touching.periods.map((p) => p.opens_at)).toEqual(["09:00", "12:00"]);
  });

  it("follow the roles of work hours: CLINIC_ADMIN for the clinic, the provider for their own, STAFF reads", async () => {
    const c = await bookableClinic(t.db);
    const asProvider = callerFor(t.db, c.provider);
    const body = { clinic_id: c.clinicId, date: monday, periods: [] };
    expect(await codeOf(c.asStaff.dateOverrides.putClinic(body))).toBe("FORBIDDEN");
    expect(await codeOf(c.asCustom.dateOverrides.listClinic({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    const own = await asProvider.dateOverrides.putProvider({ ...body, provider_id: c.provider.id, reason: "Dentist" });
    expect(own).toMatchObject({ scope: "provider", provider_id: c.provider.id });
    expect(await codeOf(c.asStaff.dateOverrides.putProvider({ ...body, provider_id: c.provider.id }))).toBe(
      "FORBIDDEN",
    );
    expect(
      (await c.asStaff.dateOverrides.listProvider({ clinic_id: c.clinicId, provider_id: c.provider.id }))
        .date_overrides,
    ).toHaveLength(1);
    expect(
      await codeOf(c.asCustom.dateOverrides.listProvider({ clinic_id: c.clinicId, provider_id: c.provider.id })),
    ).toBe("FORBIDDEN");
    // Another clinic's provider is not a provider here.
    const other = await bookableClinic(t.db);
    expect(await codeOf(c.asAdmin.dateOverrides.putProvider({ ...body, provider_id: other.provider.id }))).toBe(
      "NOT_A_PROVIDER",
    );
    expect(
      await codeOf(c.asAdmin.dateOverrides.listProvider({ clinic_id: c.clinicId, provider_id: other.provider.id })),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(
        other.asAdmin.dateOverrides.deleteProvider({
          clinic_id: other.clinicId,
          provider_id: c.provider.id,
          date: monday,
        }),
      ),
    ).toBe("NOT_FOUND");
    await asProvider.dateOverrides.deleteProvider({ clinic_id: c.clinicId, provider_id: c.provider.id, date: monday });
  });
});

describe("reschedule (B5)", () => {
  it("moves a booked appointment, frees its old time, and may move by less than its duration", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 60 });
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, slot_step_min: 30 });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const booked = await caller.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    const moved = await caller.appointments.reschedule({
      clinic_id: c.clinicId,
      id: booked.id,
      start: at("2027-03-15T09:30:00Z"),
    });
    expect(moved).toMatchObject({
      id: booked.id,
      start: at("2027-03-15T09:30:00Z"),
      end: at("2027-03-15T10:30:00Z"),
      status: "booked",
      provider_id: c.provider.id,
    });
    expect(moved.rescheduled_at).toBeInstanceOf(Date);
    const slots = times(
      (await caller.availability.get({ clinic_id: c.clinicId, service_id: service, from: monday, to: monday })).slots,
    );
    expect(slots).not.toContain("09:30");
    expect(slots).toContain("10:30");
    // The old 09:00 start is gone for a 60-minute slot only because 09:30 is taken now; a 30-minute service fits.
    const short = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    expect(
      times(
        (await caller.availability.get({ clinic_id: c.clinicId, service_id: short, from: monday, to: monday })).slots,
      ),
    ).toContain("09:00");
  });

  it("changes nothing when the new start is taken or not a slot, refuses canceled ones, and replays with a key", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const a = await caller.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    await caller.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T10:00:00Z"),
      patient,
    });
    expect(
      await codeOf(
        caller.appointments.reschedule({ clinic_id: c.clinicId, id: a.id, start: at("2027-03-15T10:00:00Z") }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    expect(
      await codeOf(
        caller.appointments.reschedule({ clinic_id: c.clinicId, id: a.id, start: at("2027-03-15T10:10:00Z") }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    expect(
      await codeOf(
        caller.appointments.reschedule({ clinic_id: c.clinicId, id: a.id, start: at("2027-03-13T10:00:00Z") }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    expect((await c.asStaff.appointments.get({ clinic_id: c.clinicId, id: a.id })).start).toEqual(
      at("2027-03-15T09:00:00Z"),
    );

    const keyed = { clinic_id: c.clinicId, id: a.id, start: at("2027-03-15T11:00:00Z"), idempotency_key: "move-1" };
    const first = await caller.appointments.reschedule(keyed);
    const again = await caller.appointments.reschedule(keyed);
    expect(again.start).toEqual(first.start);
    expect(again.updated_at).toEqual(first.updated_at);
    expect(await codeOf(caller.appointments.reschedule({ ...keyed, start: at("2027-03-15T12:00:00Z") }))).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );

    await caller.appointments.cancel({ clinic_id: c.clinicId, id: a.id });
    expect(
      await codeOf(
        caller.appointments.reschedule({ clinic_id: c.clinicId, id: a.id, start: at("2027-03-15T13:00:00Z") }),
      ),
    ).toBe("INVALID_TRANSITION");
  });

  it("moves to another candidate provider when named; a custom role moves only its own; another clinic's is 404", async () => {
    const c = await bookableClinic(t.db);
    const ben = await addProvider(t.db, c.clinicId, "Ben Provider");
    await addHours(t.db, c.clinicId, ben.id, [1], "09:00", "17:00");
    const service = await addService(t.db, c.clinicId, { durationMin: 30 });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const booked = await caller.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      provider_id: c.provider.id,
      patient,
    });
    const moved = await caller.appointments.reschedule({
      clinic_id: c.clinicId,
      id: booked.id,
      start: at("2027-03-15T09:00:00Z"),
      provider_id: ben.id,
    });
    expect(moved).toMatchObject({ provider_id: ben.id, provider_name: "Ben Provider" });
    const otherAgent = callerFor(t.db, await addMember(t.db, c.clinicId, { role: "BOOKING_AGENT" }), {
      now: pinnedNow,
    });
    expect(
      await codeOf(
        otherAgent.appointments.reschedule({ clinic_id: c.clinicId, id: booked.id, start: at("2027-03-15T10:00:00Z") }),
      ),
    ).toBe("FORBIDDEN");
    expect(
      (
        await callerFor(t.db, c.staff, { now: pinnedNow }).appointments.reschedule({
          clinic_id: c.clinicId,
          id: booked.id,
          start: at("2027-03-15T10:00:00Z"),
        })
      ).provider_id,
    ).toBe(ben.id);
    const other = await bookableClinic(t.db);
    expect(
      await codeOf(
        callerFor(t.db, other.staff, { now: pinnedNow }).appointments.reschedule({
          clinic_id: other.clinicId,
          id: booked.id,
          start: at("2027-03-15T11:00:00Z"),
        }),
      ),
    ).toBe("NOT_FOUND");
  });
});

describe("why no slot (V2)", () => {
  it("gives each reason code in a constructed situation", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: service,
      buffer_after_min: 15,
      min_notice_min: 60,
      booking_horizon_days: 30,
    });
    await addClosure(t.db, c.clinicId, null, "2027-03-16T12:00:00Z", "2027-03-16T13:00:00Z");
    await addClosure(t.db, c.clinicId, c.provider.id, "2027-03-17T09:00:00Z", "2027-03-17T10:00:00Z");
    await addHours(t.db, c.clinicId, c.provider.id, [6], "09:00", "12:00");
    const now = () => at("2027-03-15T09:00:00Z");
    const staff = callerFor(t.db, c.staff, { now });
    const booked = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-18T10:00:00Z"),
      patient,
    });
    const codes = async (start: string) => {
      const e = await staff.availability.explain({ clinic_id: c.clinicId, service_id: service, start: at(start) });
      return e.providers[0]?.reasons.map((r) => r.code);
    };
    expect(await codes("2027-03-15T08:00:00Z")).toEqual(["IN_PAST", "MIN_NOTICE", "CLINIC_HOURS", "PROVIDER_HOURS"]);
    expect(await codes("2027-03-15T09:30:00Z")).toEqual(["MIN_NOTICE"]);
    expect(await codes("2027-04-15T10:00:00Z")).toEqual(["BEYOND_HORIZON"]);
    expect(await codes("2027-03-20T10:00:00Z")).toEqual(["CLINIC_HOURS"]);
    expect(await codes("2027-03-16T17:30:00Z")).toEqual(["CLINIC_HOURS", "PROVIDER_HOURS"]);
    expect(await codes("2027-03-16T10:10:00Z")).toEqual(["OFF_GRID"]);
    expect(await codes("2027-03-16T12:00:00Z")).toEqual(["CLINIC_CLOSURE"]);
    expect(await codes("2027-03-17T09:00:00Z")).toEqual(["PROVIDER_CLOSURE"]);
    expect(await codes("2027-03-18T10:00:00Z")).toEqual(["BOOKED"]);
    expect(await codes("2027-03-18T10:30:00Z")).toEqual(["BUFFER"]);
    const fine = await staff.availability.explain({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-18T11:00:00Z"),
    });
    expect(fine).toMatchObject({
      bookable: true,
      start: at("2027-03-18T11:00:00Z"),
      end: at("2027-03-18T11:30:00Z"),
      providers: [{ provider_id: c.provider.id, provider_name: "Anna Provider", bookable: true, reasons: [] }],
    });
    // STAFF sees which appointment blocks; a custom role does not.
    const forStaff = await staff.availability.explain({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-18T10:00:00Z"),
    });
    expect(forStaff.providers[0]?.reasons[0]).toMatchObject({
      code: "BOOKED",
      appointment_id: booked.id,
      detail: "booked 10:00–10:30",
    });
    const forAgent = await callerFor(t.db, c.custom, { now }).availability.explain({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-18T10:00:00Z"),
    });
    expect(forAgent.providers[0]?.reasons[0]).not.toHaveProperty("appointment_id");
  });

  it("lists every candidate, approved or not, with details in clinic time", async () => {
    const c = await bookableClinic(t.db, { timezone: "Europe/Berlin" });
    const pending = await addProvider(t.db, c.clinicId, "Paul Pending", { status: "pending" });
    await addHours(t.db, c.clinicId, pending.id, [1], "09:00", "17:00");
    const service = await addService(t.db, c.clinicId, { durationMin: 30 });
    await c.asAdmin.closures.createProvider({
      clinic_id: c.clinicId,
      provider_id: c.provider.id,
      starts_at: at("2027-03-14T23:00:00Z"),
      ends_at: at("2027-03-19T23:00:00Z"),
      reason: "vacation",
    });
    const e = await callerFor(t.db, c.custom, { now: pinnedNow }).availability.explain({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T08:00:00Z"),
    });
    expect(e.bookable).toBe(false);
    expect(e.providers.map((p) => [p.provider_name, p.reasons.map((r) => r.code)]).sort()).toEqual([
      ["Anna Provider", ["PROVIDER_CLOSURE"]],
      ["Paul Pending", ["PROVIDER_NOT_APPROVED"]],
    ]);
    const closure = e.providers.find((p) => p.provider_name === "Anna Provider")?.reasons[0];
    expect(closure?.detail).toBe("closed 2027-03-15 00:00 – 2027-03-20 00:00 (vacation)");
  });

  it("answers 404 for another clinic's service, 422 for an inactive one", async () => {
    const c = await bookableClinic(t.db);
    const other = await bookableClinic(t.db);
    const theirs = await addService(t.db, other.clinicId, {});
    const inactive = await addService(t.db, c.clinicId, { isActive: false });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    expect(
      await codeOf(
        caller.availability.explain({ clinic_id: c.clinicId, service_id: theirs, start: at("2027-03-15T09:00:00Z") }),
      ),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(
        caller.availability.explain({ clinic_id: c.clinicId, service_id: inactive, start: at("2027-03-15T09:00:00Z") }),
      ),
    ).toBe("SERVICE_INACTIVE");
  });
});
