// Retention (CONTRACT §21, issue 40, docs/patient-data.md#retention): a clinic's `retention_days`
// and its daily job. Appointments booked with planted values (names, e-mails, phones, notes,
// answers; their messages, events and webhook deliveries) end before and after the cutoff; the
// job's handler runs with a pinned clock; the old ones and every copy about them lose the values
// (found by searching every row of the clinic), the newer ones — the same patient's too — keep
// theirs; times, statuses and services stay; one audit entry per run holds the counts; a second
// run changes nothing; batches and the time budget; the setting's bounds and its job.
import { randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointmentSeries, appointments, auditLog, clinics, jobs, rowsOf } from "@clinic/db";
import { queueNames, runDueJobs } from "../src/modules/jobs/index.ts";
import { followWebhookFeed } from "../src/modules/webhooks/index.ts";
import {
  type RetentionRun,
  ensureRetentionJobs,
  identifierOf,
  nextDailyRun,
  pseudonymOf,
  retentionJobId,
  runRetention,
} from "../src/modules/patientData/index.ts";
import {
  addWebhook,
  bookableClinic,
  callerFor,
  codeOf,
  createUser,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
/** The job's clock: 60 days of retention put the cutoff at 2027-04-16T12:00Z. */
const runAt = new Date("2027-06-15T12:00:00.000Z");
const cutoff = new Date("2027-04-16T12:00:00.000Z");
const at = (iso: string) => new Date(iso);

/** A clinic with a service that asks one free question, a webhook, and 60 days of retention. */
async function retainingClinic(retentionDays: number | null = 60) {
  const c = await bookableClinic(t.db);
  const created = await c.asAdmin.services.create({
    clinic_id: c.clinicId,
    name: "Intake",
    duration_min: 30,
    provider_id: c.provider.id,
    questions: [{ key: "history", label: "Medical history", type: "long_text" }],
  });
  // A receiver that refuses: each event's attempt leaves a delivery row with its error (port 9, discard).
  const webhook = await addWebhook(t.db, c.clinicId, { url: "http://127.0.0.1:9/hook" });
  // Set directly: the job is run by hand here (the API path and its job are tested below).
  await t.db.update(clinics).set({ retentionDays }).where(eq(clinics.id, c.clinicId));
  return { ...c, webhook, service: created.id, desk: callerFor(t.db, c.staff, { now: pinnedNow }) };
}

/** Every row of the clinic, one line of text each (its own table's rows and every tenant table's). */
async function rowsOfClinic(clinicId: string): Promise<string[]> {
  const tables = rowsOf<{ name: string }>(
    await t.db.execute(sql`select table_name as name from information_schema.columns
      where table_schema = 'public' and column_name = 'clinic_id' order by 1`),
  );
  const lines: string[] = [];
  for (const { name } of tables) {
    const rows = rowsOf<{ line: string }>(
      await t.db.execute(
        sql`select ${name} || ': ' || row_to_json(x)::text as line from ${sql.identifier(name)} x where x.clinic_id = ${clinicId}::uuid`,
      ),
    );
    lines.push(...rows.map((r) => r.line));
  }
  return lines;
}
const holding = (lines: readonly string[], value: string) =>
  lines.filter((line) => line.toLowerCase().includes(value.toLowerCase()));

async function appointmentRows(ids: readonly string[]) {
  const rows = await t.db
    .select()
    .from(appointments)
    .where(inArray(appointments.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r]));
}

async function retentionAudits(clinicId: string) {
  return t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.clinicId, clinicId), eq(auditLog.action, "RETENTION_APPLIED")))
    .orderBy(auditLog.createdAt, auditLog.id);
}

