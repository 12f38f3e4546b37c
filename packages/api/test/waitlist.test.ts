// The waitlist (CONTRACT §15 WL1–WL4, docs/waitlist.md) through the procedures and the matcher,
// declining an offer (L5's helper), booking one, and the next free time. Races between matchers in
// several processes are in waitlist.concurrency.test.ts.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointments, clinics, services, waitlistEntries } from "@clinic/db";
import { AvailabilityCache } from "../src/modules/availability/index.ts";
import type { CachedAvailability } from "../src/modules/availability/cache.ts";
import { bookAppointment } from "../src/modules/booking/index.ts";
import { JobWorkers } from "../src/modules/jobs/index.ts";
import { declineOffer, liveOfferOf, matchWaitlist, sweepWaitlists } from "../src/modules/waitlist/index.ts";
import {
  addClosure,
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
const clock = (at: Date | number) => () => new Date(at);
/** Monday 2027-03-08 09:00 UTC, a week after the pinned clock (Monday 2027-03-01 00:00 UTC). */
const monday9 = new Date("2027-03-08T09:00:00.000Z");

/** An online-booking clinic (UTC, Mon–Fri 09:00–17:00) with a 30-minute service of its provider, a patient and callers. */
async function waitClinic(options: { timezone?: string } = {}) {
  const c = await bookableClinic(t.db, options.timezone ? { timezone: options.timezone } : {});
  const service = await addService(t.db, c.clinicId, { name: "Check-up", providerId: c.provider.id, durationMin: 30 });
  await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true, max_open_bookings_per_patient: 20 });
  const patient = await createUser(t.db);
  const other = await createUser(t.db);
  const at = (now: Date | number = pinnedNow()) => ({
    patient: callerFor(t.db, patient, { now: clock(now) }),
    other: callerFor(t.db, other, { now: clock(now) }),
    staff: callerFor(t.db, c.staff, { now: clock(now) }),
  });
  const match = (now: Date | number) => matchWaitlist(t.db, new AvailabilityCache(), c.clinicId, new Date(now));
  const entries = async () =>
    (await c.asStaff.waitlist.list({ clinic_id: c.clinicId, limit: 100 })).entries.map((e) => ({
      status: e.status,
      name: e.patient.name,
      offer: e.offer?.appointment_id ?? null,
    }));
  const entryRow = async (id: string) => {
    const [row] = await t.db
      .select()
      .from(waitlistEntries)
      .where(and(eq(waitlistEntries.clinicId, c.clinicId), eq(waitlistEntries.id, id)));
    if (!row) throw new Error("no entry");
    return row;
  };
  const appointment = async (id: string) => {
    const [row] = await t.db
      .select()
      .from(appointments)
      .where(and(eq(appointments.clinicId, c.clinicId), eq(appointments.id, id)));
    return row;
  };
  /** A staff entry for `name` wanting Monday 2027-03-08 09:00–09:30 only (one slot). */
  const wantMonday9 = (name: string, extra: Record<string, unknown> = {}) =>
    at().staff.waitlist.add({
      clinic_id: c.clinicId,
      service_id: service,
      from_date: "2027-03-08",
      to_date: "2027-03-08",
      earliest: "09:00",
      latest: "09:30",
      patient: { name, email: `${name.toLowerCase()}@test.example` },
      ...extra,
    });
  const bookMonday9 = () =>
    at().staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: monday9,
      patient: { name: "Taken" },
    });
  return { ...c, service, patient, other, at, match, entries, entryRow, appointment, wantMonday9, bookMonday9 };
}

