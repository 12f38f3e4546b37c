// The appointment's life at the front desk (CONTRACT §13) through the procedures: the transition
// table (every allowed and every refused change), If-Match, holds, confirmation, the no-show limit
// and the patient's own overlap. Races that need real parallel connections are in
// frontDesk.concurrency.test.ts.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type AppointmentStatus, appointmentStatuses, occupyingStatuses, rowsOf } from "@clinic/db";
import { runConfirmationExpiry } from "../src/modules/booking/index.ts";
import {
  addHours,
  addProvider,
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
const MIN = 60_000;
const HOUR = 60 * MIN;
/** A Monday 09:00 UTC, two weeks after the pinned clock. */
const start = new Date("2027-03-15T09:00:00.000Z");
const end = new Date(start.getTime() + 30 * MIN);
const clock = (at: Date | number) => () => new Date(at);

/** A bookable clinic with a 30-minute service of its provider, and callers whose clock is `now`. */
async function desk(options: { requiresConfirmation?: boolean } = {}) {
  const c = await bookableClinic(t.db);
  const service = await addService(t.db, c.clinicId, { name: "Check-up", providerId: c.provider.id, durationMin: 30 });
  if (options.requiresConfirmation)
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, requires_confirmation: true });
  await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true, max_open_bookings_per_patient: 20 });
  const staffAt = (now: Date | number) => callerFor(t.db, c.staff, { now: clock(now) });
  const providerAt = (now: Date | number) => callerFor(t.db, c.provider, { now: clock(now) });
  // Each booking by its own clock (`now`): the booking-write rate limit counts per minute.
  const book = (at: Date = start, now: Date | number = pinnedNow()) =>
    staffAt(now).appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at,
      patient: { name: "Pat Desk" },
    });
  const setStatus = (
    api: ReturnType<typeof staffAt>,
    id: string,
    status: AppointmentStatus,
    extra: { reason?: string; if_match?: Date } = {},
  ) => api.appointments.setStatus({ clinic_id: c.clinicId, id, status, ...extra });
  return { ...c, service, staffAt, providerAt, book, setStatus };
}