/** Runs the clinic's job once (as the queue would), recording what it told /metrics. */
async function runOnce(clinicId: string, options: { batchSize?: number; budgetMs?: number; now?: Date } = {}) {
  const runs: RetentionRun[] = [];
  const repeat = await runRetention(
    t.db,
    {
      key: undefined,
      now: () => options.now ?? runAt,
      batchSize: options.batchSize,
      budgetMs: options.budgetMs,
      onRun: (run) => runs.push(run),
    },
    { clinicId },
  );
  return { repeat, run: runs[0] };
}

describe("retention (§21)", () => {
  it("pseudonymizes the appointments that ended before the cutoff and every copy about them; newer ones keep theirs", async () => {
    const c = await retainingClinic();
    const tag = randomBytes(5).toString("hex");
    const paula = { name: `Paula ${tag}`, email: `paula.${tag}@example.test`, phone_e164: "+4930111222333" };
    const bob = { name: `Bob ${tag}`, phone_e164: `+4930${String(100_000 + Number.parseInt(tag.slice(0, 4), 16))}` };
    const carl = { name: `Carl ${tag}` };
    const sam = { name: `Sam ${tag}`, email: `sam.${tag}@example.test` };
    const mia = { name: `Mia ${tag}`, email: `mia.${tag}@example.test` };
    const old = { notes: `old-note-${tag}`, answer: `old-answer-${tag}` };
    const kept = { notes: `new-note-${tag}`, answer: `new-answer-${tag}` };
    const book = (start: string, patient: object, notes?: string, answer?: string) =>
      c.desk.appointments.book({
        clinic_id: c.clinicId,
        service_id: c.service,
        start: at(start),
        patient: patient as { name: string },
        ...(notes ? { notes } : {}),
        ...(answer ? { answers: { history: answer } } : {}),
      });

    // Ended before the cutoff: Paula twice (one canceled), Bob (phone only), Carl (a name only),
    // Sam's series (both occurrences), the first of Mia's.
    const paulaOld = await book("2027-03-15T09:00:00Z", paula, old.notes, old.answer);
    const paulaCanceled = await book("2027-03-18T09:00:00Z", paula, old.notes);
    await c.desk.appointments.cancel({ clinic_id: c.clinicId, id: paulaCanceled.id });
    const bobOld = await book("2027-03-16T09:00:00Z", bob, old.notes);
    const carlOld = await book("2027-03-17T09:00:00Z", carl, undefined, old.answer);
    const samBooked = await c.desk.series.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-22T10:00:00Z"),
      rrule: "FREQ=WEEKLY;COUNT=2",
      patient: sam,
      notes: old.notes,
    });
    const miaBooked = await c.desk.series.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-04-12T11:00:00Z"),
      rrule: "FREQ=WEEKLY;COUNT=2",
      patient: mia,
      notes: kept.notes,
    });
    if (!("id" in samBooked) || !("id" in miaBooked)) throw new Error("the series were not booked");
    const [samSeries, miaSeries] = [samBooked, miaBooked];
    // After it: Paula again (her address is in the old copies too), and Mia's second occurrence.
    const paulaNew = await book("2027-05-03T09:00:00Z", paula, kept.notes, kept.answer);

    const seriesRows = await t.db
      .select({ id: appointments.id, seriesId: appointments.seriesId, startsAt: appointments.startsAt })
      .from(appointments)
      .where(and(eq(appointments.clinicId, c.clinicId), inArray(appointments.seriesId, [samSeries.id, miaSeries.id])));
    const samIds = seriesRows.filter((r) => r.seriesId === samSeries.id).map((r) => r.id);
    const miaOld = seriesRows.find((r) => r.seriesId === miaSeries.id && r.startsAt < cutoff)?.id ?? "";
    const miaNew = seriesRows.find((r) => r.seriesId === miaSeries.id && r.startsAt > cutoff)?.id ?? "";
    expect(samIds).toHaveLength(2);
    const oldIds = [paulaOld.id, paulaCanceled.id, bobOld.id, carlOld.id, ...samIds, miaOld];
    const newIds = [paulaNew.id, miaNew];

    const before = await appointmentRows([...oldIds, ...newIds]);
    const linesBefore = await rowsOfClinic(c.clinicId);
    // The positive control: the values are there, in more than the appointments (answers in them only).
    for (const value of [old.notes, paula.email, bob.phone_e164, carl.name, sam.email])
      expect(
        holding(linesBefore, value).some((line) => !line.startsWith("appointments:")),
        value,
      ).toBe(true);
    expect(holding(linesBefore, old.answer).length).toBeGreaterThan(0);

    // The webhook reads the feed (its first attempts, refused, are recorded as deliveries with
    // their errors), so that there are deliveries of the old events to count.
    expect(
      await followWebhookFeed(t.db, c.clinicId, c.webhook, {
        allowPrivate: true,
        timeoutMs: 2_000,
        retryDelaysS: [600],
        leaseS: 60,
      }),
    ).toBeGreaterThanOrEqual(oldIds.length);
    const { repeat, run } = await runOnce(c.clinicId);
    expect(run).toMatchObject({ clinicId: c.clinicId, cutoff, complete: true, batches: 1 });
    expect(run?.counts.appointments).toBe(oldIds.length);
    expect(run?.counts.messages).toBeGreaterThanOrEqual(4);
    expect(run?.counts.events).toBeGreaterThanOrEqual(oldIds.length);
    expect(run?.counts.deliveries).toBeGreaterThanOrEqual(oldIds.length);
    // Next: the clinic's next local 03:00 (UTC here).
    expect(repeat).toEqual({ repeatAt: at("2027-06-16T03:00:00.000Z") });

    const after = await appointmentRows([...oldIds, ...newIds]);
    const pseudonym = (identifier: string) => pseudonymOf(undefined, c.clinicId, identifier);
    const expectedName = new Map([
      [paulaOld.id, pseudonym(identifierOf({ email: paula.email }))],
      [paulaCanceled.id, pseudonym(identifierOf({ email: paula.email }))],
      [bobOld.id, pseudonym(identifierOf({ phone_e164: bob.phone_e164 }))],
      [carlOld.id, pseudonym(`appointment:${carlOld.id}`)],
      ...samIds.map((id) => [id, pseudonym(identifierOf({ email: sam.email }))] as const),
      [miaOld, pseudonym(identifierOf({ email: mia.email }))],
    ]);
    for (const id of oldIds) {
      const was = before.get(id);
      const now = after.get(id);
      expect(now, id).toMatchObject({
        patientName: expectedName.get(id),
        patientEmail: null,
        patientPhoneE164: null,
        notes: null,
        answers: [],
        patientUserId: null,
        // What the schedule and the reports count stays.
        status: was?.status,
        startsAt: was?.startsAt,
        endsAt: was?.endsAt,
        serviceId: was?.serviceId,
        providerId: was?.providerId,
      });
      expect(now?.manageKey).not.toBe(was?.manageKey);
    }
    expect(after.get(paulaCanceled.id)?.status).toBe("canceled");
    // The newer ones are untouched, to the last column.
    for (const id of newIds) expect(after.get(id)).toEqual(before.get(id));
    // Sam's series went with its last appointment; Mia's, with one still to come, stays.
    const series = await t.db
      .select()
      .from(appointmentSeries)
      .where(inArray(appointmentSeries.id, [samSeries.id, miaSeries.id]));
    expect(series.find((s) => s.id === samSeries.id)).toMatchObject({
      patientName: pseudonym(identifierOf({ email: sam.email })),
      patientEmail: null,
      notes: null,
    });
    expect(series.find((s) => s.id === miaSeries.id)).toMatchObject({ patientName: mia.name, notes: kept.notes });

    // No row of the clinic holds a value that only old appointments had; Paula's address and name
    // remain only in rows that are not about her old appointments; the newer values all remain.
    const lines = await rowsOfClinic(c.clinicId);
    for (const value of [old.notes, old.answer, bob.name, bob.phone_e164, carl.name, sam.name, sam.email])
      expect(holding(lines, value), value).toEqual([]);
    for (const value of [paula.email, paula.name, paula.phone_e164])
      for (const line of holding(lines, value))
        expect(line.includes(paulaOld.id) || line.includes(paulaCanceled.id), `${value}: ${line}`).toBe(false);
    for (const line of holding(lines, mia.email))
      expect(line.startsWith("appointments:") && line.includes(miaOld)).toBe(false);
    for (const value of [kept.notes, kept.answer, paula.email, mia.email])
      expect(holding(lines, value).length, value).toBeGreaterThan(0);
    // The newer appointment's e-mail still goes to Paula.
    const [paulaMessage] = rowsOf<{ to: string }>(
      await t.db.execute(
        sql`select "to" from messages where clinic_id = ${c.clinicId}::uuid and appointment_id = ${paulaNew.id}::uuid`,
      ),
    );
    expect(paulaMessage?.to).toBe(paula.email);

    // One audit entry for the run, with its counts, and none of the values.
    const audits = await retentionAudits(c.clinicId);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      resourceType: "clinic",
      resourceId: c.clinicId,
      userEmail: "system",
      details: { retention_days: 60, cutoff: cutoff.toISOString(), counts: run?.counts, complete: true },
    });
    const listed = await c.asAdmin.audit.list({ clinic_id: c.clinicId, resource_type: "clinic" });
    expect(listed.entries.map((e) => e.action)).toEqual(["RETENTION_APPLIED"]);

    // Again: nothing left to do, nothing changes; the run is still recorded, with zeros.
    const again = await runOnce(c.clinicId);
    expect(again.run?.counts).toEqual({
      appointments: 0,
      messages: 0,
      waitlist_entries: 0,
      events: 0,
      deliveries: 0,
      audit_entries: 0,
    });
    expect(await appointmentRows([...oldIds, ...newIds])).toEqual(after);
    expect(await rowsOfClinic(c.clinicId).then((l) => l.filter((x) => !x.startsWith("audit_log:")))).toEqual(
      lines.filter((x) => !x.startsWith("audit_log:")),
    );
    expect(await retentionAudits(c.clinicId)).toHaveLength(2);

    // An erasure of Paula later gives the pseudonym her old appointments already carry.
    const erased = await c.asAdmin.patientData.erase({ clinic_id: c.clinicId, email: paula.email, reason: "Art. 17" });
    expect(erased.pseudonym).toBe(expectedName.get(paulaOld.id));
  });

  it("works in batches, each its own call, and goes on where the last stopped", async () => {
    const c = await retainingClinic(30);
    const ids: string[] = [];
    for (let day = 15; day <= 19; day++)
      for (const hour of ["09", "10"])
        ids.push(
          (
            await c.desk.appointments.book({
              clinic_id: c.clinicId,
              service_id: c.service,
              start: at(`2027-03-${String(day)}T${hour}:00:00Z`),
              patient: { name: `Batch ${String(day)}${hour}`, email: `batch.${String(day)}${hour}@example.test` },
              notes: "batch note",
            })
          ).id,
        );
    const { run } = await runOnce(c.clinicId, { batchSize: 3 });
    // 10 appointments in batches of 3: 3, 3, 3, 1.
    expect(run).toMatchObject({ complete: true, batches: 4 });
    expect(run?.counts.appointments).toBe(10);
    const rows = await appointmentRows(ids);
    expect([...rows.values()].every((r) => r.patientName.startsWith("erased-") && r.notes === null)).toBe(true);
    expect(await retentionAudits(c.clinicId)).toHaveLength(1);
  });

  it("stops at its time budget between batches and goes on a second later, one audit entry per run", async () => {
    const c = await retainingClinic(30);
    for (let day = 15; day <= 19; day++)
      await c.desk.appointments.book({
        clinic_id: c.clinicId,
        service_id: c.service,
        start: at(`2027-03-${String(day)}T09:00:00Z`),
        patient: { name: `Budget ${String(day)}`, phone_e164: `+49301234560${String(day)}` },
      });
    let total = 0;
    let runs = 0;
    for (;;) {
      const { repeat, run } = await runOnce(c.clinicId, { batchSize: 2, budgetMs: 0 });
      runs += 1;
      total += run?.counts.appointments ?? 0;
      if (run?.complete) break;
      expect(run?.batches).toBe(1);
      expect(repeat).toEqual({ repeatAt: new Date(runAt.getTime() + 1000) });
      expect(runs).toBeLessThan(10);
    }
    // 2 + 2 + 1, and the run that finds the last batch short is complete.
    expect(total).toBe(5);
    expect(runs).toBe(3);
    expect(await retentionAudits(c.clinicId)).toHaveLength(3);
  });

  it("takes a note added after pseudonymization on the next run, under the pseudonym the row carries", async () => {
    const c = await retainingClinic();
    const booked = await c.desk.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Nameonly Patient" },
      notes: "first note",
    });
    await runOnce(c.clinicId);
    const pseudonym = (await appointmentRows([booked.id])).get(booked.id)?.patientName;
    expect(pseudonym).toBe(pseudonymOf(undefined, c.clinicId, `appointment:${booked.id}`));
    await t.db.update(appointments).set({ notes: "late note" }).where(eq(appointments.id, booked.id));
    const { run } = await runOnce(c.clinicId);
    expect(run?.counts.appointments).toBe(1);
    expect((await appointmentRows([booked.id])).get(booked.id)).toMatchObject({ patientName: pseudonym, notes: null });
  });

  it("ends the job when the clinic keeps data again, and keeps everything meanwhile", async () => {
    const c = await retainingClinic(null);
    const booked = await c.desk.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Kept Patient", email: "kept@example.test" },
    });
    const { repeat, run } = await runOnce(c.clinicId);
    expect(repeat).toBeUndefined();
    expect(run).toBeUndefined();
    expect((await appointmentRows([booked.id])).get(booked.id)?.patientName).toBe("Kept Patient");
    expect(await retentionAudits(c.clinicId)).toEqual([]);
  });
});