describe("joining the waitlist (WL1, WL4) and its lists (WL2, WL3)", () => {
  it("WL1: a patient joins with the token's e-mail; the entry has the contract's shape", async () => {
    const w = await waitClinic();
    const entry = await w.at().patient.waitlist.join({
      clinic_id: w.clinicId,
      service_id: w.service,
      from_date: "2027-03-02",
      to_date: "2027-03-20",
      weekdays: [5, 2, 2],
      earliest: "08:00",
      latest: "12:30",
      patient: { name: "Pat Wait", phone_e164: "+4930123456" },
    });
    expect(entry).toEqual({
      id: expect.any(String) as string,
      clinic_id: w.clinicId,
      service_id: w.service,
      provider_id: null,
      from_date: "2027-03-02",
      to_date: "2027-03-20",
      weekdays: [2, 5],
      earliest: "08:00",
      latest: "12:30",
      patient: { name: "Pat Wait", email: w.patient.email, phone_e164: "+4930123456" },
      status: "waiting",
      offer: null,
      created_at: expect.any(Date) as Date,
    });
    const defaults = await w.at().patient.waitlist.join({
      clinic_id: w.clinicId,
      service_id: w.service,
      from_date: "2027-03-01",
      to_date: "2027-03-01",
    });
    expect([defaults.weekdays, defaults.earliest, defaults.latest]).toEqual([[1, 2, 3, 4, 5, 6, 7], null, null]);
  });

  it("WL1 on a clinic without online booking is 404, and needs authentication", async () => {
    const w = await waitClinic();
    await w.asAdmin.clinics.update({ clinic_id: w.clinicId, online_booking: false });
    const wish = { clinic_id: w.clinicId, service_id: w.service, from_date: "2027-03-02", to_date: "2027-03-03" };
    expect(await codeOf(w.at().patient.waitlist.join(wish))).toBe("NOT_FOUND");
    expect(await codeOf(callerFor(t.db, null).waitlist.join(wish))).toBe("UNAUTHENTICATED");
  });

  it("refuses bad wishes with 400 (404 for an unknown service or provider) and writes nothing", async () => {
    const w = await waitClinic();
    const horizon = await addService(t.db, w.clinicId, { name: "Near", providerId: w.provider.id });
    await t.db
      .update(services)
      .set({ bookingHorizonDays: 10 })
      .where(and(eq(services.clinicId, w.clinicId), eq(services.id, horizon)));
    const base = { clinic_id: w.clinicId, service_id: w.service, from_date: "2027-03-02", to_date: "2027-03-05" };
    const join = (change: Record<string, unknown>) => codeOf(w.at().patient.waitlist.join({ ...base, ...change }));
    const add = (change: Record<string, unknown>) =>
      codeOf(w.at().staff.waitlist.add({ ...base, patient: { name: "X", email: "x@test.example" }, ...change }));
    expect(await join({ from_date: "2027-02-28" })).toBe("VALIDATION_FAILED"); // before today
    expect(await join({ to_date: "2027-03-01" })).toBe("VALIDATION_FAILED"); // to < from
    expect(await join({ to_date: "2028-03-02" })).toBe("VALIDATION_FAILED"); // past 366 days
    expect(await join({ service_id: horizon, to_date: "2027-03-12" })).toBe("VALIDATION_FAILED"); // past the horizon
    expect(await join({ earliest: "10:00", latest: "10:00" })).toBe("VALIDATION_FAILED");
    expect(await join({ earliest: "10:00", latest: "09:00" })).toBe("VALIDATION_FAILED");
    expect(await join({ weekdays: [0] })).toBe("VALIDATION_FAILED");
    expect(await join({ weekdays: [8] })).toBe("VALIDATION_FAILED");
    expect(await join({ weekdays: [] })).toBe("VALIDATION_FAILED");
    expect(await join({ earliest: "9:00" })).toBe("VALIDATION_FAILED");
    expect(await join({ from_date: "2027-02-30" })).toBe("VALIDATION_FAILED");
    expect(await add({ patient: { name: "X", email: "not-an-email" } })).toBe("VALIDATION_FAILED");
    expect(await add({ patient: { name: "X" } })).toBe("VALIDATION_FAILED"); // neither user nor e-mail
    expect(await add({ patient: undefined })).toBe("VALIDATION_FAILED");
    expect(await join({ service_id: crypto.randomUUID() })).toBe("NOT_FOUND");
    expect(await add({ provider_id: crypto.randomUUID() })).toBe("NOT_FOUND");
    expect(await add({ patient_user_id: crypto.randomUUID(), patient: undefined })).toBe("NOT_FOUND");
    const stranger = await addProvider(t.db, w.clinicId, "Other Provider");
    expect(await add({ provider_id: stranger.id })).toBe("NOT_A_PROVIDER");
    expect(await w.entries()).toEqual([]);
    // The same wish, valid, is written.
    expect((await w.at().patient.waitlist.join(base)).status).toBe("waiting");
    expect(await w.entries()).toHaveLength(1);
  });

  it("WL4: staff add a registered patient (their e-mail) or a name with an e-mail; STAFF only", async () => {
    const w = await waitClinic();
    const registered = await w.at().staff.waitlist.add({
      clinic_id: w.clinicId,
      service_id: w.service,
      provider_id: w.provider.id,
      from_date: "2027-03-02",
      to_date: "2027-03-05",
      patient_user_id: w.patient.id,
    });
    expect(registered.patient.email).toBe(w.patient.email);
    expect(registered.provider_id).toBe(w.provider.id);
    // The registered patient sees it as theirs.
    expect((await w.at().patient.waitlist.mine({ limit: 10 })).entries.map((e) => e.id)).toEqual([registered.id]);
    const named = await w.at().staff.waitlist.add({
      clinic_id: w.clinicId,
      service_id: w.service,
      from_date: "2027-03-02",
      to_date: "2027-03-05",
      patient: { name: "Walk In", email: "walk.in@test.example" },
    });
    expect(named.patient).toEqual({ name: "Walk In", email: "walk.in@test.example", phone_e164: null });
    const outsider = callerFor(t.db, w.patient);
    expect(
      await codeOf(
        outsider.waitlist.add({
          clinic_id: w.clinicId,
          service_id: w.service,
          from_date: "2027-03-02",
          to_date: "2027-03-05",
          patient: { name: "X", email: "x@test.example" },
        }),
      ),
    ).toBe("FORBIDDEN");
    expect(await codeOf(outsider.waitlist.list({ clinic_id: w.clinicId, limit: 10 }))).toBe("FORBIDDEN");
  });

  it("WL2: a patient sees and leaves only their own entries; another's is 404 and stays", async () => {
    const w = await waitClinic();
    const wish = { clinic_id: w.clinicId, service_id: w.service, from_date: "2027-03-02", to_date: "2027-03-05" };
    const mine = await w.at().patient.waitlist.join(wish);
    const theirs = await w.at().other.waitlist.join(wish);
    expect((await w.at().patient.waitlist.mine({ limit: 10 })).entries.map((e) => e.id)).toEqual([mine.id]);
    expect((await w.at().other.waitlist.mine({ limit: 10 })).entries.map((e) => e.id)).toEqual([theirs.id]);
    expect(await codeOf(w.at().patient.waitlist.leave({ id: theirs.id }))).toBe("NOT_FOUND");
    expect((await w.entryRow(theirs.id)).status).toBe("waiting");
    await w.at().patient.waitlist.leave({ id: mine.id });
    expect((await w.entryRow(mine.id)).status).toBe("canceled");
    await w.at().patient.waitlist.leave({ id: mine.id }); // again: nothing more to do
    expect((await w.at().patient.waitlist.mine({ limit: 10 })).entries.map((e) => e.status)).toEqual(["canceled"]);
  });

  it("WL3: by created_at, filtered by service and status, page by page", async () => {
    const w = await waitClinic();
    const second = await addService(t.db, w.clinicId, { name: "Second", providerId: w.provider.id });
    const made: string[] = [];
    for (const [i, service] of [w.service, second, w.service, w.service].entries()) {
      const entry = await w.at().staff.waitlist.add({
        clinic_id: w.clinicId,
        service_id: service,
        from_date: "2027-03-02",
        to_date: "2027-03-05",
        patient: { name: `P${i}`, email: `p${i}@test.example` },
      });
      made.push(entry.id);
    }
    const list = (q: Record<string, unknown>) => w.asStaff.waitlist.list({ clinic_id: w.clinicId, limit: 100, ...q });
    expect((await list({})).entries.map((e) => e.id)).toEqual(made);
    expect((await list({ service_id: second })).entries.map((e) => e.id)).toEqual([made[1]]);
    const first = await list({ limit: 3 });
    expect(first.entries.map((e) => e.id)).toEqual(made.slice(0, 3));
    const rest = await list({ limit: 3, cursor: first.next_cursor });
    expect([rest.entries.map((e) => e.id), rest.next_cursor]).toEqual([made.slice(3), null]);
    expect(await codeOf(list({ cursor: "nonsense" }))).toBe("VALIDATION_FAILED");
    expect(await codeOf(list({ status: "sleeping" }))).toBe("VALIDATION_FAILED");
    await t.db
      .update(waitlistEntries)
      .set({ status: "canceled" })
      .where(and(eq(waitlistEntries.clinicId, w.clinicId), eq(waitlistEntries.id, made[2] ?? "")));
    expect((await list({ status: "canceled" })).entries.map((e) => e.id)).toEqual([made[2]]);
    expect((await list({ status: "waiting,canceled" })).entries).toHaveLength(4);
  });
});

