import { randomUUID } from "node:crypto";
import { type SQL, and, eq, inArray, sql } from "drizzle-orm";
import { type Db, jobs, rowsOf } from "@clinic/db";

/**
 * The job queue (docs/jobs.md): one table, `jobs`, on the clinic's shard. A change writes its jobs
 * in its own transaction (here with `enqueue`, or inside a database function), so a job exists
 * exactly when its change does; workers consume them from the same rows. A worker claims a
 * clinic's due jobs by lease (`clinic_claim_jobs`: FOR UPDATE SKIP LOCKED, so two processes never
 * claim one job), runs them, and deletes them — or, when a handler threw, makes them due again
 * after the backoff, and `failed` after the last attempt. A process that dies mid-run leaves its
 * jobs leased; when the lease runs out they are due again (at least once, never twice at once
 * while a run can last: the lease outlasts every handler's own timeout).
 */

export const queueNames = {
  webhookDelivery: "webhook-delivery",
  reminderSweep: "reminder-sweep",
  confirmationExpiry: "confirmation-expiry",
  messageSend: "message-send",
  calendarSync: "calendar-sync",
  calendarWriteBack: "calendar-write-back",
  patientRetention: "patient-retention",
} as const;
export type QueueName = (typeof queueNames)[keyof typeof queueNames];

export interface Job<T> {
  id: string;
  data: T;
  /** 1 for the first attempt. */
  attempt: number;
}

/** How jobs are retried and leased (docs/jobs.md#retries). */
export interface RetryPolicy {
  /** Attempts after the first when a handler throws (default 5). */
  retryLimit: number;
  /** Seconds before the first retry, doubled for each next one (default 5: 5, 10, 20, 40, 80 s). */
  retryDelayS: number;
  /**
   * Seconds a claimed job is reserved for the claim (default 120). It must outlast every handler's
   * own timeout (a webhook's 10 s, an SMTP send's 15 s): a job runs again only after its lease.
   */
  leaseS: number;
}

export const defaultRetryPolicy: RetryPolicy = { retryLimit: 5, retryDelayS: 5, leaseS: 120 };

/**
 * Enqueues a job in `tx`, the transaction of the change that causes it: a row of `jobs` on the
 * clinic's shard, due at `startAfter` (default now). Answers the job's id.
 */
export async function enqueue(
  tx: Db,
  clinicId: string,
  queue: QueueName,
  data: object,
  options: { startAfter?: Date | undefined } = {},
): Promise<string> {
  const jobId = randomUUID();
  await tx.insert(jobs).values({
    clinicId,
    jobId,
    queue,
    data: { ...data },
    ...(options.startAfter ? { runAt: options.startAfter } : {}),
  });
  return jobId;
}

/** Deletes jobs of the clinic, in `tx`. A job running now finds it has nothing to do (every handler re-reads its row). */
export async function cancelJobs(tx: Db, clinicId: string, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await tx.delete(jobs).where(and(eq(jobs.clinicId, clinicId), inArray(jobs.jobId, [...ids])));
}

/** A claim: the jobs of one clinic leased together, and the lease that alone may finish them. */
interface Claim {
  clinicId: string;
  lease: string;
  jobs: { id: string; queue: QueueName; data: object; attempt: number }[];
}

/**
 * Clinics with due jobs, the longest-waiting first (one statement over every shard), by
 * `jobs_due_idx`, an index on `run_at at time zone 'UTC'` that only this statement and /metrics use.
 */
async function clinicsWithDueJobs(db: Db, queues: readonly string[], limit: number): Promise<string[]> {
  return (await lookForWork(db, queues, limit, undefined)).clinics;
}

const dueClinicsSql = (queues: readonly string[], limit: number) => sql`
  select clinic_id from ${jobs}
  where failed_at is null and (run_at at time zone 'UTC') <= (now() at time zone 'UTC')
    and (leased_until is null or leased_until <= now()) and queue = any (${sql.param(queues)}::text[])
  group by clinic_id order by min(run_at) limit ${limit}`;

/**
 * The look: clinics with due jobs and, in the same statement, what a companion looks for (rows
 * `clinic_id, id` of its query; UNION ALL, on Citus two distributed subplans of one statement), so
 * an idle process sends one statement a poll, not one per kind of work.
 */