describe("the retention setting and its job", () => {
  const jobOf = async (clinicId: string) =>
    (
      await t.db
        .select()
        .from(jobs)
        .where(and(eq(jobs.clinicId, clinicId), eq(jobs.queue, queueNames.patientRetention)))
    )[0];

  it("takes null or 30–3650 days; a period starts the clinic's one job now, null removes it", async () => {
    const c = await bookableClinic(t.db);
    expect((await c.asAdmin.clinics.get({ clinic_id: c.clinicId })).retention_days).toBeNull();
    for (const days of [29, 3651, 0, -1, 45.5])
      expect(
        await codeOf(c.asAdmin.clinics.update({ clinic_id: c.clinicId, retention_days: days })),
        String(days),
      ).toBe("VALIDATION_FAILED");
    expect(await codeOf(c.asStaff.clinics.update({ clinic_id: c.clinicId, retention_days: 30 }))).toBe("FORBIDDEN");
    expect(await jobOf(c.clinicId)).toBeUndefined();

    expect((await c.asAdmin.clinics.update({ clinic_id: c.clinicId, retention_days: 30 })).retention_days).toBe(30);
    const job = await jobOf(c.clinicId);
    expect(job).toMatchObject({ jobId: retentionJobId(c.clinicId), data: { clinicId: c.clinicId }, failedAt: null });
    expect((await c.asAdmin.clinics.update({ clinic_id: c.clinicId, retention_days: 3650 })).retention_days).toBe(3650);
    expect(
      await t.db
        .select()
        .from(jobs)
        .where(and(eq(jobs.clinicId, c.clinicId), eq(jobs.queue, queueNames.patientRetention))),
    ).toHaveLength(1);
    expect((await c.asAdmin.clinics.get({ clinic_id: c.clinicId })).retention_days).toBe(3650);

    expect((await c.asAdmin.clinics.update({ clinic_id: c.clinicId, retention_days: null })).retention_days).toBeNull();
    expect(await jobOf(c.clinicId)).toBeUndefined();

    const admin = callerFor(t.db, await createUser(t.db, { admin: true }));
    const created = await admin.clinics.create({ name: "Retaining", retention_days: 365 });
    expect(created.retention_days).toBe(365);
    expect(await jobOf(created.id)).toMatchObject({ jobId: retentionJobId(created.id) });
    expect(await codeOf(admin.clinics.create({ name: "Too short", retention_days: 7 }))).toBe("VALIDATION_FAILED");
  });

  it("runs through the queue and stays queued for the next day; a missing or failed job is restarted", async () => {
    const c = await retainingClinic(null);
    await c.desk.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Queued Patient", email: "queued@example.test" },
      notes: "queued note",
    });
    await c.asAdmin.clinics.update({ clinic_id: c.clinicId, timezone: "Europe/Berlin", retention_days: 60 });
    const runs: RetentionRun[] = [];
    const handler = (job: { data: object }) =>
      runRetention(
        t.db,
        { key: undefined, now: () => runAt, onRun: (r) => runs.push(r) },
        job.data as { clinicId: string },
      );
    await runDueJobs(t.db, new Map([[queueNames.patientRetention, handler]]));
    const mine = runs.filter((r) => r.clinicId === c.clinicId);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.counts.appointments).toBe(1);
    // Still queued, for 03:00 in Berlin the next day.
    expect(await jobOf(c.clinicId)).toMatchObject({
      runAt: at("2027-06-16T01:00:00.000Z"),
      attempts: 0,
      leaseId: null,
    });

    // A job that failed through all its attempts is revived; a missing one is written again.
    await t.db
      .update(jobs)
      .set({ failedAt: new Date(), lastError: "the database was away" })
      .where(and(eq(jobs.clinicId, c.clinicId), eq(jobs.queue, queueNames.patientRetention)));
    expect(await ensureRetentionJobs(t.db)).toBeGreaterThanOrEqual(1);
    expect(await jobOf(c.clinicId)).toMatchObject({ failedAt: null, attempts: 0 });
    await t.db.delete(jobs).where(and(eq(jobs.clinicId, c.clinicId), eq(jobs.queue, queueNames.patientRetention)));
    await ensureRetentionJobs(t.db);
    expect(await jobOf(c.clinicId)).toMatchObject({ jobId: retentionJobId(c.clinicId) });
    // A live one is left alone.
    const live = await jobOf(c.clinicId);
    await ensureRetentionJobs(t.db);
    expect(await jobOf(c.clinicId)).toEqual(live);
  });

  it("runs daily at the clinic's local 03:00", () => {
    expect(nextDailyRun(at("2027-06-15T12:00:00Z"), "Europe/Berlin")).toEqual(at("2027-06-16T01:00:00Z"));
    expect(nextDailyRun(at("2027-06-15T00:30:00Z"), "Europe/Berlin")).toEqual(at("2027-06-15T01:00:00Z"));
    // Exactly 03:00 (CET): the next day's.
    expect(nextDailyRun(at("2027-01-15T02:00:00Z"), "Europe/Berlin")).toEqual(at("2027-01-16T02:00:00Z"));
    expect(nextDailyRun(at("2027-06-15T03:00:00Z"), "UTC")).toEqual(at("2027-06-16T03:00:00Z"));
    expect(nextDailyRun(at("2027-06-15T06:59:00Z"), "America/New_York")).toEqual(at("2027-06-15T07:00:00Z"));
  });
});
