// Patient self-service through the procedures: the booking page (O1–O4), "my appointments"
// (U1–U4), the clinic's settings, and who sees what.
import { describe, expect, it } from "vitest";
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
  rejectionOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const monday = "2027-03-15";
const at = (iso: string) => new Date(iso);

/** A bookable clinic that takes online bookings, with a 30-minute service of its provider. */
async function onlineClinic(
  settings: { patient_cancel_cutoff_min?: number; max_open_bookings_per_patient?: number } = {},
) {
  const c = await bookableClinic(t.db);
  const service = await addService(t.db, c.clinicId, { name: "Check-up", providerId: c.provider.id, durationMin: 30 });
  await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true, ...settings });
  return { ...c, service };
}

const patientOf = async (now: () => Date = pinnedNow) => {
  const user = await createUser(t.db);
  return { user, api: callerFor(t.db, user, { now }) };
};

describe("clinic settings (C1, C4)", () => {
  it("default to no online booking, a day's cutoff and 3 open bookings, and can be changed by a CLINIC_ADMIN", async () => {
    const c = await bookableClinic(t.db);
    const clinic = await c.asStaff.clinics.get({ clinic_id: c.clinicId });
    expect(clinic).toMatchObject({
      online_booking: false,
      patient_cancel_cutoff_min: 1440,
      max_open_bookings_per_patient: 3,
    });
    const updated = await c.asAdmin.clinics.update({
      clinic_id: c.clinicId,
      online_booking: true,
      patient_cancel_cutoff_min: 120,
      max_open_bookings_per_patient: 1,
    });
    expect(updated).toMatchObject({
      online_booking: true,
      patient_cancel_cutoff_min: 120,
      max_open_bookings_per_patient: 1,
    });
    expect(await codeOf(c.asStaff.clinics.update({ clinic_id: c.clinicId, online_booking: false }))).toBe("FORBIDDEN");
    expect(await codeOf(c.asAdmin.clinics.update({ clinic_id: c.clinicId, patient_cancel_cutoff_min: 10_081 }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asAdmin.clinics.update({ clinic_id: c.clinicId, max_open_bookings_per_patient: 0 }))).toBe(
      "VALIDATION_FAILED",
    );
    const admin = callerFor(t.db, await createUser(t.db, { admin: true }));
    expect(
      await admin.clinics.create({ name: "Online", online_booking: true, max_open_bookings_per_patient: 5 }),
    ).toMatchObject({ online_booking: true, max_open_bookings_per_patient: 5 });
  });
});

describe("the booking page (O1–O4)", () => {
  it("lets any signed-in user read the clinic, its services and slots, and book for themselves", async () => {
    const c = await onlineClinic();
    const { user, api } = await patientOf();
    expect(await api.onlineBooking.clinic({ clinic_id: c.clinicId })).toEqual({
      id: c.clinicId,
      name: expect.any(String) as string,
      timezone: "UTC",
      patient_cancel_cutoff_min: 1440,
    });
    const { services } = await api.onlineBooking.services({ clinic_id: c.clinicId });
    expect(services).toEqual([
      {
        id: c.service,
        name: "Check-up",
        duration_min: 30,
        price: null,
        provider_id: c.provider.id,
        provider_name: "Anna Provider",
        questions: [],
      },
    ]);
    const slots = await api.onlineBooking.availability({
      clinic_id: c.clinicId,
      service_id: c.service,
      from: monday,
      to: monday,
    });
    expect(slots.slots).toHaveLength(16);
    const booked = await api.onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Pat Self", phone_e164: "+4915100000000" },
      notes: "first time",
    });
    expect(booked).toMatchObject({
      status: "booked",
      patient: { name: "Pat Self", email: user.email, phone_e164: "+4915100000000" },
      patient_user_id: user.id,
      booked_by_user_id: user.id,
    });
    // The clinic's staff see it as any other booking.
    expect((await c.asStaff.appointments.get({ clinic_id: c.clinicId, id: booked.id })).patient_user_id).toBe(user.id);
    expect(
      (await api.onlineBooking.availability({ clinic_id: c.clinicId, service_id: c.service, from: monday, to: monday }))
        .slots,
    ).toHaveLength(15);
  });

  it("answers 404 for a clinic without online booking, to members too, and for one that does not exist", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const { api } = await patientOf();
    // Thunks: each call starts only when its turn comes, so no rejection waits unhandled.
    const calls = (caller: typeof api) => [
      () => caller.onlineBooking.clinic({ clinic_id: c.clinicId }),
      () => caller.onlineBooking.services({ clinic_id: c.clinicId }),
      () => caller.onlineBooking.availability({ clinic_id: c.clinicId, service_id: service }),
      () =>
        caller.onlineBooking.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T09:00:00Z"),
          patient: { name: "X" },
        }),
    ];
    for (const call of [...calls(api), ...calls(c.asAdmin)]) expect(await codeOf(call())).toBe("NOT_FOUND");
    expect(await codeOf(api.onlineBooking.clinic({ clinic_id: crypto.randomUUID() }))).toBe("NOT_FOUND");
    // A visitor without a token (§15 guests) is told the same: nothing about a clinic that does not book online.
    for (const call of calls(callerFor(t.db, null))) expect(await codeOf(call())).toBe("NOT_FOUND");
  });

  it("refuses a patient who holds the clinic's maximum of upcoming bookings (409 BOOKING_LIMIT); past and canceled ones do not count", async () => {
    const c = await onlineClinic({ max_open_bookings_per_patient: 2 });
    const { api } = await patientOf();
    const book = (time: string) =>
      api.onlineBooking.book({
        clinic_id: c.clinicId,
        service_id: c.service,
        start: at(`2027-03-15T${time}:00Z`),
        patient: { name: "Pat" },
      });
    const first = await book("09:00");
    await book("10:00");
    const refused = await rejectionOf(book("11:00"));
    expect(refused).toMatchObject({ domainCode: "BOOKING_LIMIT", extra: { max_open_bookings: 2 } });
    await api.me.cancel({ id: first.id });
    expect((await book("11:00")).status).toBe("booked");
    // Another clinic's limit is its own.
    const other = await onlineClinic({ max_open_bookings_per_patient: 1 });
    expect(
      (
        await api.onlineBooking.book({
          clinic_id: other.clinicId,
          service_id: other.service,
          start: at("2027-03-15T09:00:00Z"),
          patient: { name: "Pat" },
        })
      ).status,
    ).toBe("booked");
  });

  it("applies every booking rule: a start that is not a slot is 409 SLOT_UNAVAILABLE", async () => {
    const c = await onlineClinic();
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: c.service, min_notice_min: 60 * 24 * 30 });
    const { api } = await patientOf();
    expect(
      await codeOf(
        api.onlineBooking.book({
          clinic_id: c.clinicId,
          service_id: c.service,
          start: at("2027-03-15T09:00:00Z"),
          patient: { name: "Pat" },
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
  });
});

