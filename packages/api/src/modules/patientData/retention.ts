// Retention (§21, docs/patient-data.md#retention): a clinic with `retention_days` has one recurring
// job (docs/jobs.md#recurring-jobs) that pseudonymizes the appointments that ended longer ago than
// that, and what was copied from them, once a day at the clinic's local 03:00 (and at once when
// the setting is given or changed). A run reads the due appointments in batches (500, oldest
// first) and pseudonymizes them a few patients per call of clinic_retain — each call one short
// transaction on the clinic's shard, sized to take about a second — until nothing is left or its
// time budget is spent (then it runs again a second later), and leaves one RETENTION_APPLIED audit
// entry with its counts.
import { createHash, randomUUID } from "node:crypto";
import { and, eq, gt, lt, or, sql } from "drizzle-orm";
import { type Db, appointments, auditLog, callClinicJsonFunction, clinics, jobs, rowsOf } from "@clinic/db";
import { addDays, localDateOf, wallClockToInstant } from "../../domain/timezone.ts";
import { type Repeat, cancelJobs, queueNames, runRecurringNow } from "../jobs/index.ts";
import { identifierOf, pseudonymOf } from "./pseudonym.ts";
import { type ScrubCounts, scrubCounts } from "./counts.ts";

const DAY_MS = 86_400_000;
/** The clinic's local time of the daily run (minutes of the day): 03:00, when little else runs. */
const DAILY_AT_MIN = 180;
/** About how long one call of clinic_retain (one transaction) should take, and its most patients. */
const CALL_TARGET_MS = 1000;
const MAX_PER_CALL = 100;

/** A retention job's data: ids only. */
export interface RetentionJob {
  clinicId: string;
}

/** What a run (or a batch) pseudonymized: rows of each kind that lost personal values. */
export const retentionCounts = scrubCounts;
export type RetentionCounts = ScrubCounts;

/** One run of one clinic's retention, as /metrics hears of it. */
export interface RetentionRun {
  clinicId: string;
  cutoff: Date;
  counts: RetentionCounts;
  /** Calls of clinic_retain: transactions, each of a few patients' appointments. */
  batches: number;
  /** False when the run stopped at its time budget (it goes on a second later). */
  complete: boolean;
  /** When it ended (the job's clock). */
  at: Date;
}

export interface RetentionSettings {
  /** GUEST_ADDRESS_KEY, which keys the pseudonyms (the same as an erasure's). */
  key: string | undefined;
  /** The clock of the cutoff and the next run (tests pin it). */
  now: () => Date;
  /** Appointments per batch (default 500). */
  batchSize?: number | undefined;
  /** Wall time after which a run stops between batches and repeats a second later (default 20 s; below the job lease). */
  budgetMs?: number | undefined;
  /** Told of every run (/metrics). */
  onRun?: ((run: RetentionRun) => void) | undefined;
}

const zero = (): RetentionCounts => ({
  appointments: 0,
  messages: 0,
  waitlist_entries: 0,
  events: 0,
  deliveries: 0,
  audit_entries: 0,
});