describe("the matcher", () => {
  it("offers a freed slot to the oldest entry it fits, as a hold of offer_minutes, with waitlist.offered", async () => {
    const w = await waitClinic();
    await w.asAdmin.clinics.update({ clinic_id: w.clinicId, offer_minutes: 45 });
    const taken = await w.bookMonday9();
    const first = await w.wantMonday9("First");
    const second = await w.wantMonday9("Second");
    const now = pinnedNow().getTime();
    expect(await w.match(now)).toEqual({ expired: 0, returned: 0, offered: 0 });
    await w.asStaff.appointments.cancel({ clinic_id: w.clinicId, id: taken.id });
    expect((await w.match(now)).offered).toBe(1);
    const offered = await w.entryRow(first.id);
    expect(offered.status).toBe("offered");
    expect(offered.offerExpiresAt?.toISOString()).toBe(new Date(now + 45 * MIN).toISOString());
    expect((await w.entryRow(second.id)).status).toBe("waiting");
    const hold = await w.appointment(offered.offerAppointmentId ?? "");
    expect(hold).toMatchObject({
      status: "held",
      startsAt: monday9,
      patientName: "First",
      patientEmail: "first@test.example",
    });
    const view = (await w.asStaff.waitlist.list({ clinic_id: w.clinicId, limit: 10 })).entries[0];
    expect(view?.offer).toEqual({ appointment_id: hold?.id, expires_at: new Date(now + 45 * MIN) });
    const events = (await w.asAdmin.events.list({ clinic_id: w.clinicId })).events.filter(
      (e) => e.type === "waitlist.offered",
    );
    expect(events.map((e) => e.data["entry_id"])).toEqual([first.id]);
    // The slot is the hold's now: nothing more is offered, however often the matcher runs.
    expect((await w.match(now + MIN)).offered).toBe(0);
    expect(await w.entries()).toEqual([
      { status: "offered", name: "First", offer: hold?.id },
      { status: "waiting", name: "Second", offer: null },
    ]);
  });

  it("a slot freed while a run goes on goes to the oldest entry it fits, not to the younger one that found it", async () => {
    // The run's first search still sees the slot taken (it read before the cancellation committed),
    // the second entry's search sees it free: a stale cache answer once plays the earlier read.
    class FirstReadBeforeCancel extends AvailabilityCache {
      private readonly before = new Map<string, CachedAvailability>();
      replay = false;
      override get(key: string, versionKey: string, nowMs: number): CachedAvailability | undefined {
        const old = this.replay ? this.before.get(key) : undefined;
        if (old) {
          this.replay = false;
          return old;
        }
        return super.get(key, versionKey, nowMs);
      }
      override set(key: string, versionKey: string, value: CachedAvailability): void {
        if (!this.replay && !this.before.has(key)) this.before.set(key, value);
        super.set(key, versionKey, value);
      }
    }
    const w = await waitClinic();
    const taken = await w.bookMonday9();
    const first = await w.wantMonday9("First");
    const second = await w.wantMonday9("Second");
    const now = pinnedNow();
    const cache = new FirstReadBeforeCancel();
    expect((await matchWaitlist(t.db, cache, w.clinicId, now)).offered).toBe(0);
    await w.asStaff.appointments.cancel({ clinic_id: w.clinicId, id: taken.id });
    cache.replay = true;
    expect((await matchWaitlist(t.db, cache, w.clinicId, now)).offered).toBe(1);
    expect((await w.entryRow(first.id)).status).toBe("offered");
    expect((await w.entryRow(second.id)).status).toBe("waiting");
  });

  it("an offer that expires goes to the next entry; the first is not offered that start again", async () => {
    const w = await waitClinic();
    const first = await w.wantMonday9("First");
    const second = await w.wantMonday9("Second");
    const now = pinnedNow().getTime();
    await w.match(now);
    const firstHold = (await w.entryRow(first.id)).offerAppointmentId;
    // Still within the offer: nothing moves.
    expect(await w.match(now + 29 * MIN)).toEqual({ expired: 0, returned: 0, offered: 0 });
    expect(await w.match(now + 31 * MIN)).toEqual({ expired: 0, returned: 1, offered: 1 });
    const back = await w.entryRow(first.id);
    expect([back.status, back.passed, back.offerAppointmentId]).toEqual(["waiting", [monday9.toISOString()], null]);
    const next = await w.entryRow(second.id);
    expect(next.status).toBe("offered");
    expect(next.offerAppointmentId).not.toBe(firstHold);
    expect((await w.appointment(next.offerAppointmentId ?? ""))?.startsAt).toEqual(monday9);
    // Second lets it expire too: nobody is left for 09:00.
    expect(await w.match(now + 62 * MIN)).toEqual({ expired: 0, returned: 1, offered: 0 });
    expect(await w.entries()).toEqual([
      { status: "waiting", name: "First", offer: null },
      { status: "waiting", name: "Second", offer: null },
    ]);
  });

  it("declining an offer (L5) frees it for the next entry; a second decline is 409", async () => {
    const w = await waitClinic();
    const first = await w.wantMonday9("First");
    const second = await w.wantMonday9("Second");
    const now = pinnedNow().getTime();
    await w.match(now);
    const hold = (await w.entryRow(first.id)).offerAppointmentId ?? "";
    expect(await liveOfferOf(t.db, w.clinicId, hold, new Date(now + MIN))).toEqual({
      entryId: first.id,
      expiresAt: new Date(now + 30 * MIN),
    });
    expect(await liveOfferOf(t.db, w.clinicId, hold, new Date(now + 30 * MIN))).toBeNull();
    await declineOffer(t.db, w.clinicId, hold, new Date(now + MIN));
    expect(await liveOfferOf(t.db, w.clinicId, hold, new Date(now + MIN))).toBeNull();
    expect(await w.appointment(hold)).toBeUndefined();
    expect((await w.entryRow(first.id)).passed).toEqual([monday9.toISOString()]);
    expect((await rejectionOf(declineOffer(t.db, w.clinicId, hold, new Date(now + MIN)))).domainCode).toBe("CONFLICT");
    expect(await w.match(now + 2 * MIN)).toEqual({ expired: 0, returned: 0, offered: 1 });
    expect((await w.entryRow(second.id)).status).toBe("offered");
    // Not a waitlist offer at all: an ordinary booking.
    const booked = await w.at().staff.appointments.book({
      clinic_id: w.clinicId,
      service_id: w.service,
      start: new Date(monday9.getTime() + 60 * MIN),
      patient: { name: "Ordinary" },
    });
    expect(await codeOf(declineOffer(t.db, w.clinicId, booked.id, new Date(now + MIN)))).toBe("CONFLICT");
    // Another clinic's id of the offer is not found there.
    const elsewhere = await waitClinic();
    const secondHold = (await w.entryRow(second.id)).offerAppointmentId ?? "";
    expect(await codeOf(declineOffer(t.db, elsewhere.clinicId, secondHold, new Date(now + MIN)))).toBe("CONFLICT");
    expect((await w.entryRow(second.id)).status).toBe("offered");
  });

  it("an offer whose hold the desk released (T4) goes to the next entry; the start is taken from its event", async () => {
    const w = await waitClinic();
    const first = await w.wantMonday9("First");
    const second = await w.wantMonday9("Second");
    const now = pinnedNow().getTime();
    await w.match(now);
    const hold = (await w.entryRow(first.id)).offerAppointmentId ?? "";
    await w.at(now + MIN).staff.appointments.releaseHold({ clinic_id: w.clinicId, id: hold });
    expect(await w.appointment(hold)).toBeUndefined();
    expect(await w.match(now + 2 * MIN)).toEqual({ expired: 0, returned: 1, offered: 1 });
    expect((await w.entryRow(first.id)).passed).toEqual([monday9.toISOString()]);
    expect((await w.entryRow(second.id)).status).toBe("offered");
  });

  it("booking the offer (L2's call) books the entry; a second accept and a decline are refused", async () => {
    const w = await waitClinic();
    const first = await w.wantMonday9("First");
    const now = pinnedNow().getTime();
    await w.match(now);
    const hold = (await w.entryRow(first.id)).offerAppointmentId ?? "";
    const accept = () =>
      bookAppointment(
        t.db,
        {
          clinicId: w.clinicId,
          timeZone: "UTC",
          userId: null,
          serviceId: w.service,
          start: monday9,
          holdId: hold,
          patient: { name: "First", email: "first@test.example" },
        },
        new Date(now + 5 * MIN),
      );
    const { appointment } = await accept();
    expect([appointment.id, appointment.status]).toEqual([hold, "booked"]);
    expect((await w.entryRow(first.id)).status).toBe("booked");
    expect(await codeOf(accept())).toBe("NOT_FOUND");
    expect(await codeOf(declineOffer(t.db, w.clinicId, hold, new Date(now + 6 * MIN)))).toBe("CONFLICT");
    // A booked entry is not offered anything again, and stays booked when its hold time passes.
    expect(await w.match(now + 60 * MIN)).toEqual({ expired: 0, returned: 0, offered: 0 });
    expect((await w.entryRow(first.id)).status).toBe("booked");
  });

  it("an offer past its time cannot be accepted: HOLD_EXPIRED, and NOT_FOUND once the matcher took it back", async () => {
    const w = await waitClinic();
    const first = await w.wantMonday9("First");
    await w.match(pinnedNow());
    const hold = (await w.entryRow(first.id)).offerAppointmentId ?? "";
    const late = () =>
      bookAppointment(
        t.db,
        {
          clinicId: w.clinicId,
          timeZone: "UTC",
          userId: null,
          serviceId: w.service,
          start: monday9,
          holdId: hold,
          patient: { name: "First" },
        },
        new Date(pinnedNow().getTime() + 31 * MIN),
      );
    expect(await codeOf(late())).toBe("HOLD_EXPIRED");
    await w.match(pinnedNow().getTime() + 31 * MIN);
    expect(await w.appointment(hold)).toBeUndefined();
    expect(await codeOf(late())).toBe("NOT_FOUND");
    expect((await w.entryRow(first.id)).status).toBe("waiting");
  });

  it("respects weekdays, the time window and the provider of an entry", async () => {
    const w = await waitClinic();
    const bea = await addProvider(t.db, w.clinicId, "Bea Provider");
    await addHours(t.db, w.clinicId, bea.id, [1, 2, 3, 4, 5], "09:00", "17:00");
    const anyone = await addService(t.db, w.clinicId, { name: "Any", durationMin: 30 });
    // Anna is closed on Wednesday afternoon; the entry wants Bea anyway.
    await addClosure(t.db, w.clinicId, w.provider.id, "2027-03-03T12:00:00Z", "2027-03-03T18:00:00Z");
    const entry = await w.at().staff.waitlist.add({
      clinic_id: w.clinicId,
      service_id: anyone,
      provider_id: bea.id,
      from_date: "2027-03-01",
      to_date: "2027-03-12",
      weekdays: [3],
      earliest: "14:00",
      latest: "15:00",
      patient: { name: "Picky", email: "picky@test.example" },
    });
    await w.match(pinnedNow());
    const row = await w.entryRow(entry.id);
    const hold = await w.appointment(row.offerAppointmentId ?? "");
    expect([hold?.startsAt.toISOString(), hold?.providerId]).toEqual(["2027-03-03T14:00:00.000Z", bea.id]);
    // Declined: the next that fits is 14:30 the same day (ending 15:00), then the next Wednesday.
    await declineOffer(t.db, w.clinicId, hold?.id ?? "", pinnedNow());
    await w.match(pinnedNow());
    const again = await w.entryRow(entry.id);
    expect((await w.appointment(again.offerAppointmentId ?? ""))?.startsAt.toISOString()).toBe(
      "2027-03-03T14:30:00.000Z",
    );
    await declineOffer(t.db, w.clinicId, again.offerAppointmentId ?? "", pinnedNow());
    await w.match(pinnedNow());
    const third = await w.entryRow(entry.id);
    expect((await w.appointment(third.offerAppointmentId ?? ""))?.startsAt.toISOString()).toBe(
      "2027-03-10T14:00:00.000Z",
    );
    expect(third.passed).toEqual(["2027-03-03T14:00:00.000Z", "2027-03-03T14:30:00.000Z"]);
  });

  it("entries whose to_date has passed (clinic-local) expire; the sweep covers every clinic with entries", async () => {
    const w = await waitClinic({ timezone: "Pacific/Auckland" });
    // Sundays only: the clinic is closed then, so it is never offered anything.
    const entry = await w.at().staff.waitlist.add({
      clinic_id: w.clinicId,
      service_id: w.service,
      from_date: "2027-03-02",
      to_date: "2027-03-07",
      weekdays: [7],
      patient: { name: "Late", email: "late@test.example" },
    });
    // 2027-03-07T10:00Z is already 2027-03-07 23:00 in Auckland: still its last day.
    expect((await w.match(new Date("2027-03-07T10:00:00Z"))).expired).toBe(0);
    // 11:00Z is 2027-03-08 00:00 there.
    const outcome = await sweepWaitlists(t.db, new AvailabilityCache(), new Date("2027-03-07T11:00:00Z"));
    expect(outcome.expired).toBeGreaterThanOrEqual(1);
    expect((await w.entryRow(entry.id)).status).toBe("expired");
  });

  it("leaving the waitlist with an open offer releases its hold", async () => {
    const w = await waitClinic();
    const entry = await w.wantMonday9("Mine", { patient_user_id: w.patient.id, patient: undefined });
    await w.match(pinnedNow());
    const hold = (await w.entryRow(entry.id)).offerAppointmentId ?? "";
    expect((await w.appointment(hold))?.status).toBe("held");
    await w.at().patient.waitlist.leave({ id: entry.id });
    expect(await w.appointment(hold)).toBeUndefined();
    expect((await w.entryRow(entry.id)).status).toBe("canceled");
    // The slot is free again for anyone.
    expect((await w.bookMonday9()).status).toBe("booked");
  });
});