describe("statuses (T1)", () => {
  it("are one definition: clinic_occupies in the database is occupyingStatuses here, and a hold occupies until it ends", async () => {
    const rows = rowsOf<{ status: string; occupies: boolean; expired: boolean }>(
      await t.db.execute(sql`
        select s as status, clinic_occupies(s, case when s = 'held' then now() + interval '1 minute' end, now()) as occupies,
               clinic_occupies(s, case when s = 'held' then now() - interval '1 minute' end, now()) as expired
        from unnest(${`{${appointmentStatuses.join(",")}}`}::text[]) as s`),
    );
    for (const row of rows) {
      expect(row.occupies, row.status).toBe((occupyingStatuses as readonly string[]).includes(row.status));
      expect(row.expired, row.status).toBe(row.status !== "held" && row.status !== "canceled");
    }
    expect(rows).toHaveLength(appointmentStatuses.length);
  });

  it("check in, undo, complete: each recorded in status_history and as appointment.status_changed", async () => {
    const d = await desk();
    const booked = await d.book();
    const before = start.getTime() - HOUR;
    const arrived = await d.setStatus(d.staffAt(before), booked.id, "arrived");
    expect(arrived.status).toBe("arrived");
    const undone = await d.setStatus(d.staffAt(before), booked.id, "booked", { reason: "wrong patient" });
    expect(undone.status).toBe("booked");
    await d.setStatus(d.staffAt(before), booked.id, "arrived");
    const completed = await d.setStatus(d.staffAt(start.getTime() + 20 * MIN), booked.id, "completed");
    expect(completed.status_history.map((h) => [h.status, h.reason])).toEqual([
      ["booked", null],
      ["arrived", null],
      ["booked", "wrong patient"],
      ["arrived", null],
      ["completed", null],
    ]);
    expect(completed.status_history[1]).toMatchObject({ by_user_id: d.staff.id, at: new Date(before).toISOString() });
    const events = await d.asAdmin.events.list({ clinic_id: d.clinicId });
    const changes = events.events.filter((e) => e.type === "appointment.status_changed");
    expect(changes.map((e) => [e.data["previous_status"], e.data["status"]])).toEqual([
      ["booked", "arrived"],
      ["arrived", "booked"],
      ["booked", "arrived"],
      ["arrived", "completed"],
    ]);
  });

  it("refuses every change the table does not list, with nothing changed", async () => {
    const d = await desk();
    // Reach each status, then try every other status from it.
    const reach: Record<AppointmentStatus, AppointmentStatus[]> = {
      held: [],
      pending: [],
      booked: [],
      arrived: ["arrived"],
      completed: ["arrived", "completed"],
      no_show: ["no_show"],
      canceled: [],
    };
    const allowed: Record<string, AppointmentStatus[]> = {
      booked: ["arrived", "no_show"],
      arrived: ["booked", "completed"],
      completed: [],
      no_show: ["arrived"],
      canceled: [],
    };
    let slot = 0;
    for (const from of ["booked", "arrived", "completed", "no_show", "canceled"] as const) {
      for (const to of appointmentStatuses) {
        const at = new Date(start.getTime() + 7 * 24 * HOUR * Math.floor(slot / 16) + (slot % 16) * 30 * MIN);
        slot++;
        const booked = await d.book(at, pinnedNow().getTime() + slot * 2 * MIN);
        for (const step of reach[from]) await d.setStatus(d.staffAt(at.getTime() + 10 * MIN), booked.id, step);
        if (from === "canceled") await d.asStaff.appointments.cancel({ clinic_id: d.clinicId, id: booked.id });
        const before = await d.asStaff.appointments.get({ clinic_id: d.clinicId, id: booked.id });
        const change = d.setStatus(d.staffAt(at.getTime() + 10 * MIN), booked.id, to);
        if (allowed[from]?.includes(to)) {
          expect((await change).status, `${from} → ${to}`).toBe(to);
        } else {
          const refusal = await rejectionOf(change);
          expect(refusal.domainCode, `${from} → ${to}`).toBe("INVALID_TRANSITION");
          expect(refusal.extra?.["current_status"]).toBe(from);
          expect(await d.asStaff.appointments.get({ clinic_id: d.clinicId, id: booked.id }), `${from} → ${to}`).toEqual(
            before,
          );
        }
      }
    }
  });

  it("keeps the times of the table: check-in from 24 h before to the end, no-show once started, late arrival before the end", async () => {
    const d = await desk();
    const a = await d.book();
    expect(await codeOf(d.setStatus(d.staffAt(start.getTime() - 25 * HOUR), a.id, "arrived"))).toBe(
      "INVALID_TRANSITION",
    );
    expect(await codeOf(d.setStatus(d.staffAt(end), a.id, "arrived"))).toBe("INVALID_TRANSITION");
    expect(await codeOf(d.setStatus(d.staffAt(start.getTime() - MIN), a.id, "no_show"))).toBe("INVALID_TRANSITION");
    await d.setStatus(d.staffAt(start.getTime() + MIN), a.id, "no_show");
    expect(await codeOf(d.setStatus(d.staffAt(end), a.id, "arrived"))).toBe("INVALID_TRANSITION");
    expect((await d.setStatus(d.staffAt(end.getTime() - MIN), a.id, "arrived")).status).toBe("arrived");
    expect(
      (await d.setStatus(d.staffAt(end.getTime() - 24 * HOUR), (await d.book(new Date(end))).id, "arrived")).status,
    ).toBe("arrived");
  });

  it("lets the appointment's provider and staff change it, nobody else; confirming is staff's", async () => {
    const d = await desk({ requiresConfirmation: true });
    // Providers whose role is not STAFF: the appointment's own, and another.
    const own = await addProvider(t.db, d.clinicId, "Own Therapist", { role: "THERAPIST" });
    const other = await addProvider(t.db, d.clinicId, "Other Therapist", { role: "THERAPIST" });
    await addHours(t.db, d.clinicId, own.id, [1, 2, 3, 4, 5], "09:00", "17:00");
    const ownService = await addService(t.db, d.clinicId, { name: "Own", providerId: own.id, durationMin: 30 });
    const before = start.getTime() - HOUR;
    const a = await d.staffAt(pinnedNow()).appointments.book({
      clinic_id: d.clinicId,
      service_id: ownService,
      start,
      patient: { name: "Pat" },
    });
    const at = (user: typeof own) => callerFor(t.db, user, { now: clock(before) });
    expect(await codeOf(d.setStatus(at(other), a.id, "arrived"))).toBe("FORBIDDEN");
    expect(await codeOf(d.setStatus(at(d.custom), a.id, "arrived"))).toBe("FORBIDDEN");
    expect((await d.setStatus(at(own), a.id, "arrived")).status).toBe("arrived");
    expect((await d.setStatus(at(own), a.id, "booked")).status).toBe("booked");
    expect((await d.setStatus(d.staffAt(before), a.id, "arrived")).status).toBe("arrived");
    // A patient's request waits for the clinic: only staff confirm it.
    const patient = callerFor(t.db, await createUser(t.db), { now: pinnedNow });
    const request = await patient.onlineBooking.book({
      clinic_id: d.clinicId,
      service_id: d.service,
      start: end,
      patient: { name: "Pia Pending" },
    });
    expect(request.status).toBe("pending");
    expect(await codeOf(d.setStatus(at(own), request.id, "booked"))).toBe("FORBIDDEN");
    expect((await d.setStatus(d.staffAt(before), request.id, "booked")).status).toBe("booked");
    // Another clinic's appointment is not found.
    const elsewhere = await desk();
    expect(await codeOf(d.setStatus(d.staffAt(before), (await elsewhere.book()).id, "arrived"))).toBe("NOT_FOUND");
  });

  it("with If-Match: the updated_at the desk saw wins once; a stale one is 409 with the current updated_at", async () => {
    const d = await desk();
    const a = await d.book();
    const before = start.getTime() - HOUR;
    const seen = a.updated_at;
    const first = await d.setStatus(d.staffAt(before), a.id, "arrived", { if_match: seen });
    const second = await rejectionOf(d.setStatus(d.staffAt(before), a.id, "booked", { if_match: seen }));
    expect(second.domainCode).toBe("STALE_UPDATED_AT");
    expect(second.extra?.["current_updated_at"]).toBe(first.updated_at.toISOString());
    expect((await d.asStaff.appointments.get({ clinic_id: d.clinicId, id: a.id })).status).toBe("arrived");
  });

  it("lists: B2 filters by a set of statuses and shows holds only when asked; an unknown status is 400", async () => {
    const d = await desk();
    const a = await d.book();
    const b = await d.book(end);
    await d.setStatus(d.staffAt(start.getTime() - HOUR), a.id, "arrived");
    const hold = await d.staffAt(pinnedNow()).appointments.hold({
      clinic_id: d.clinicId,
      service_id: d.service,
      start: new Date(end.getTime() + 30 * MIN),
    });
    const ids = async (status?: string) =>
      (await d.asStaff.appointments.list({ clinic_id: d.clinicId, ...(status ? { status } : {}) })).appointments.map(
        (x) => x.id,
      );
    expect(await ids()).toEqual([a.id, b.id]);
    expect(await ids("arrived,booked")).toEqual([a.id, b.id]);
    expect(await ids("booked")).toEqual([b.id]);
    expect(await ids("held")).toEqual([hold.id]);
    expect(await codeOf(ids("booked,lost"))).toBe("VALIDATION_FAILED");
  });
});

