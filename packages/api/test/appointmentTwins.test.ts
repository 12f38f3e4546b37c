// The appointment's JSON has two producers that must agree: the database functions build it in SQL
// (clinic_appointment_view: every booking write answers with it; events carry clinic_appointment_json,
// the same without answers) and the reads build it in TypeScript (toAppointment: B2, B3, U1). This test compares the twins field by field for
// every status an appointment can have and every optional part it can carry (docs/database-functions.md).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointmentStatuses, rowsOf } from "@clinic/db";
import { appointmentFromJson, appointmentOutput, getAppointment } from "../src/modules/booking/index.ts";
import {
  addResource,
  addService,
  bookableClinic,
  callerFor,
  createUser,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const MIN = 60_000;
const HOUR = 60 * MIN;
/** A Monday 09:00 UTC, two weeks after the pinned clock. */
const monday = new Date("2027-03-15T09:00:00.000Z");
const at = (ms: number) => new Date(monday.getTime() + ms);
const clock = (when: Date | number) => () => new Date(when);

describe("the appointment's JSON: SQL (clinic_appointment_view) and TypeScript (toAppointment)", () => {
  it("agree on every field, for every status and every optional part", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, {
      name: "Check-up",
      providerId: c.provider.id,
      durationMin: 30,
    });
    await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: service,
      questions: [{ key: "reason", label: "Reason for the visit", type: "text", required: false }],
    });
    const roomy = await addService(t.db, c.clinicId, { name: "Room", providerId: c.provider.id, durationMin: 30 });
    await addResource(t.db, c.clinicId, { name: "Room A", kind: "treatment_room" });
    await t.db.execute(
      sql`update services set required_resource_kinds = '{treatment_room}', buffer_before_min = 5, buffer_after_min = 10
          where clinic_id = ${c.clinicId}::uuid and id = ${roomy}::uuid`,
    );
    const confirm = await addService(t.db, c.clinicId, { name: "Ask", providerId: c.provider.id, durationMin: 30 });
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: confirm, requires_confirmation: true });
    await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true, max_open_bookings_per_patient: 20 });
    const staffAt = (now: Date | number) => callerFor(t.db, c.staff, { now: clock(now) });
    const staff = staffAt(pinnedNow());
    const patientUser = await createUser(t.db);
    const patient = callerFor(t.db, patientUser, { now: pinnedNow });
    const book = (start: Date, extra: Record<string, unknown> = {}) =>
      staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start,
        patient: { name: "Pat Twin", email: "pat.twin@example.test", phone_e164: "+4930123456" },
        notes: "first visit",
        ...extra,
      });
    const ids: string[] = [];
    // booked, with every patient field and notes; with a patient user.
    ids.push((await book(at(0), { answers: { reason: "a twin's reason" } })).id);
    ids.push((await book(at(30 * MIN), { patient_user_id: patientUser.id })).id);
    // rescheduled (rescheduled_at), then checked in (arrived), then completed.
    const moved = await book(at(60 * MIN));
    await staff.appointments.reschedule({ clinic_id: c.clinicId, id: moved.id, start: at(2 * HOUR) });
    ids.push(moved.id);
    const visit = await book(at(3 * HOUR));
    await staffAt(at(3 * HOUR - 10 * MIN)).appointments.setStatus({
      clinic_id: c.clinicId,
      id: visit.id,
      status: "arrived",
    });
    ids.push(visit.id);
    const done = await book(at(4 * HOUR));
    await staffAt(at(4 * HOUR)).appointments.setStatus({ clinic_id: c.clinicId, id: done.id, status: "arrived" });
    await staffAt(at(4 * HOUR + 20 * MIN)).appointments.setStatus({
      clinic_id: c.clinicId,
      id: done.id,
      status: "completed",
      reason: "seen",
    });
    ids.push(done.id);
    // no_show, once the start has passed.
    const missed = await book(at(5 * HOUR));
    await staffAt(at(5 * HOUR + 5 * MIN)).appointments.setStatus({
      clinic_id: c.clinicId,
      id: missed.id,
      status: "no_show",
    });
    ids.push(missed.id);
    // canceled (canceled_at, a reason).
    const canceled = await book(at(6 * HOUR));
    await staff.appointments.cancel({ clinic_id: c.clinicId, id: canceled.id });
    ids.push(canceled.id);
    // held (held_until), and pending (a patient's request for a service that needs confirmation).
    ids.push((await staff.appointments.hold({ clinic_id: c.clinicId, service_id: service, start: at(7 * HOUR) })).id);
    ids.push(
      (
        await patient.onlineBooking.book({
          clinic_id: c.clinicId,
          service_id: confirm,
          start: at(24 * HOUR),
          patient: { name: "Pia Pending" },
        })
      ).id,
    );
    // With a resource and buffers; and an occurrence of a series (series_id).
    ids.push((await book(at(25 * HOUR), { service_id: roomy })).id);
    const series = await staff.series.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at(7 * 24 * HOUR),
      rrule: "FREQ=WEEKLY;COUNT=2",
      patient: { name: "Pat Course" },
    });
    if ("dry_run" in series) throw new Error("expected a booked series");
    ids.push(...series.occurrences.map((o) => o.id));

    const keys = Object.keys(appointmentOutput.shape).sort();
    let answered = 0;
    const statuses = new Set<string>();
    for (const id of ids) {
      const [row] = rowsOf<{ json: Record<string, unknown>; event: Record<string, unknown> }>(
        await t.db.execute(
          sql`select clinic_appointment_view(${c.clinicId}::uuid, ${id}::uuid) as json,
                     clinic_appointment_json(${c.clinicId}::uuid, ${id}::uuid) as event`,
        ),
      );
      if (!row) throw new Error(`no JSON for ${id}`);
      // The same fields, none more, none fewer ...
      expect(Object.keys(row.json).sort(), id).toEqual(keys);
      // ... and the events' and messages' form is the same without the answers (§19).
      expect(Object.keys(row.event).sort(), id).toEqual(keys.filter((k) => k !== "answers"));
      expect({ ...row.event, answers: row.json.answers }).toEqual(row.json);
      const fromSql = appointmentFromJson(row.json);
      // ... with the same values.
      const fromTs = await getAppointment(t.db, c.clinicId, id);
      expect(fromSql, `${fromTs.status} ${id}`).toEqual(fromTs);
      statuses.add(fromTs.status);
      if (fromTs.answers.length > 0) answered++;
    }
    expect(answered).toBe(1);
    expect([...statuses].sort()).toEqual([...appointmentStatuses].sort());
  });
});