async function lookForWork(
  db: Db,
  queues: readonly string[],
  limit: number,
  companion: SQL | undefined,
): Promise<{ clinics: string[]; found: { clinicId: string; id: string }[] }> {
  const rows = rowsOf<{ clinic_id: string; id: string | null }>(
    await db.execute(
      companion
        ? sql`select clinic_id, null::uuid as id from (${dueClinicsSql(queues, limit)}) due
              union all select clinic_id, id from (${companion}) companion`
        : sql`select clinic_id, null::uuid as id from (${dueClinicsSql(queues, limit)}) due`,
    ),
  );
  return {
    clinics: rows.flatMap((r) => (r.id === null ? [r.clinic_id] : [])),
    found: rows.flatMap((r) => (r.id === null ? [] : [{ clinicId: r.clinic_id, id: r.id }])),
  };
}

/**
 * Background work of a process outside the queue (the webhooks' feed) that the workers' look finds
 * for it: its query answers `clinic_id, id` rows of what is waiting, at most `limit`; `found` takes
 * them; `stop` stops it with the workers.
 */
export interface LookCompanion {
  /** What is waiting, at most `limit` rows `clinic_id, id`. */
  query(limit: number): SQL;
  /** How many rows it can take now (0: it is left out of the look). */
  room(): number;
  found(rows: readonly { clinicId: string; id: string }[]): void;
  stop(): Promise<void>;
}

/** Leases up to `limit` due jobs of one clinic (one statement, delegated to the clinic's node on Citus). */
async function claim(
  db: Db,
  clinicId: string,
  queues: readonly string[],
  limit: number,
  policy: RetryPolicy,
): Promise<Claim> {
  const [row] = rowsOf<{ claim: { lease: string; jobs: Claim["jobs"] } }>(
    await db.execute(
      sql`select clinic_claim_jobs(${clinicId}::uuid, ${sql.param(queues)}::text[], ${limit}::int, ${policy.leaseS}::int, ${policy.retryLimit + 1}::int) as claim`,
    ),
  );
  return { clinicId, lease: row?.claim.lease ?? "", jobs: row?.claim.jobs ?? [] };
}

/** Deletes the claim's jobs that ran (still under this lease: one whose lease ran out belongs to a later claim). */
async function complete(db: Db, claimed: Claim, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  // One array parameter, so that every completion is the same prepared statement.
  await db
    .delete(jobs)
    .where(
      and(
        eq(jobs.clinicId, claimed.clinicId),
        eq(jobs.leaseId, claimed.lease),
        sql`${jobs.jobId} = any (${sql.param(ids)}::uuid[])`,
      ),
    );
}

/**
 * A job whose handler threw at attempt `attempt`: due again after the backoff, or failed after its
 * last attempt. The delay is computed here from the claim's attempt number: Citus refuses a stable
 * function (now()) next to a column in an UPDATE's SET.
 */
async function fail(
  db: Db,
  claimed: Claim,
  job: { id: string; attempt: number },
  error: string,
  policy: RetryPolicy,
): Promise<void> {
  const last = job.attempt >= policy.retryLimit + 1;
  const delayS = policy.retryDelayS * 2 ** Math.max(job.attempt - 1, 0);
  await db
    .update(jobs)
    .set({
      leaseId: null,
      leasedUntil: null,
      lastError: error.slice(0, 1000),
      runAt: sql`now() + make_interval(secs => ${delayS}::float8)`,
      failedAt: last ? sql`now()` : null,
    })
    .where(and(eq(jobs.clinicId, claimed.clinicId), eq(jobs.jobId, job.id), eq(jobs.leaseId, claimed.lease)));
}

/**
 * A recurring job's outcome (a calendar's sync, docs/jobs.md#recurring-jobs): it ran, and its row
 * stays, due again at `repeatAt` with its attempts reset — one row per recurring task, so that one
 * run of it at a time is the queue's lease, on any number of processes. `data`, when given, is the
 * job's data from then on (what the next run starts from: a clinic's reminder sweep keeps where it
 * got to), written in the same statement.
 */
