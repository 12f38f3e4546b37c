// Appointment reminders, derived from the appointments (§10, docs/events.md#reminders): a booking
// writes nothing for them; each clinic's one recurring sweep finds what falls due by the
// appointments' start index and records each reminder once (clinic_due_reminders).
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, callClinicJsonFunction, clinics, jobs, rowsOf } from "@clinic/db";
import { type Repeat, cancelJobs, queueNames, runRecurringNow } from "../jobs/index.ts";

/** A clinic's reminder sweep: ids only, and the earliest moment its next run looks at (ISO). */
export interface ReminderSweepJob {
  clinicId: string;
  from?: string | undefined;
}

/**
 * How far back each complete sweep looks again: a booking whose transaction started before a
 * reminder's moment but commits after a sweep passed it is found by the next sweep within this
 * (docs/events.md#reminders).
 */
export const REMINDER_SLACK_MS = 60_000;

export interface ReminderSweepSettings {
  /** The clock that decides what is due (the workers' clock; tests pin it). */
  now: () => Date;
  /** How soon a sweep that finished runs again (default 15 s): reminders go out within this of their time. */
  intervalMs?: number | undefined;
  /** Reminders one page (one statement, one transaction) looks at (default 200). */
  pageSize?: number | undefined;
  /** Wall time after which a run stops between pages and goes on at once (default 10 s; below the job lease). */
  budgetMs?: number | undefined;
  /** Told of every run (/metrics, tests). */
  onRun?: ((run: ReminderSweepRun) => void) | undefined;
}

/** One run of one clinic's sweep. */
export interface ReminderSweepRun {
  clinicId: string;
  /** Reminders recorded by this run. */
  sent: number;
  /** Pages (statements) it took. */
  pages: number;
  /** False when it stopped at its time budget (it goes on at once). */
  complete: boolean;
}

const pageAnswer = z.object({
  offsets: z.number().int(),
  seen: z.number().int(),
  sent: z.number().int(),
  last: z.string().nullable(),
  /** After a page that saw everything due: when the next reminder falls due (null: none booked). */
  next: z.string().nullable().optional(),
});

/** The clinic's one reminder sweep's id: derived from the clinic's, so that there is one row at most (drizzle/0030 derives it alike). */
export function reminderSweepJobId(clinicId: string): string {
  const hex = createHash("sha256").update(`reminder-sweep:${clinicId.toLowerCase()}`).digest("hex");
  // Shaped as a version-5-like UUID (the job id column is a uuid).
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const sweepData = (clinicId: string, from: Date): ReminderSweepJob => ({ clinicId, from: from.toISOString() });

/**
 * Follows the clinic's `reminder_offsets_min` (C1, C4), in the transaction of the change: offsets
 * give the clinic its sweep (written due now, looking back from `now`, the writer's clock; one that
 * exists keeps where it got to), none removes it (a run under way finds no offsets and ends).
 */
export async function scheduleReminderSweep(
  tx: Db,
  clinicId: string,
  offsets: readonly number[],
  now: Date,
): Promise<void> {
  if (offsets.length === 0) await cancelJobs(tx, clinicId, [reminderSweepJobId(clinicId)]);
  else
    await runRecurringNow(
      tx,
      clinicId,
      reminderSweepJobId(clinicId),
      queueNames.reminderSweep,
      sweepData(clinicId, new Date(now.getTime() - REMINDER_SLACK_MS)),
    );
}

/**
 * Gives every clinic with reminder offsets a live sweep: writes a missing one and revives a failed
 * one (its attempts spent while the database was away), so that reminders never stop for good. The
 * workers run it when they start and hourly. Answers how many it (re)started.
 */
export async function ensureReminderSweeps(db: Db, now: Date): Promise<number> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      select c.id from ${clinics} c
      where cardinality(c.reminder_offsets_min) > 0
        and not exists (select 1 from ${jobs} j
                        where j.clinic_id = c.id and j.queue = ${queueNames.reminderSweep} and j.failed_at is null)`),
  );
  for (const row of rows)
    await runRecurringNow(
      db,
      row.id,
      reminderSweepJobId(row.id),
      queueNames.reminderSweep,
      sweepData(row.id, new Date(now.getTime() - REMINDER_SLACK_MS)),
    );
  return rows.length;
}

/**
 * One run of a clinic's sweep: pages through the reminders due from the job's `from` to now — each
 * page one call of clinic_due_reminders, which marks each sent and records its event in one
 * transaction — until fewer than a page are due or its time budget is spent. Answers when it runs
 * next and from where: at once from where it stopped, or after the interval from now less the
 * slack. Nothing when the clinic has no offsets any more (the job ends).
 */
export async function runReminderSweep(
  db: Db,
  settings: ReminderSweepSettings,
  job: ReminderSweepJob,
): Promise<Repeat | undefined> {
  const now = settings.now();
  /** The wall clock when `now` was read (the job's next run is wall time; a test's `now` may be pinned). */
  const startedAt = Date.now();
  const limit = settings.pageSize ?? 200;
  const deadline = performance.now() + (settings.budgetMs ?? 10_000);
  let from = job.from ? new Date(job.from) : new Date(now.getTime() - REMINDER_SLACK_MS);
  let sent = 0;
  let pages = 0;
  let complete = false;
  let next: Date | undefined;
  for (;;) {
    const page = pageAnswer.parse(
      await callClinicJsonFunction(db, "clinic_due_reminders", job.clinicId, {
        from: from.toISOString(),
        now: now.toISOString(),
        limit,
      }),
    );
    // No offsets any more (or no clinic): the sweep ends.
    if (page.offsets === 0) return undefined;
    pages += 1;
    sent += page.sent;
    if (page.seen < limit || page.last === null) {
      complete = true;
      if (page.next) next = new Date(page.next);
      break;
    }
    // The next page starts at the last one's moment (inclusive: others may share it; those sent
    // are passed over by their key).
    from = new Date(page.last);
    if (performance.now() >= deadline) break;
  }
  settings.onRun?.({ clinicId: job.clinicId, sent, pages, complete });
  const wall = Date.now();
  // After a complete run: again after the interval, or sooner when the next reminder falls due
  // sooner — but not within 5 s: each run looks back over the last minute (REMINDER_SLACK_MS), and
  // under CI's load on Citus runs a second apart cost more than they saved.
  const interval = settings.intervalMs ?? 15_000;
  const soonest = next ? Math.max(wall + 5_000, startedAt + (next.getTime() - now.getTime())) : Infinity;
  return complete
    ? {
        repeatAt: new Date(Math.min(wall + interval, soonest)),
        data: sweepData(job.clinicId, new Date(now.getTime() - REMINDER_SLACK_MS)),
      }
    : { repeatAt: new Date(wall), data: sweepData(job.clinicId, from) };
}