describe("the desk's search (B2 patient)", () => {
  it("finds by name (accents, case, word order and one typo aside) or by 3+ phone digits, nothing else", async () => {
    const d = await desk();
    const staff = d.staffAt(pinnedNow());
    const book = (k: number, name: string, phone?: string) =>
      staff.appointments.book({
        clinic_id: d.clinicId,
        service_id: d.service,
        start: new Date(start.getTime() + k * 30 * MIN),
        patient: { name, ...(phone ? { phone_e164: phone } : {}) },
      });
    const a = await book(0, "Jürgen Müller", "+4930123456");
    const b = await book(1, "Anna Schmidt", "+4917099887");
    await book(2, "100% Percent_Name");
    const found = async (patient: string) =>
      (await d.asStaff.appointments.list({ clinic_id: d.clinicId, patient })).appointments.map((x) => x.patient.name);
    expect(await found("muller")).toEqual([a.patient.name]);
    expect(await found("MÜLLER jurgen")).toEqual([a.patient.name]);
    expect(await found("Schmitd")).toEqual([b.patient.name]);
    expect(await found("0123")).toEqual([a.patient.name]);
    expect(await found("+49 170 998")).toEqual([b.patient.name]);
    expect(await found("__")).toEqual([]);
    expect(await found("0%")).toEqual(["100% Percent_Name"]);
    expect(await found("Zoe")).toEqual([]);
  });
});