export interface Repeat {
  repeatAt: Date;
  data?: object | undefined;
}

/** What a job's run came to: null (done: the row goes), an error (retried), or a repeat. */
export type Outcome = Error | Repeat | null;

/** A handler of one job: a recurring job's answers its Repeat; whatever else it answers is ignored. */
type Handler = (job: Job<object>) => Promise<unknown>;

const isRepeat = (value: unknown): value is Repeat =>
  typeof value === "object" && value !== null && "repeatAt" in value && value.repeatAt instanceof Date;

/**
 * A queue's handler of a claim's jobs of that queue (one clinic's), run together: it answers, for
 * each job in order, null when the job ran, why it failed (the job is then retried), or when it
 * runs again. A handler of one job at a time is one of these too (`eachJob`).
 */
export type BatchHandler<T extends object = object> = (jobs: readonly Job<T>[]) => Promise<readonly Outcome[]>;

const asError = (reason: unknown) => (reason instanceof Error ? reason : new Error(String(reason)));

/**
 * What a failed job keeps of its error: the first line of the database's own message when a query
 * failed (a query error's own message carries the statement and its parameters, which may hold a
 * patient's data), else of the error's.
 */
function errorText(error: Error): string {
  const text = error.cause instanceof Error ? error.cause.message : error.message;
  return text.split("\n", 1)[0] ?? "";
}

/** The batch handler that runs `handler` for each job, all at once. */
function eachJob(handler: Handler): BatchHandler {
  return async (list) =>
    (await Promise.allSettled(list.map((job) => handler(job)))).map((outcome) =>
      outcome.status === "fulfilled" ? (isRepeat(outcome.value) ? outcome.value : null) : asError(outcome.reason),
    );
}

/** Makes a claim's recurring job due again at its time, attempts reset, with its new data if any (still under this lease). */
async function repeat(db: Db, claimed: Claim, jobId: string, next: Repeat): Promise<void> {
  await db
    .update(jobs)
    .set({
      leaseId: null,
      leasedUntil: null,
      lastError: null,
      attempts: 0,
      runAt: next.repeatAt,
      ...(next.data ? { data: { ...next.data } } : {}),
    })
    .where(and(eq(jobs.clinicId, claimed.clinicId), eq(jobs.jobId, jobId), eq(jobs.leaseId, claimed.lease)));
}

/**
 * Makes a recurring job due now, or writes it when it is missing (`data` then): a job that is
 * running keeps its run, whose outcome sets its next time. In `tx`.
 */
export async function runRecurringNow(
  tx: Db,
  clinicId: string,
  jobId: string,
  queue: QueueName,
  data: object,
): Promise<void> {
  await tx.execute(sql`
    insert into ${jobs} (clinic_id, job_id, queue, data) values (${clinicId}, ${jobId}, ${queue}, ${JSON.stringify(data)}::jsonb)
    on conflict (clinic_id, job_id) do update set run_at = excluded.run_at, attempts = 0, failed_at = null
    where ${jobs}.leased_until is null or ${jobs}.leased_until <= excluded.run_at`);
}

export interface JobWorkerOptions {
  /** How often an idle process looks for due jobs (default 250 ms). */
  pollIntervalMs?: number | undefined;
  /** Jobs claimed from one clinic at once (default 20). */
  batchSize?: number;
  /** Jobs this process runs at once, over all clinics (default 100). */
  maxRunning?: number;
  retry?: Partial<RetryPolicy> | undefined;
  onError?: ((error: Error) => void) | undefined;
}

/** Runs due jobs of `queues` once: claims from up to `clinics` clinics and waits for the handlers. Tests use it. */
export async function runDueJobs(
  db: Db,
  handlers: ReadonlyMap<string, Handler>,
  options: { clinics?: number; batchSize?: number; retry?: Partial<RetryPolicy> } = {},
): Promise<number> {
  const policy = { ...defaultRetryPolicy, ...options.retry };
  const batchHandlers = new Map([...handlers].map(([queue, handler]) => [queue, eachJob(handler)]));
  const queues = [...handlers.keys()];
  let ran = 0;
  for (const clinicId of await clinicsWithDueJobs(db, queues, options.clinics ?? 50)) {
    const claimed = await claim(db, clinicId, queues, options.batchSize ?? 20, policy);
    ran += claimed.jobs.length;
    await runClaim(db, claimed, batchHandlers, policy);
  }
  return ran;
}

