// Reminders derived, not planned (§10, issue 49, docs/events.md#reminders): a booking, a move and a
// cancel write nothing for reminders; the clinic's sweep (runReminderSweep, clinic_due_reminders)
// records each due reminder once, by the rules §10 and §13 give: not before its moment, none for a
// hold, a pending request, a cancel or a moment that had passed when it was booked; a move's at its
// new start; a confirmation's from the confirmation. Two processes, 10,000 reminders and a `kill -9`:
// apps/server/test/reminders.postgres.test.ts.
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Db, appointmentReminders, events, jobs, rowsOf } from "@clinic/db";
import { type ReminderSweepJob, reminderSweepJobId, runReminderSweep } from "../src/modules/booking/index.ts";
import { addService, bookableClinic, callerFor, createUser, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const MIN = 60_000;
/** Monday 2027-03-15, two weeks after the pinned clock; the clinic's zone is UTC. */
const at = (hhmm: string) => new Date(`2027-03-15T${hhmm}:00.000Z`);
const clock = (now: Date) => () => now;

async function clinicWithReminders(db: Db) {
  const c = await bookableClinic(db);
  const service = await addService(db, c.clinicId, { name: "Check-up", providerId: c.provider.id, durationMin: 30 });
  await c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, requires_confirmation: true });
  const admin = callerFor(db, c.admin, { now: pinnedNow });
  await admin.clinics.update({
    clinic_id: c.clinicId,
    online_booking: true,
    max_open_bookings_per_patient: 20,
    reminder_offsets_min: [1440, 60],
  });
  const staffAt = (now: Date) => callerFor(db, c.staff, { now: clock(now) });
  const book = (start: Date, now: Date = pinnedNow()) =>
    staffAt(now).appointments.book({ clinic_id: c.clinicId, service_id: service, start, patient: { name: "Pat" } });
  return { ...c, service, staffAt, book };
}

const countOf = async (db: Db, table: typeof jobs | typeof appointmentReminders, clinicId: string) =>
  (await db.select({ clinicId: table.clinicId }).from(table).where(eq(table.clinicId, clinicId))).length;

