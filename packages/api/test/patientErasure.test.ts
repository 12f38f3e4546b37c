// X2, erasure of a patient from one clinic (§21, docs/patient-data.md#erasure), at the procedure
// level: what it cancels and what it keeps, the pseudonym, the audit entry and event, roles and
// validation, idempotency, and bookings of the same patient racing it. The search of the whole
// database for planted values is apps/server/test/erasure.http.test.ts.
import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointments, clinicPatients, eventData, events } from "@clinic/db";
import { pseudonymOf, identifierOf } from "../src/modules/patientData/index.ts";
import { addService, bookableClinic, callerFor, codeOf, createUser, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const HOUR = 3_600_000;
/** Monday 15 March 2027, 09:00 UTC. */
const monday = Date.parse("2027-03-15T09:00:00.000Z");
const at = (k: number) => new Date(monday + k * HOUR);

async function clinicWithPatient() {
  const c = await bookableClinic(t.db, { timezone: "Europe/Berlin" });
  const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  await c.asAdmin.services.update({
    clinic_id: c.clinicId,
    id: service,
    questions: [{ key: "why", label: "Why", type: "text" }],
  });
  const tag = crypto.randomUUID().slice(0, 8);
  const patient = { name: `Eve Erase ${tag}`, email: `eve.${tag}@example.test`, phone_e164: "+4930555000" };
  return { ...c, service, patient };
}

describe("X2 erasure (§21)", () => {
  it("cancels the future appointments, keeps the past ones' times and statuses, and pseudonymizes all of them", async () => {
    const c = await clinicWithPatient();
    // Booked a week before the Monday; the erasure happens on the Monday at noon.
    const before = callerFor(t.db, c.staff, { now: () => new Date(monday - 7 * 24 * HOUR) });
    const book = (k: number) =>
      before.appointments.book({
        clinic_id: c.clinicId,
        service_id: c.service,
        start: at(k),
        patient: c.patient,
        notes: "private note",
        answers: { why: "private answer" },
      });
    const past = await book(0);
    const future = await book(4);
    const other = await before.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at(5),
      patient: { name: "Somebody Else", email: "else@example.test" },
    });
    const noon = new Date(monday + 3 * HOUR);
    const admin = callerFor(t.db, c.admin, { now: () => noon });
    const desk = callerFor(t.db, c.staff, { now: () => noon });
    const atTheVisit = callerFor(t.db, c.staff, { now: () => new Date(monday + 10 * 60_000) });
    await atTheVisit.appointments.setStatus({ clinic_id: c.clinicId, id: past.id, status: "arrived" });
    await atTheVisit.appointments.setStatus({ clinic_id: c.clinicId, id: past.id, status: "completed" });

    const result = await admin.patientData.erase({
      clinic_id: c.clinicId,
      phone_e164: c.patient.phone_e164,
      reason: "asked by the patient",
    });
    expect(result.pseudonym).toBe(pseudonymOf(undefined, c.clinicId, identifierOf({ phone_e164: "+4930555000" })));
    expect(result.erased.appointments).toBe(2);

    const read = (id: string) => desk.appointments.get({ clinic_id: c.clinicId, id });
    const pastAfter = await read(past.id);
    expect(pastAfter).toMatchObject({
      status: "completed",
      start: past.start,
      end: past.end,
      service_id: c.service,
      provider_id: c.provider.id,
      patient: { name: result.pseudonym, email: null, phone_e164: null },
      notes: null,
      answers: [],
    });
    const futureAfter = await read(future.id);
    expect(futureAfter).toMatchObject({ status: "canceled", start: future.start, patient: { name: result.pseudonym } });
    expect(futureAfter.status_history.at(-1)).toMatchObject({ status: "canceled", reason: "patient_erased" });
    // Somebody else is untouched.
    expect((await read(other.id)).patient).toEqual({
      name: "Somebody Else",
      email: "else@example.test",
      phone_e164: null,
    });
    // Its time is free again.
    const again = await desk.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at(4),
      patient: { name: "Next Patient" },
    });
    expect(again.status).toBe("booked");

    // One audit entry and one event, with the pseudonym and the reason, not the values.
    const { entries } = await admin.audit.list({ clinic_id: c.clinicId, resource_type: "patient" });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: "PATIENT_ERASED",
      user_email: c.admin.email,
      details: { pseudonym: result.pseudonym, reason: "asked by the patient", matched_by: "phone_e164" },
    });
    expect(JSON.stringify(entries)).not.toContain("Eve Erase");
    const erasedEvents = await t.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.clinicId, c.clinicId), eq(events.type, "patient.erased")));
    expect(erasedEvents).toEqual([
      { data: { pseudonym: result.pseudonym, reason: "asked by the patient", erased: result.erased } },
    ]);

    // Idempotent: the same pseudonym, nothing more, no second entry.
    const second = await admin.patientData.erase({ clinic_id: c.clinicId, phone_e164: "+4930555000", reason: "again" });
    expect(second).toEqual({
      pseudonym: result.pseudonym,
      erased: { appointments: 0, messages: 0, waitlist_entries: 0, events: 0, deliveries: 0, audit_entries: 0 },
    });
    expect((await admin.audit.list({ clinic_id: c.clinicId, resource_type: "patient" })).entries).toHaveLength(1);
  });

  it("matches a registered patient by user id, and their bookings made by e-mail too only when it is theirs", async () => {
    const c = await clinicWithPatient();
    const user = await createUser(t.db);
    const desk = callerFor(t.db, c.staff);
    const mine = await desk.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at(1),
      patient: { name: "Registered Rita" },
      patient_user_id: user.id,
    });
    const result = await callerFor(t.db, c.admin).patientData.erase({
      clinic_id: c.clinicId,
      patient_user_id: user.id,
      reason: "Art. 17",
    });
    expect(result.erased.appointments).toBe(1);
    const [row] = await t.db
      .select({ name: appointments.patientName, user: appointments.patientUserId })
      .from(appointments)
      .where(and(eq(appointments.clinicId, c.clinicId), eq(appointments.id, mine.id)));
    expect(row).toEqual({ name: result.pseudonym, user: null });
  });

  it("erased by e-mail, a patient's account is theirs too: its other bookings and its link to the clinic go", async () => {
    const c = await clinicWithPatient();
    await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true });
    const user = await createUser(t.db);
    const own = await callerFor(t.db, user).onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at(1),
      patient: { name: "Olga Online" },
    });
    const byDesk = await callerFor(t.db, c.staff).appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at(2),
      patient: { name: "Olga O.", email: "olga.private@example.test" },
      patient_user_id: user.id,
    });
    const linked = () =>
      t.db
        .select()
        .from(clinicPatients)
        .where(and(eq(clinicPatients.clinicId, c.clinicId), eq(clinicPatients.userId, user.id)));
    expect(await linked()).toHaveLength(1);
    const result = await callerFor(t.db, c.admin).patientData.erase({
      clinic_id: c.clinicId,
      email: user.email,
      reason: "Art. 17",
    });
    expect(result.erased.appointments).toBe(2);
    expect(await linked()).toEqual([]);
    const rows = await t.db
      .select({ id: appointments.id, email: appointments.patientEmail, user: appointments.patientUserId })
      .from(appointments)
      .where(eq(appointments.clinicId, c.clinicId));
    expect(rows.filter((r) => r.id === own.id || r.id === byDesk.id)).toEqual(
      expect.arrayContaining([
        { id: own.id, email: null, user: null },
        { id: byDesk.id, email: null, user: null },
      ]),
    );
  });

  it("is CLINIC_ADMIN's, takes exactly one identifier, and leaves another clinic's copy of the patient untouched", async () => {
    const a = await clinicWithPatient();
    const b = await clinicWithPatient();
    const inB = await callerFor(t.db, b.staff).appointments.book({
      clinic_id: b.clinicId,
      service_id: b.service,
      start: at(1),
      patient: a.patient,
    });
    expect(
      await codeOf(
        callerFor(t.db, a.staff).patientData.erase({ clinic_id: a.clinicId, email: a.patient.email, reason: "x" }),
      ),
    ).toBe("FORBIDDEN");
    const admin = callerFor(t.db, a.admin);
    expect(await codeOf(admin.patientData.erase({ clinic_id: a.clinicId, reason: "x" }))).toBe("VALIDATION_FAILED");
    expect(
      await codeOf(
        admin.patientData.erase({
          clinic_id: a.clinicId,
          email: a.patient.email,
          phone_e164: "+4930555000",
          reason: "x",
        }),
      ),
    ).toBe("VALIDATION_FAILED");
    expect(await codeOf(admin.patientData.erase({ clinic_id: a.clinicId, email: a.patient.email, reason: " " }))).toBe(
      "VALIDATION_FAILED",
    );
    await admin.patientData.erase({ clinic_id: a.clinicId, email: a.patient.email, reason: "Art. 17" });
    const stillInB = await callerFor(t.db, b.staff).appointments.get({ clinic_id: b.clinicId, id: inB.id });
    expect(stillInB.patient).toEqual(a.patient);
  });

  it("holds while the same patient books in parallel: a booking is erased, or it commits after the erasure", async () => {
    const c = await clinicWithPatient();
    const desk = callerFor(t.db, c.staff);
    const admin = callerFor(t.db, c.admin);
    await desk.appointments.book({ clinic_id: c.clinicId, service_id: c.service, start: at(0), patient: c.patient });
    const racing = Array.from({ length: 6 }, (_, k) =>
      desk.appointments.book({
        clinic_id: c.clinicId,
        service_id: c.service,
        start: at(1 + k),
        patient: c.patient,
        notes: "racing note",
      }),
    );
    const [erasure, ...bookings] = await Promise.allSettled([
      admin.patientData.erase({ clinic_id: c.clinicId, email: c.patient.email, reason: "race" }),
      ...racing,
    ]);
    if (erasure.status !== "fulfilled") throw new Error(`the erasure failed: ${String(erasure.reason)}`);
    expect(bookings.every((b) => b.status === "fulfilled")).toBe(true);
    // In the clinic's event order: every appointment booked before patient.erased lost its values;
    // one that still has them was booked after it.
    const feed = await t.db
      .select({ seq: events.seq, type: events.type, data: eventData })
      .from(events)
      .where(eq(events.clinicId, c.clinicId))
      .orderBy(asc(events.seq));
    const erasedAt = feed.find((e) => e.type === "patient.erased")?.seq ?? -1n;
    expect(erasedAt).not.toBe(-1n);
    const bookedAt = new Map(
      feed.filter((e) => e.type === "appointment.booked").map((e) => [(e.data as { id: string }).id, e.seq]),
    );
    const rows = await t.db
      .select({
        id: appointments.id,
        name: appointments.patientName,
        email: appointments.patientEmail,
        notes: appointments.notes,
      })
      .from(appointments)
      .where(eq(appointments.clinicId, c.clinicId));
    for (const row of rows) {
      const seq = bookedAt.get(row.id);
      if (seq === undefined) throw new Error(`no booked event for ${row.id}`);
      if (seq < erasedAt)
        expect(row, "booked before the erasure").toMatchObject({
          name: erasure.value.pseudonym,
          email: null,
          notes: null,
        });
      else expect(row.email, "booked after the erasure").toBe(c.patient.email);
    }
    // Nothing booked before it kept a value in its events either.
    for (const e of feed.filter((e) => e.seq < erasedAt))
      expect(JSON.stringify(e.data), `event ${String(e.seq)}`).not.toContain(c.patient.email);
  });
});