/** The clinic's one retention job's id: derived from the clinic's, so that there is one row at most. */
export function retentionJobId(clinicId: string): string {
  const hex = createHash("sha256").update(`patient-retention:${clinicId.toLowerCase()}`).digest("hex");
  // Shaped as a version-5-like UUID (the job id column is a uuid).
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Follows a change of the clinic's `retention_days`, in the transaction of the change: a period
 * makes the job run now (and then daily); null removes it (a run under way finds no period and
 * ends).
 */
export async function scheduleRetention(tx: Db, clinicId: string, retentionDays: number | null): Promise<void> {
  if (retentionDays === null) await cancelJobs(tx, clinicId, [retentionJobId(clinicId)]);
  else
    await runRecurringNow(tx, clinicId, retentionJobId(clinicId), queueNames.patientRetention, {
      clinicId,
    } satisfies RetentionJob);
}

/**
 * Gives every clinic with a retention period a live job: writes a missing one and revives a failed
 * one (a handler that threw through all its attempts, say while the database was away), so that
 * retention never stops for good. The workers run it hourly. Answers how many it (re)started.
 */
export async function ensureRetentionJobs(db: Db): Promise<number> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      select c.id from ${clinics} c
      where c.retention_days is not null
        and not exists (select 1 from ${jobs} j
                        where j.clinic_id = c.id and j.queue = ${queueNames.patientRetention} and j.failed_at is null)`),
  );
  for (const row of rows)
    await runRecurringNow(db, row.id, retentionJobId(row.id), queueNames.patientRetention, {
      clinicId: row.id,
    } satisfies RetentionJob);
  return rows.length;
}

/** The next daily run: the clinic's next local 03:00 after `now`. */
export function nextDailyRun(now: Date, timeZone: string): Date {
  const today = localDateOf(now.getTime(), timeZone);
  const at = wallClockToInstant(today, DAILY_AT_MIN, timeZone);
  return new Date(at > now.getTime() ? at : wallClockToInstant(addDays(today, 1), DAILY_AT_MIN, timeZone));
}

interface BatchRow {
  id: string;
  startsAt: Date;
  name: string;
  userId: string | null;
  email: string | null;
  phone: string | null;
}

/** The identifier a patient's pseudonym is keyed by: the one an erasure would use first. */
function identifierOfRow(row: BatchRow) {
  if (row.userId) return identifierOf({ patient_user_id: row.userId });
  if (row.email) return identifierOf({ email: row.email });
  if (row.phone) return identifierOf({ phone_e164: row.phone });
  // Neither an account nor an address: nothing ties it to another appointment; its own pseudonym.
  return `appointment:${row.id}`;
}

/**
 * The pseudonym of a row's patient: the one the row already carries when a note or an answer was
 * added to it after it was pseudonymized (it then has no address left to key one by), else the
 * keyed hash of its identifier.
 */
function pseudonymOfRow(row: BatchRow, key: string | undefined, clinicId: string, identifier: string) {
  if (!row.userId && !row.email && !row.phone && /^erased-[0-9a-f]{8}$/.test(row.name)) return row.name;
  return pseudonymOf(key, clinicId, identifier);
}

/** One group per patient, with the pseudonym (a keyed hash, computed here) and a new manage key. */
function groupsOf(rows: readonly BatchRow[], key: string | undefined, clinicId: string) {
  const groups = new Map<string, { pseudonym: string; manage_key: string; appointment_ids: string[] }>();
  for (const row of rows) {
    const identifier = identifierOfRow(row);
    let group = groups.get(identifier);
    if (!group) {
      // The new manage key is known to nobody: the appointments' links die.
      group = {
        pseudonym: pseudonymOfRow(row, key, clinicId, identifier),
        manage_key: randomUUID(),
        appointment_ids: [],
      };
      groups.set(identifier, group);
    }
    group.appointment_ids.push(row.id);
  }
  return groups;
}

/** Appointments with personal values still present (what clinic_scrub_patient leaves is none). */
const holdsPersonalValues = sql`(${appointments.patientName} not like 'erased-%' or ${appointments.patientEmail} is not null
  or ${appointments.patientPhoneE164} is not null or ${appointments.notes} is not null
  or ${appointments.answers} <> '[]'::jsonb or ${appointments.patientUserId} is not null
  or ${appointments.guestAddressHash} is not null)`;

/**
 * The next batch of appointments that ended before the cutoff and still hold personal values, in
 * (start, id) order after `after` — each batch of a run goes on where the last stopped, so a run
 * reads the clinic's old appointments once (by appointments_clinic_start_idx: an appointment that
 * ended before the cutoff started before it).
 */
async function nextBatch(
  db: Db,
  clinicId: string,
  cutoff: Date,
  after: { startsAt: Date; id: string } | undefined,
  limit: number,
): Promise<BatchRow[]> {
  return db
    .select({
      id: appointments.id,
      startsAt: appointments.startsAt,
      name: appointments.patientName,
      userId: appointments.patientUserId,
      email: appointments.patientEmail,
      phone: appointments.patientPhoneE164,
    })
    .from(appointments)
    .where(
      and(
        eq(appointments.clinicId, clinicId),
        lt(appointments.startsAt, cutoff),
        lt(appointments.endsAt, cutoff),
        holdsPersonalValues,
        after
          ? or(
              gt(appointments.startsAt, after.startsAt),
              and(eq(appointments.startsAt, after.startsAt), gt(appointments.id, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(appointments.startsAt, appointments.id)
    .limit(limit);
}

/**
 * One run of a clinic's retention job. Answers when it runs next (nothing when the clinic has no
 * retention period any more: the job ends).
 */
export async function runRetention(
  db: Db,
  settings: RetentionSettings,
  job: RetentionJob,
): Promise<Repeat | undefined> {
  const [clinic] = await db
    .select({ retentionDays: clinics.retentionDays, timezone: clinics.timezone })
    .from(clinics)
    .where(eq(clinics.id, job.clinicId));
  if (!clinic || clinic.retentionDays === null) return undefined;
  const now = settings.now();
  const cutoff = new Date(now.getTime() - clinic.retentionDays * DAY_MS);
  const batchSize = settings.batchSize ?? 500;
  const deadline = performance.now() + (settings.budgetMs ?? 20_000);
  const counts = zero();
  let batches = 0;
  let complete = false;
  let after: { startsAt: Date; id: string } | undefined;
  // Patients per call of clinic_retain, sized from the last call so that each takes about
  // CALL_TARGET_MS: a call's cost is its patients times the clinic's copies (clinic_scrub_patient
  // looks through the clinic's events and messages once per patient).
  let perCall = 10;
  run: for (;;) {
    const rows = await nextBatch(db, job.clinicId, cutoff, after, batchSize);
    if (rows.length === 0) {
      complete = true;
      break;
    }
    const groups = [...groupsOf(rows, settings.key, job.clinicId).values()];
    for (let done = 0; done < groups.length;) {
      const part = groups.slice(done, done + perCall);
      const started = performance.now();
      const answer = retentionCounts.parse(
        await callClinicJsonFunction(db, "clinic_retain", job.clinicId, {
          cutoff: cutoff.toISOString(),
          now: now.toISOString(),
          groups: part,
        }),
      );
      const tookMs = Math.max(1, performance.now() - started);
      perCall = Math.max(1, Math.min(MAX_PER_CALL, Math.floor((part.length * CALL_TARGET_MS) / tookMs)));
      for (const kind of Object.keys(counts) as (keyof RetentionCounts)[]) counts[kind] += answer[kind];
      batches += 1;
      done += part.length;
      // Out of time: the next run starts over from the oldest (what is done no longer qualifies).
      if (performance.now() >= deadline && (done < groups.length || rows.length === batchSize)) break run;
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < batchSize) {
      complete = true;
      break;
    }
    after = { startsAt: last.startsAt, id: last.id };
  }
  // One audit entry per run, with its counts (also when there was nothing to do: the trail shows
  // that retention ran).
  await db.insert(auditLog).values({
    clinicId: job.clinicId,
    action: "RETENTION_APPLIED",
    resourceType: "clinic",
    resourceId: job.clinicId,
    userEmail: "system",
    details: { retention_days: clinic.retentionDays, cutoff: cutoff.toISOString(), counts, complete },
  });
  settings.onRun?.({ clinicId: job.clinicId, cutoff, counts, batches, complete, at: now });
  return { repeatAt: complete ? nextDailyRun(now, clinic.timezone) : new Date(now.getTime() + 1000) };
}