describe("my appointments (U1–U4)", () => {
  it("lists the caller's own appointments of every clinic by start, with filters and pages", async () => {
    const a = await onlineClinic();
    const b = await onlineClinic();
    const { user, api } = await patientOf();
    const inB = await api.onlineBooking.book({
      clinic_id: b.clinicId,
      service_id: b.service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Pat" },
    });
    const inA = await api.onlineBooking.book({
      clinic_id: a.clinicId,
      service_id: a.service,
      start: at("2027-03-16T09:00:00Z"),
      patient: { name: "Pat" },
    });
    // Staff booking for the registered patient: it shows up too.
    const byStaff = await callerFor(t.db, a.staff, { now: pinnedNow }).appointments.book({
      clinic_id: a.clinicId,
      service_id: a.service,
      start: at("2027-03-17T09:00:00Z"),
      patient: { name: "Pat" },
      patient_user_id: user.id,
    });
    // Someone else's appointment never does.
    await (
      await patientOf()
    ).api.onlineBooking.book({
      clinic_id: a.clinicId,
      service_id: a.service,
      start: at("2027-03-15T10:00:00Z"),
      patient: { name: "Other" },
    });
    const all = await api.me.appointments({});
    expect(all.appointments.map((x) => x.id)).toEqual([inB.id, inA.id, byStaff.id]);
    const page1 = await api.me.appointments({ limit: 2 });
    expect(page1.appointments).toHaveLength(2);
    const page2 = await api.me.appointments({ limit: 2, cursor: page1.next_cursor ?? "" });
    expect(page2.appointments.map((x) => x.id)).toEqual([byStaff.id]);
    expect(
      (
        await api.me.appointments({ from: at("2027-03-16T00:00:00Z"), to: at("2027-03-17T00:00:00Z") })
      ).appointments.map((x) => x.id),
    ).toEqual([inA.id]);
    expect((await api.me.appointment({ id: inA.id })).clinic_id).toBe(a.clinicId);
  });

  it("lets a patient cancel and move their own until the cutoff (409 CANCELLATION_CUTOFF after); staff are not bound by it", async () => {
    const c = await onlineClinic({ patient_cancel_cutoff_min: 120 });
    let now = at("2027-03-15T06:00:00Z");
    const { api } = await patientOf(() => now);
    const booked = await api.onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Pat" },
    });
    const moved = await api.me.reschedule({ id: booked.id, start: at("2027-03-15T10:00:00Z") });
    expect(moved).toMatchObject({ id: booked.id, start: at("2027-03-15T10:00:00Z"), provider_id: c.provider.id });
    now = at("2027-03-15T08:30:00Z");
    expect(await codeOf(api.me.cancel({ id: booked.id }))).toBe("CANCELLATION_CUTOFF");
    expect(await codeOf(api.me.reschedule({ id: booked.id, start: at("2027-03-15T15:00:00Z") }))).toBe(
      "CANCELLATION_CUTOFF",
    );
    expect(
      (await callerFor(t.db, c.staff, { now: () => now }).appointments.cancel({ clinic_id: c.clinicId, id: booked.id }))
        .status,
    ).toBe("canceled");
    // Once canceled, cancelling again is harmless; moving is not possible.
    expect((await api.me.cancel({ id: booked.id })).status).toBe("canceled");
    now = at("2027-03-15T06:00:00Z");
    expect(await codeOf(api.me.reschedule({ id: booked.id, start: at("2027-03-15T15:00:00Z") }))).toBe(
      "INVALID_TRANSITION",
    );
  });

  it("answers 404 for another patient's appointment on every route, and shows none of their data", async () => {
    const c = await onlineClinic();
    const a = await patientOf();
    const b = await patientOf();
    const theirs = await b.api.onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Bea Secret", phone_e164: "+4917700000000" },
    });
    for (const call of [
      () => a.api.me.appointment({ id: theirs.id }),
      () => a.api.me.cancel({ id: theirs.id }),
      () => a.api.me.reschedule({ id: theirs.id, start: at("2027-03-15T11:00:00Z") }),
    ]) {
      const error = await rejectionOf(call());
      expect(error.domainCode).toBe("NOT_FOUND");
      expect(JSON.stringify(error)).not.toMatch(/Bea Secret|\+4917700000000/);
    }
    // A member of the clinic, as a patient, sees no more.
    expect(await codeOf(callerFor(t.db, c.staff).me.appointment({ id: theirs.id }))).toBe("NOT_FOUND");
    expect((await a.api.me.appointments({})).appointments).toEqual([]);
    const slots = await a.api.onlineBooking.availability({
      clinic_id: c.clinicId,
      service_id: c.service,
      from: monday,
      to: monday,
    });
    expect(JSON.stringify(slots)).not.toMatch(/Bea Secret|\+4917700000000|@/);
    expect((await b.api.me.appointment({ id: theirs.id })).status).toBe("booked");
  });
});