describe("reminders derived from the appointments (§10)", () => {
  it("a booking, a move and a cancel write no reminder row and no job", async () => {
    const c = await clinicWithReminders(t.db);
    const before = {
      jobs: await countOf(t.db, jobs, c.clinicId),
      reminders: await countOf(t.db, appointmentReminders, c.clinicId),
    };
    // The clinic's one sweep, written by C4 with the offsets: the only job reminders ever have.
    expect(before).toEqual({ jobs: 1, reminders: 0 });
    const booked = await c.book(at("09:00"));
    expect(booked.status).toBe("booked");
    expect(await countOf(t.db, jobs, c.clinicId)).toBe(before.jobs);
    expect(await countOf(t.db, appointmentReminders, c.clinicId)).toBe(0);
    await c.staffAt(pinnedNow()).appointments.reschedule({ clinic_id: c.clinicId, id: booked.id, start: at("10:00") });
    const other = await c.book(at("11:00"));
    await c.staffAt(pinnedNow()).appointments.cancel({ clinic_id: c.clinicId, id: other.id });
    expect(await countOf(t.db, jobs, c.clinicId)).toBe(before.jobs);
    expect(await countOf(t.db, appointmentReminders, c.clinicId)).toBe(0);
  });

  it("sends each due reminder once, by §10's rules, and none before its moment", async () => {
    const c = await clinicWithReminders(t.db);
    const a = await c.book(at("09:00"));
    // Booked at 09:30 on the day: both moments (the day before 10:00, 09:00) had passed.
    const late = await c.book(at("10:00"), at("09:30"));
    // Booked at 09:30: the day-before one had passed, the hour-before one (10:00) had not.
    const partial = await c.book(at("11:00"), at("09:30"));
    const hold = await c.staffAt(pinnedNow()).appointments.hold({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("12:00"),
    });
    const patient = callerFor(t.db, await createUser(t.db), { now: pinnedNow });
    const request = (start: Date) =>
      patient.onlineBooking.book({ clinic_id: c.clinicId, service_id: c.service, start, patient: { name: "Pia" } });
    const pending = await request(at("13:00"));
    const confirmed = await request(at("13:30"));
    expect([pending.status, confirmed.status]).toEqual(["pending", "pending"]);
    // Confirmed at 12:10 on the day: its reminders count from then (the hour-before one, 12:30).
    await c.staffAt(at("12:10")).appointments.setStatus({ clinic_id: c.clinicId, id: confirmed.id, status: "booked" });
    const canceled = await c.book(at("14:00"));
    await c.staffAt(pinnedNow()).appointments.cancel({ clinic_id: c.clinicId, id: canceled.id });
    const moved = await c.book(at("14:30"));
    await c.staffAt(pinnedNow()).appointments.reschedule({ clinic_id: c.clinicId, id: moved.id, start: at("15:00") });

    const [row] = await t.db
      .select({ data: jobs.data })
      .from(jobs)
      .where(and(eq(jobs.clinicId, c.clinicId), eq(jobs.jobId, reminderSweepJobId(c.clinicId))));
    let job = row?.data as ReminderSweepJob | undefined;
    if (!job) throw new Error("no reminder sweep");
    const sweep = async (now: Date) => {
      const next = await runReminderSweep(t.db, { now: clock(now) }, job ?? { clinicId: c.clinicId });
      job = next?.data as ReminderSweepJob | undefined;
    };
    const sent = async () =>
      rowsOf<{ id: string; offset_min: number; start: string }>(
        await t.db.execute(sql`
          select data->>'id' as id, (data->>'offset_min')::int as offset_min, data->>'start' as start
          from ${events} where clinic_id = ${c.clinicId}::uuid and type = 'appointment.reminder' order by seq`),
      ).map(
        (r) =>
          `${r.id === a.id ? "a" : r.id === partial.id ? "partial" : r.id === confirmed.id ? "confirmed" : r.id === moved.id ? "moved" : r.id}:${String(r.offset_min)}:${r.start}`,
      );

    // The day before 09:00, to the millisecond: only that one is due.
    await sweep(new Date(at("09:00").getTime() - 1440 * MIN));
    expect(await sent()).toEqual(["a:1440:2027-03-15T09:00:00.000Z"]);
    // After every start, twice: the rest, each once, in the order of their moments.
    await sweep(new Date("2027-03-16T00:00:00.000Z"));
    await sweep(new Date("2027-03-16T00:00:10.000Z"));
    expect(await sent()).toEqual([
      "a:1440:2027-03-15T09:00:00.000Z",
      "moved:1440:2027-03-15T15:00:00.000Z",
      "a:60:2027-03-15T09:00:00.000Z",
      "partial:60:2027-03-15T11:00:00.000Z",
      "confirmed:60:2027-03-15T13:30:00.000Z",
      "moved:60:2027-03-15T15:00:00.000Z",
    ]);
    // Nothing for the others: the late booking, the hold, the pending request, the cancel.
    const ids = (await sent()).join(" ");
    for (const none of [late.id, hold.id, pending.id, canceled.id]) expect(ids).not.toContain(none);
    // The record of what was sent: one row per reminder.
    expect(await countOf(t.db, appointmentReminders, c.clinicId)).toBe(6);
  });

  it("runs again when the next reminder falls due, when that is sooner than its interval", async () => {
    const c = await clinicWithReminders(t.db);
    await c.book(at("09:00"));
    // 20 s before the day-before reminder of 09:00: nothing due yet; the next run is at its moment
    // (in the wall clock: the sweep's clock may be another, as here), not a whole interval later.
    const now = new Date(at("09:00").getTime() - 1440 * MIN - 20_000);
    const started = Date.now();
    const early = await runReminderSweep(t.db, { now: clock(now), intervalMs: 60_000 }, { clinicId: c.clinicId });
    const ended = Date.now();
    expect(early?.repeatAt.getTime()).toBeGreaterThanOrEqual(started + 20_000);
    expect(early?.repeatAt.getTime()).toBeLessThanOrEqual(ended + 20_000);
    // 5 minutes before it, with a 60 s interval: the interval.
    const far = new Date(at("09:00").getTime() - 1440 * MIN - 300_000);
    const later = await runReminderSweep(t.db, { now: clock(far), intervalMs: 60_000 }, { clinicId: c.clinicId });
    expect(later?.repeatAt.getTime()).toBeGreaterThanOrEqual(Date.now() + 59_000);
    expect(later?.repeatAt.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it("ends the sweep when the clinic has no offsets any more (C4 with [] removes it)", async () => {
    const c = await clinicWithReminders(t.db);
    const admin = callerFor(t.db, c.admin, { now: pinnedNow });
    await admin.clinics.update({ clinic_id: c.clinicId, reminder_offsets_min: [] });
    expect(await countOf(t.db, jobs, c.clinicId)).toBe(0);
    // A run under way when the offsets went finds none and ends (no repeat).
    expect(await runReminderSweep(t.db, { now: pinnedNow }, { clinicId: c.clinicId })).toBeUndefined();
  });
});