describe("holds (T2–T4)", () => {
  it("keep the slot for hold_minutes, hide it from availability, and become the booking with the same id", async () => {
    const d = await desk();
    await d.asAdmin.clinics.update({ clinic_id: d.clinicId, hold_minutes: 5 });
    const staff = d.staffAt(pinnedNow());
    const hold = await staff.appointments.hold({ clinic_id: d.clinicId, service_id: d.service, start });
    expect(hold).toMatchObject({ status: "held", provider_id: d.provider.id });
    expect(hold.held_until?.getTime()).toBe(pinnedNow().getTime() + 5 * MIN);
    const date = "2027-03-15";
    const starts = async (api = staff) =>
      (await api.availability.get({ clinic_id: d.clinicId, service_id: d.service, from: date, to: date })).slots.map(
        (s) => s.start.toISOString(),
      );
    expect(await starts()).not.toContain(start.toISOString());
    expect(await codeOf(d.book())).toBe("SLOT_UNAVAILABLE");
    const booked = await staff.appointments.book({
      clinic_id: d.clinicId,
      service_id: d.service,
      start,
      hold_id: hold.id,
      patient: { name: "Hal Hold" },
    });
    expect(booked).toMatchObject({ id: hold.id, status: "booked", held_until: null, patient: { name: "Hal Hold" } });
    expect(booked.status_history.map((h) => h.status)).toEqual(["held", "booked"]);
    // Holds record no events; the booking does.
    const events = await d.asAdmin.events.list({ clinic_id: d.clinicId });
    expect(events.events.map((e) => e.type)).toEqual(["appointment.booked"]);
  });

  it("end by themselves: the slot is free again at held_until, without any job, and a booking over it succeeds", async () => {
    const d = await desk();
    const holder = d.staffAt(pinnedNow());
    const hold = await holder.appointments.hold({ clinic_id: d.clinicId, service_id: d.service, start });
    const date = "2027-03-15";
    const later = d.staffAt(pinnedNow().getTime() + 11 * MIN);
    const starts = async (api: ReturnType<typeof d.staffAt>) =>
      (await api.availability.get({ clinic_id: d.clinicId, service_id: d.service, from: date, to: date })).slots.map(
        (s) => s.start.toISOString(),
      );
    expect(await starts(holder)).not.toContain(start.toISOString());
    expect(await starts(later)).toContain(start.toISOString());
    // The holder comes back too late.
    const bookTheHold = () =>
      later.appointments.book({
        clinic_id: d.clinicId,
        service_id: d.service,
        start,
        hold_id: hold.id,
        patient: { name: "Late" },
      });
    const expired = await rejectionOf(bookTheHold());
    expect(expired.domainCode).toBe("HOLD_EXPIRED");
    expect(expired.extra?.["held_until"]).toBe(hold.held_until?.toISOString());
    // Someone else books the time: the expired hold gives way.
    const other = callerFor(t.db, d.admin, { now: clock(pinnedNow().getTime() + 11 * MIN) });
    const booked = await other.appointments.book({
      clinic_id: d.clinicId,
      service_id: d.service,
      start,
      patient: { name: "Next" },
    });
    expect(booked.status).toBe("booked");
    expect(await codeOf(d.asStaff.appointments.get({ clinic_id: d.clinicId, id: hold.id }))).toBe("NOT_FOUND");
    // The holder trying again: the hold is gone, the same 404 as when the write finds it gone.
    const gone = await rejectionOf(bookTheHold());
    expect([gone.domainCode, gone.message]).toEqual(["NOT_FOUND", "hold not found"]);
  });

  it("are the caller's: another's hold cannot be booked (404) or released by a member below STAFF (403), the body must match it (400), at most 3", async () => {
    const d = await desk();
    const staff = d.staffAt(pinnedNow());
    const hold = await staff.appointments.hold({ clinic_id: d.clinicId, service_id: d.service, start });
    const admin = callerFor(t.db, d.custom, { now: pinnedNow });
    const bookIt = (api: ReturnType<typeof d.staffAt>, body: { start?: Date; provider_id?: string } = {}) =>
      api.appointments.book({
        clinic_id: d.clinicId,
        service_id: d.service,
        start: body.start ?? start,
        hold_id: hold.id,
        patient: { name: "X" },
        ...(body.provider_id ? { provider_id: body.provider_id } : {}),
      });
    expect(await codeOf(bookIt(admin))).toBe("NOT_FOUND");
    // Role too low (§2, §13 T4): the hold exists, and this member may not release it.
    expect(await codeOf(admin.appointments.releaseHold({ clinic_id: d.clinicId, id: hold.id }))).toBe("FORBIDDEN");
    expect(await codeOf(admin.appointments.releaseHold({ clinic_id: d.clinicId, id: crypto.randomUUID() }))).toBe(
      "NOT_FOUND",
    );
    expect(await codeOf(bookIt(staff, { start: end }))).toBe("VALIDATION_FAILED");
    const other = await addProvider(t.db, d.clinicId, "Another One");
    expect(await codeOf(bookIt(staff, { provider_id: other.id }))).toBe("VALIDATION_FAILED");
    for (const k of [1, 2])
      await staff.appointments.hold({
        clinic_id: d.clinicId,
        service_id: d.service,
        start: new Date(start.getTime() + k * 30 * MIN),
      });
    const fourth = await rejectionOf(
      staff.appointments.hold({
        clinic_id: d.clinicId,
        service_id: d.service,
        start: new Date(start.getTime() + 2 * HOUR),
      }),
    );
    expect(fourth.domainCode).toBe("BOOKING_LIMIT");
    // Released by its creator: free again, and a fourth hold fits.
    await staff.appointments.releaseHold({ clinic_id: d.clinicId, id: hold.id });
    expect(await codeOf(staff.appointments.releaseHold({ clinic_id: d.clinicId, id: hold.id }))).toBe("NOT_FOUND");
    expect((await d.book()).status).toBe("booked");
    const fourthAgain = await staff.appointments.hold({
      clinic_id: d.clinicId,
      service_id: d.service,
      start: new Date(start.getTime() + 2 * HOUR),
    });
    // Staff may release anyone's hold.
    const agentHold = await admin.appointments.hold({
      clinic_id: d.clinicId,
      service_id: d.service,
      start: new Date(start.getTime() + 3 * HOUR),
    });
    await d.asAdmin.appointments.releaseHold({ clinic_id: d.clinicId, id: agentHold.id });
    expect(fourthAgain.status).toBe("held");
  });

  it("with an Idempotency-Key: a retry answers the same hold; the key with another body is refused", async () => {
    const d = await desk();
    const staff = d.staffAt(pinnedNow());
    const hold = () =>
      staff.appointments.hold({ clinic_id: d.clinicId, service_id: d.service, start, idempotency_key: "hold-1" });
    const first = await hold();
    const again = await hold();
    expect(again).toEqual(first);
    expect(
      await codeOf(
        staff.appointments.hold({
          clinic_id: d.clinicId,
          service_id: d.service,
          start: end,
          idempotency_key: "hold-1",
        }),
      ),
    ).toBe("IDEMPOTENCY_KEY_REUSED");
    const held = await d.asStaff.appointments.list({ clinic_id: d.clinicId, status: "held" });
    expect(held.appointments.map((a) => a.id)).toEqual([first.id]);
  });

  it("apply the rules of a booking: a closed or past start cannot be held", async () => {
    const d = await desk();
    const staff = d.staffAt(pinnedNow());
    const saturday = new Date("2027-03-13T10:00:00.000Z");
    expect(
      await codeOf(staff.appointments.hold({ clinic_id: d.clinicId, service_id: d.service, start: saturday })),
    ).toBe("SLOT_UNAVAILABLE");
    const past = d.staffAt(start.getTime() + HOUR);
    expect(await codeOf(past.appointments.hold({ clinic_id: d.clinicId, service_id: d.service, start }))).toBe(
      "SLOT_UNAVAILABLE",
    );
  });

  it("by a patient (T3) are their own, hidden from their list, and booked with O4", async () => {
    const d = await desk();
    const user = await createUser(t.db);
    const patient = callerFor(t.db, user, { now: pinnedNow });
    const hold = await patient.onlineBooking.hold({ clinic_id: d.clinicId, service_id: d.service, start });
    expect(hold).toMatchObject({ status: "held", patient_user_id: user.id });
    expect((await patient.me.appointments({})).appointments).toEqual([]);
    const booked = await patient.onlineBooking.book({
      clinic_id: d.clinicId,
      service_id: d.service,
      start,
      hold_id: hold.id,
      patient: { name: "Paula Patient" },
    });
    expect(booked).toMatchObject({
      id: hold.id,
      status: "booked",
      patient: { name: "Paula Patient", email: user.email },
    });
    expect((await patient.me.appointments({})).appointments.map((a) => a.id)).toEqual([hold.id]);
  });
});