describe("the per-user limit on booking writes", () => {
  it("answers 429 RATE_LIMITED with the seconds to wait after the limit, per user", async () => {
    const c = await onlineClinic({ max_open_bookings_per_patient: 100 });
    const user = await createUser(t.db);
    const limited = createCallerFactory(appRouter)(
      createContextInner({
        db: t.db,
        user,
        now: pinnedNow,
        limits: { ...defaultApiLimits, bookingWritesPerMinute: 3 },
      }),
    );
    const book = (hour: number) =>
      limited.onlineBooking.book({
        clinic_id: c.clinicId,
        service_id: c.service,
        start: at(`2027-03-15T${String(hour).padStart(2, "0")}:00:00Z`),
        patient: { name: "P" },
      });
    await book(9);
    await book(10);
    // A refused booking counts too: the limit is on writes attempted.
    expect(await codeOf(book(10))).toBe("SLOT_UNAVAILABLE");
    const refused = await rejectionOf(book(11));
    expect(refused.domainCode).toBe("RATE_LIMITED");
    expect(refused.extra?.retry_after_s).toBeGreaterThan(0);
    // Another user is not affected.
    const other = createCallerFactory(appRouter)(
      createContextInner({
        db: t.db,
        user: await createUser(t.db),
        now: pinnedNow,
        limits: { ...defaultApiLimits, bookingWritesPerMinute: 3 },
      }),
    );
    expect(
      (
        await other.onlineBooking.book({
          clinic_id: c.clinicId,
          service_id: c.service,
          start: at("2027-03-15T12:00:00Z"),
          patient: { name: "Q" },
        })
      ).status,
    ).toBe("booked");
  });
});