describe("the workers' waitlist loop", () => {
  it("runs its task every interval, one run at a time, reports a failing run and goes on, and ends with stop()", async () => {
    const errors: string[] = [];
    const workers = new JobWorkers(t.handle, { onError: (error) => errors.push(error.message) });
    let runs = 0;
    let running = 0;
    let overlapped = false;
    workers.runEvery(10, async () => {
      runs++;
      running++;
      if (running > 1) overlapped = true;
      await sweepWaitlists(t.db, new AvailabilityCache(), pinnedNow());
      running--;
      if (runs === 2) throw new Error("a failing run");
    });
    for (let waited = 0; runs < 4 && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    await workers.stop();
    const stoppedAt = runs;
    await new Promise((r) => setTimeout(r, 50));
    expect(runs).toBe(stoppedAt);
    expect(stoppedAt).toBeGreaterThanOrEqual(4);
    expect([overlapped, errors]).toEqual([false, ["a failing run"]]);
  });
});

describe("next free time", () => {
  it("answers the first free slots after an instant, `count` of them, staff and online", async () => {
    const w = await waitClinic();
    const taken = await w.bookMonday9();
    const next = (q: Record<string, unknown>) =>
      w.at().staff.nextFree.staff({ clinic_id: w.clinicId, service_id: w.service, ...q });
    const first = await next({ after: new Date("2027-03-08T08:00:00Z") });
    expect(first.slots).toEqual([
      {
        start: new Date("2027-03-08T09:30:00Z"),
        end: new Date("2027-03-08T10:00:00Z"),
        start_local: "2027-03-08T09:30",
        provider_ids: [w.provider.id],
      },
    ]);
    const three = await next({ after: new Date("2027-03-08T16:00:00Z"), count: 3 });
    expect(three.slots.map((s) => s.start_local)).toEqual(["2027-03-08T16:30", "2027-03-09T09:00", "2027-03-09T09:30"]);
    // Default: after now (the pinned Monday 00:00) → Monday 09:00.
    expect((await next({})).slots.map((s) => s.start_local)).toEqual(["2027-03-01T09:00"]);
    await w.asStaff.appointments.cancel({ clinic_id: w.clinicId, id: taken.id });
    const online = await w.at().patient.nextFree.online({
      clinic_id: w.clinicId,
      service_id: w.service,
      after: new Date("2027-03-08T08:00:00Z"),
    });
    expect(online.slots.map((s) => s.start_local)).toEqual(["2027-03-08T09:00"]);
    expect(await codeOf(next({ count: 21 }))).toBe("VALIDATION_FAILED");
    expect(await codeOf(next({ count: 0 }))).toBe("VALIDATION_FAILED");
    expect(await codeOf(next({ service_id: crypto.randomUUID() }))).toBe("NOT_FOUND");
    await w.asAdmin.clinics.update({ clinic_id: w.clinicId, online_booking: false });
    expect(await codeOf(w.at().patient.nextFree.online({ clinic_id: w.clinicId, service_id: w.service }))).toBe(
      "NOT_FOUND",
    );
  });

  it("searches far ahead in chunks, stops at the service's horizon, and answers [] when nothing is free", async () => {
    const w = await waitClinic();
    // The provider is away for 100 days: the next free time is 2027-06-09 (a Wednesday).
    await addClosure(t.db, w.clinicId, w.provider.id, "2027-02-01T00:00:00Z", "2027-06-09T00:00:00Z");
    const next = (q: Record<string, unknown> = {}) =>
      w.at().staff.nextFree.staff({ clinic_id: w.clinicId, service_id: w.service, ...q });
    expect((await next()).slots.map((s) => s.start_local)).toEqual(["2027-06-09T09:00"]);
    await t.db
      .update(services)
      .set({ bookingHorizonDays: 60 })
      .where(and(eq(services.clinicId, w.clinicId), eq(services.id, w.service)));
    expect((await next()).slots).toEqual([]);
    // Beyond 366 days there is nothing to find either.
    const closed = await waitClinic();
    await addClosure(t.db, closed.clinicId, closed.provider.id, "2027-02-01T00:00:00Z", "2028-04-01T00:00:00Z");
    expect(
      (await closed.at().staff.nextFree.staff({ clinic_id: closed.clinicId, service_id: closed.service })).slots,
    ).toEqual([]);
  });

  it("keeps the clinic's wall-clock time across the DST change in Europe/Berlin", async () => {
    const w = await waitClinic({ timezone: "Europe/Berlin" });
    // Open on Sundays too, 09:00–10:00.
    await addHours(t.db, w.clinicId, null, [7], "09:00", "10:00");
    await addHours(t.db, w.clinicId, w.provider.id, [7], "09:00", "10:00");
    const slots = (
      await w.at().staff.nextFree.staff({
        clinic_id: w.clinicId,
        service_id: w.service,
        after: new Date("2027-03-26T17:00:00Z"),
        count: 3,
      })
    ).slots;
    // Friday 16:30 CET (15:30Z) is before `after`; Sunday 2027-03-28 is the first day of CEST (UTC+2).
    expect(slots.map((s) => [s.start_local, s.start.toISOString()])).toEqual([
      ["2027-03-28T09:00", "2027-03-28T07:00:00.000Z"],
      ["2027-03-28T09:30", "2027-03-28T07:30:00.000Z"],
      ["2027-03-29T09:00", "2027-03-29T07:00:00.000Z"],
    ]);
    // The matcher reads wall-clock windows the same way: 09:00–09:30 on that Sunday.
    const entry = await w.at().staff.waitlist.add({
      clinic_id: w.clinicId,
      service_id: w.service,
      from_date: "2027-03-27",
      to_date: "2027-03-29",
      earliest: "09:30",
      latest: "10:00",
      patient: { name: "Dst", email: "dst@test.example" },
    });
    await t.db.update(clinics).set({ offerMinutes: 5 }).where(eq(clinics.id, w.clinicId));
    await w.match(new Date("2027-03-26T17:00:00Z"));
    const row = await w.entryRow(entry.id);
    expect((await w.appointment(row.offerAppointmentId ?? ""))?.startsAt.toISOString()).toBe(
      "2027-03-28T07:30:00.000Z",
    );
  });
});