/**
 * Runs a claim's jobs, each queue's together through its handler, then deletes those that ran in
 * one statement and fails the others.
 */
async function runClaim(
  db: Db,
  claimed: Claim,
  handlers: ReadonlyMap<string, BatchHandler>,
  policy: RetryPolicy,
): Promise<void> {
  const byQueue = new Map<string, Claim["jobs"]>();
  for (const job of claimed.jobs) byQueue.set(job.queue, [...(byQueue.get(job.queue) ?? []), job]);
  const failed = new Map<string, Error>();
  const repeats = new Map<string, Repeat>();
  await Promise.all(
    [...byQueue].map(async ([queue, list]) => {
      const handler = handlers.get(queue);
      let errors: readonly Outcome[];
      try {
        if (!handler) throw new Error(`no handler for the queue ${queue}`);
        errors = await handler(list.map((job) => ({ id: job.id, data: job.data, attempt: job.attempt })));
      } catch (error) {
        errors = list.map(() => asError(error));
      }
      list.forEach((job, i) => {
        const outcome = i < errors.length ? errors[i] : new Error("the handler gave no outcome");
        if (outcome instanceof Error) failed.set(job.id, outcome);
        else if (outcome) repeats.set(job.id, outcome);
      });
    }),
  );
  await complete(
    db,
    claimed,
    claimed.jobs.filter((job) => !failed.has(job.id) && !repeats.has(job.id)).map((job) => job.id),
  );
  for (const [jobId, next] of repeats) await repeat(db, claimed, jobId, next);
  for (const job of claimed.jobs) {
    const error = failed.get(job.id);
    if (error) await fail(db, claimed, job, errorText(error), policy);
  }
}

/**
 * The workers of one process: one loop that looks for clinics with due jobs, claims a batch from
 * each while it has room, and runs them, each claim on its own; a full batch, or a claim finishing,
 * looks again at once, otherwise every poll interval. Several processes share the work through
 * their leases.
 */
export class JobWorkers {
  private readonly handlers = new Map<string, BatchHandler>();
  private readonly policy: RetryPolicy;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly maxRunning: number;
  private running = 0;
  private readonly claims = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private again = false;
  private stopping = false;
  private readonly repeating: { handle: NodeJS.Timeout | undefined; running: Promise<unknown> }[] = [];
  private companion: LookCompanion | undefined;

  constructor(
    private readonly database: { db: Db },
    private readonly options: JobWorkerOptions = {},
  ) {
    this.policy = { ...defaultRetryPolicy, ...options.retry };
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.batchSize = options.batchSize ?? 20;
    this.maxRunning = options.maxRunning ?? 100;
  }

  /** Runs `handler` for each job of `queue`; a throwing handler fails the job (retried by the policy). */
  work<T extends object>(queue: QueueName, handler: (job: Job<T>) => Promise<unknown>): void {
    // The queue's jobs carry what its writer put there (T): the one place the type is asserted.
    this.workBatches(queue, eachJob(handler as Handler));
  }

  /**
   * Runs `handler` for the jobs of `queue` that one claim took (one clinic's), together: one read
   * and one write for all of them instead of one each. It answers each job's outcome in order.
   */
  workBatches<T extends object>(queue: QueueName, handler: BatchHandler<T>): void {
    this.handlers.set(queue, handler as BatchHandler);
    this.schedule(0);
  }