describe("confirmation, the no-show limit, the patient's overlap", () => {
  it("a patient's request for a service that requires confirmation is pending; staff's booking is booked at once", async () => {
    const d = await desk({ requiresConfirmation: true });
    const patient = callerFor(t.db, await createUser(t.db), { now: pinnedNow });
    const request = await patient.onlineBooking.book({
      clinic_id: d.clinicId,
      service_id: d.service,
      start,
      patient: { name: "Pia" },
    });
    expect(request.status).toBe("pending");
    // Pending occupies the time.
    expect(await codeOf(d.book())).toBe("SLOT_UNAVAILABLE");
    expect((await d.book(end)).status).toBe("booked");
    // Declined: canceled with the reason, and the time is free.
    const declined = await d.setStatus(d.staffAt(pinnedNow()), request.id, "canceled", { reason: "no referral" });
    expect(declined).toMatchObject({ status: "canceled" });
    expect(declined.canceled_at).not.toBeNull();
    expect(declined.status_history.at(-1)).toMatchObject({ status: "canceled", reason: "no referral" });
    expect((await d.book()).status).toBe("booked");
  });

  it("an unconfirmed request expires after 48 hours or at its start, by its job, once", async () => {
    const d = await desk({ requiresConfirmation: true });
    const patient = callerFor(t.db, await createUser(t.db), { now: pinnedNow });
    const request = await patient.onlineBooking.book({
      clinic_id: d.clinicId,
      service_id: d.service,
      start,
      patient: { name: "Pia" },
    });
    const job = { clinicId: d.clinicId, appointmentId: request.id };
    expect(await runConfirmationExpiry(t.db, job, new Date(pinnedNow().getTime() + 47 * HOUR))).toBe(false);
    expect(await runConfirmationExpiry(t.db, job, new Date(pinnedNow().getTime() + 48 * HOUR))).toBe(true);
    expect(await runConfirmationExpiry(t.db, job, new Date(pinnedNow().getTime() + 49 * HOUR))).toBe(false);
    const expired = await d.asStaff.appointments.get({ clinic_id: d.clinicId, id: request.id });
    expect(expired.status).toBe("canceled");
    expect(expired.status_history.at(-1)).toMatchObject({ status: "canceled", reason: "confirmation_expired" });
    // Its job is waiting in the clinic's job queue, due at the earlier of 48 hours and the start.
    const [row] = rowsOf<{ run_at: Date | string }>(
      await t.db.execute(
        sql`select run_at from jobs where clinic_id = ${d.clinicId}::uuid and queue = 'confirmation-expiry'`,
      ),
    );
    expect(new Date(row?.run_at ?? 0).getTime()).toBe(pinnedNow().getTime() + 48 * HOUR);
  });

  it("a patient with no_show_limit no-shows in 365 days is refused online (O4, T3); staff may still book them", async () => {
    const d = await desk();
    await d.asAdmin.clinics.update({ clinic_id: d.clinicId, no_show_limit: 2 });
    const user = await createUser(t.db);
    const patient = callerFor(t.db, user, { now: pinnedNow });
    for (const k of [0, 1]) {
      const at = new Date(start.getTime() + k * HOUR);
      const a = await patient.onlineBooking.book({
        clinic_id: d.clinicId,
        service_id: d.service,
        start: at,
        patient: { name: "N" },
      });
      await d.setStatus(d.staffAt(at.getTime() + MIN), a.id, "no_show");
    }
    const later = new Date(start.getTime() + 24 * HOUR);
    const refused = await rejectionOf(
      patient.onlineBooking.book({
        clinic_id: d.clinicId,
        service_id: d.service,
        start: later,
        patient: { name: "N" },
      }),
    );
    expect(refused.domainCode).toBe("NO_SHOW_LIMIT");
    expect(refused.extra?.["no_show_limit"]).toBe(2);
    expect(
      await codeOf(patient.onlineBooking.hold({ clinic_id: d.clinicId, service_id: d.service, start: later })),
    ).toBe("NO_SHOW_LIMIT");
    const byStaff = await d.staffAt(pinnedNow()).appointments.book({
      clinic_id: d.clinicId,
      service_id: d.service,
      start: later,
      patient: { name: "N" },
      patient_user_id: user.id,
    });
    expect(byStaff.status).toBe("booked");
  });

  it("a patient never holds two overlapping appointments in one clinic: 409 PATIENT_DOUBLE_BOOKED, whoever books", async () => {
    const d = await desk();
    const other = await addProvider(t.db, d.clinicId, "Second Provider");
    await addHours(t.db, d.clinicId, other.id, [1, 2, 3, 4, 5], "09:00", "17:00");
    const otherService = await addService(t.db, d.clinicId, { name: "Other", providerId: other.id, durationMin: 30 });
    const user = await createUser(t.db);
    const patient = callerFor(t.db, user, { now: pinnedNow });
    await patient.onlineBooking.book({ clinic_id: d.clinicId, service_id: d.service, start, patient: { name: "P" } });
    expect(
      await codeOf(
        patient.onlineBooking.book({
          clinic_id: d.clinicId,
          service_id: otherService,
          start,
          patient: { name: "P" },
        }),
      ),
    ).toBe("PATIENT_DOUBLE_BOOKED");
    expect(
      await codeOf(
        d.staffAt(pinnedNow()).appointments.book({
          clinic_id: d.clinicId,
          service_id: otherService,
          start,
          patient: { name: "P" },
          patient_user_id: user.id,
        }),
      ),
    ).toBe("PATIENT_DOUBLE_BOOKED");
    // Back to back is fine.
    const next = await patient.onlineBooking.book({
      clinic_id: d.clinicId,
      service_id: otherService,
      start: end,
      patient: { name: "P" },
    });
    expect(next.status).toBe("booked");
  });
});