  private report(error: unknown): void {
    this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    if (this.looking) {
      // A look is under way: it looks again when done.
      if (delayMs === 0) this.again = true;
      return;
    }
    if (this.timer) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.look();
    }, delayMs);
  }

  /** One look: claims from clinics with due jobs while there is room, starting each claim's run. */
  private look(): void {
    this.again = false;
    this.looking = (async () => {
      let full = false;
      const queues = [...this.handlers.keys()];
      const companionRoom = this.companion?.room() ?? 0;
      const jobRoom = queues.length > 0 && this.running < this.maxRunning;
      if (!jobRoom && companionRoom <= 0) return;
      const { clinics, found } = await lookForWork(
        this.database.db,
        queues,
        jobRoom ? 50 : 0,
        companionRoom > 0 ? this.companion?.query(companionRoom) : undefined,
      );
      if (found.length > 0) this.companion?.found(found);
      // More clinics (or webhooks) may be waiting than one look takes.
      if (clinics.length >= 50 || (companionRoom > 0 && found.length >= companionRoom)) full = true;
      for (const clinicId of clinics) {
        const room = Math.min(this.batchSize, this.maxRunning - this.running);
        if (room <= 0 || this.stopping) break;
        const claimed = await claim(this.database.db, clinicId, queues, room, this.policy);
        if (claimed.jobs.length === 0) continue;
        if (claimed.jobs.length >= room) full = true;
        this.running += claimed.jobs.length;
        const run: Promise<void> = runClaim(this.database.db, claimed, this.handlers, this.policy)
          .catch((error: unknown) => {
            this.report(error);
          })
          .finally(() => {
            this.running -= claimed.jobs.length;
            this.claims.delete(run);
            // Room again: look at once if the last look left jobs behind.
            if (full) this.schedule(0);
          });
        this.claims.add(run);
      }
      if (full) this.again = true;
    })()
      .catch((error: unknown) => {
        this.report(error);
      })
      .finally(() => {
        this.looking = undefined;
        this.schedule(this.again && this.running < this.maxRunning ? 0 : this.pollIntervalMs);
      });
  }

  /**
   * Runs `task` every `intervalMs` (the first run at once), one run at a time, until `stop()`; a
   * failing run is reported through `onError` and the next one runs as planned.
   */
  runEvery(intervalMs: number, task: () => Promise<unknown>): void {
    const timer: { handle: NodeJS.Timeout | undefined; running: Promise<unknown> } = {
      handle: undefined,
      running: Promise.resolve(),
    };
    const round = () => {
      timer.running = task().catch((error: unknown) => {
        this.report(error);
      });
      void timer.running.finally(() => {
        if (timer.handle) timer.handle = setTimeout(round, intervalMs);
      });
    };
    timer.handle = setTimeout(round, 0);
    this.repeating.push(timer);
  }

  /**
   * Background work outside the queue (the webhooks' feed, docs/jobs.md#deliveries-from-the-feed)
   * that this loop's look finds too, in its one statement, and that stops with the workers.
   */
  alongside(companion: LookCompanion): void {
    this.companion = companion;
    this.schedule(0);
  }

  /**
   * Stops looking for jobs and waits for the running ones (each ends within its own timeout — an
   * SMTP send gives up after 15 s, a webhook delivery after 10 s), so that none writes through a
   * pool the caller closes next.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const timer of this.repeating.splice(0)) {
      clearTimeout(timer.handle);
      timer.handle = undefined;
      await timer.running;
    }
    const companion = this.companion?.stop();
    await this.looking;
    while (this.claims.size > 0) await Promise.all([...this.claims]);
    await companion;
  }
}

/** The queue's state for /metrics: due jobs, the oldest due job's wait and failed jobs, by queue. */
export async function jobQueueState(
  db: Db,
): Promise<{ queue: string; due: number; oldestDueAgeS: number; failed: number }[]> {
  const rows = rowsOf<{ queue: string; due: number; oldest_due_age_s: number | null; failed: number }>(
    await db.execute(sql`
      select queue, sum(due)::int as due, max(oldest_due_age_s)::float8 as oldest_due_age_s, sum(failed)::int as failed
      from (
        select queue, count(*) as due, extract(epoch from now() - min(run_at)) as oldest_due_age_s, 0 as failed
        from ${jobs} where failed_at is null and (run_at at time zone 'UTC') <= (now() at time zone 'UTC')
          and (leased_until is null or leased_until <= now())
        group by queue
        union all
        select queue, 0, null, count(*) from ${jobs} where failed_at is not null group by queue
      ) s group by queue order by queue`),
  );
  return rows.map((r) => ({
    queue: r.queue,
    due: r.due,
    oldestDueAgeS: Math.max(0, r.oldest_due_age_s ?? 0),
    failed: r.failed,
  }));
}
