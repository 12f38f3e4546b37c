import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import PgBoss from "pg-boss";
import { type Db, type DbHandle, executePositional, outbox, pgErrorInfo, rowsOf } from "@clinic/db";

/**
 * The durable job queue (docs/events.md#jobs): pg-boss on the service's own database — PGlite or
 * PostgreSQL — through the service's own connection, so a job is enqueued in the transaction of
 * the change that causes it and exists exactly when the change does. pg-boss hands each job to
 * one worker (SKIP LOCKED), whichever process polls.
 */

const schema = "pgboss";

export const queueNames = {
  webhookDelivery: "webhook-delivery",
  appointmentReminder: "appointment-reminder",
  confirmationExpiry: "confirmation-expiry",
  messageSend: "message-send",
} as const;
export type QueueName = (typeof queueNames)[keyof typeof queueNames];

export interface Job<T> {
  id: string;
  data: T;
}

type Database = Pick<DbHandle, "db" | "execScript">;

/** pg-boss's view of a database: statements with `$n` parameters (and, to install itself, scripts). */
function adapter(db: Db, scripts?: Database): PgBoss.Db {
  return {
    // pg-boss calls it without values when it has none, whatever its types say.
    async executeSql(text: string, values?: unknown[]) {
      const parameters = values ?? [];
      // pg-boss's own migrations are scripts of several statements without parameters.
      if (scripts && parameters.length === 0 && /;\s*\S/.test(text)) {
        await scripts.execScript(text);
        return { rows: [] };
      }
      return { rows: await executePositional(db, text, parameters) };
    },
  };
}

/**
 * Enqueues and cancels through whatever database (transaction) a call names: a pg-boss that is
 * never started and has no connection of its own.
 */
const sender = new PgBoss({
  db: {
    executeSql() {
      throw new Error("the job sender has no connection: pass the transaction");
    },
  },
  schema,
  supervise: false,
  schedule: false,
  migrate: false,
});

/** pg-boss's options of every job: a job whose process died mid-run expires after two minutes and
 * runs again; a handler that threw (the database was away) runs again too. Handlers are
 * idempotent: they re-read their row first. */
const jobOptions = { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 } as const;

/**
 * Enqueues a job in `tx`, the transaction of the change that causes it: a row of the clinic's
 * outbox, on the clinic's shard, that the dispatcher hands to the queue after the commit
 * (`dispatchOutbox`). Answers the job's id, which it will have in the queue.
 */
export async function enqueue(
  tx: Db,
  clinicId: string,
  queue: QueueName,
  data: object,
  options: { startAfter?: Date | undefined } = {},
): Promise<string> {
  const jobId = randomUUID();
  await tx.insert(outbox).values({ clinicId, jobId, queue, data: { ...data }, startAfter: options.startAfter ?? null });
  return jobId;
}

/**
 * Forgets jobs of the clinic that have not been handed to the queue yet, in `tx`. A job already in
 * the queue runs and finds it has nothing to do (every handler re-reads its row first), so it is
 * not cancelled there: that would be a statement off the clinic's shard.
 */
export async function cancelJobs(tx: Db, clinicId: string, ids: readonly string[]): Promise<void> {
  if (ids.length > 0)
    await tx.delete(outbox).where(and(eq(outbox.clinicId, clinicId), inArray(outbox.jobId, [...ids])));
}

/**
 * Hands the outbox to the queue: for each clinic with rows (at most `clinics` of them), in one
 * transaction, its oldest rows (locked, skipping rows another process is handing over) become
 * jobs with their own ids and leave the outbox. At least once: a crash before the commit leaves
 * the rows for the next round, and a job handed over twice is created once (same id). Answers how
 * many rows it handed over.
 */
export async function dispatchOutbox(
  db: Db,
  options: { clinics?: number; rowsPerClinic?: number } = {},
): Promise<number> {
  const pending = rowsOf<{ clinic_id: string }>(
    await db.execute(sql`select distinct clinic_id from ${outbox} limit ${options.clinics ?? 50}`),
  );
  let handed = 0;
  for (const { clinic_id: clinicId } of pending) {
    handed += await db.transaction(async (tx) => {
      const rows = await tx
        .select()
        .from(outbox)
        .where(eq(outbox.clinicId, clinicId))
        .orderBy(asc(outbox.createdAt))
        .limit(options.rowsPerClinic ?? 100)
        .for("update", { skipLocked: true });
      if (rows.length === 0) return 0;
      // One statement for all of them (pg-boss's insert: ON CONFLICT DO NOTHING, as send), not one a row.
      await sender.insert(
        rows.map((row) => ({
          id: row.jobId,
          name: row.queue,
          data: row.data,
          ...jobOptions,
          ...(row.startAfter ? { startAfter: row.startAfter.toISOString() } : {}),
        })),
        { db: adapter(tx) },
      );
      await tx.delete(outbox).where(
        and(
          eq(outbox.clinicId, clinicId),
          inArray(
            outbox.jobId,
            rows.map((r) => r.jobId),
          ),
        ),
      );
      return rows.length;
    });
  }
  return handed;
}

/**
 * Installs (or upgrades) pg-boss's schema and creates the queues; idempotent. Run after the
 * migrations. Several processes may start at once on a new database: pg-boss decides to install
 * before it takes its advisory lock, so the second one's install script fails on objects the
 * first has just created, and two creating one queue can deadlock; by then the first has done
 * the work, and trying again finds it done. Processes that retry in step deadlock again (each
 * creates the queues in the same order, and there are four of them now), so each waits a random
 * while, longer every time, before it tries again.
 */
export async function installJobQueue(database: Database): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await installOnce(database);
      return;
    } catch (error) {
      if (attempt >= 10 || !lostRace(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 100 * attempt));
    }
  }
}

/** unique_violation, duplicate_object, duplicate_table, duplicate_schema, deadlock_detected. */
const lostRace = (error: unknown) =>
  ["23505", "42710", "42P07", "42P06", "40P01"].includes(pgErrorInfo(error)?.code ?? "");

async function installOnce(database: Database): Promise<void> {
  const boss = new PgBoss({
    db: adapter(database.db, database),
    schema,
    supervise: false,
    schedule: false,
    migrate: true,
  });
  boss.on("error", () => undefined);
  try {
    await boss.start();
    for (const name of Object.values(queueNames)) await boss.createQueue(name, { name, retryLimit: 5 });
  } finally {
    await boss.stop({ graceful: false, close: false, wait: true });
  }
}

/** Jobs a worker fetches at once (and runs together). */
const batchSize = 20;

/** The workers of one process: poll queues and run their jobs. */
export class JobWorkers {
  private readonly boss: PgBoss;
  private started: Promise<void> | undefined;
  private dispatching: NodeJS.Timeout | undefined;
  private dispatchRound: Promise<unknown> = Promise.resolve();
  private readonly workerIds: string[] = [];
  private readonly repeating: { handle: NodeJS.Timeout | undefined; running: Promise<unknown> }[] = [];
  /** Set once `stop()` has returned: the caller may close the database next. */
  private stopped = false;

  constructor(
    database: Database,
    private readonly options: { pollingIntervalSeconds?: number; onError?: (error: Error) => void } = {},
  ) {
    // Supervised: pg-boss's maintenance (expiring stuck jobs, archiving) runs in one process at a time.
    // After stop() pg-boss may still send a statement: a worker whose fetch was under way when the
    // stop began runs its jobs, and pg-boss completes or fails a batch without waiting for it (an
    // unhandled rejection once the caller has closed the pool; CI saw it). Those statements are
    // dropped: a job whose completion is lost runs again after it expires, as after a crash, and
    // every handler re-reads its row first.
    const db = adapter(database.db, database);
    this.boss = new PgBoss({
      db: {
        executeSql: (text, values) => (this.stopped ? Promise.resolve({ rows: [] }) : db.executeSql(text, values)),
      },
      schema,
      supervise: true,
      schedule: false,
      migrate: false,
    });
    this.boss.on("error", (error) => options.onError?.(error));
  }

  /** Runs `handler` for each job of `queue`, one at a time per process; a throwing handler fails the job. */
  async work<T extends object>(queue: QueueName, handler: (job: Job<T>) => Promise<void>): Promise<void> {
    this.started ??= this.boss.start().then(() => undefined);
    await this.started;
    // Up to 20 jobs a fetch, run together: a slow receiver does not hold the others back, and the
    // queue is not limited to one job per polling interval. A job that throws is failed on its own
    // (retried by its policy) before pg-boss completes the batch, which completes only jobs still
    // active — the ones that succeeded.
    // After a full batch it fetches again at once: pg-boss waits out the polling interval after
    // every fetch, full or not, which held a queue to 20 jobs a second a process (the bench's
    // webhook deliveries fell behind its bookings by thousands: docs/performance.md).
    const worker: { id?: string } = {};
    const id = await this.boss.work<T>(
      queue,
      { pollingIntervalSeconds: this.options.pollingIntervalSeconds ?? 1, batchSize },
      async (jobs) => {
        if (jobs.length >= batchSize && worker.id !== undefined) this.boss.notifyWorker(worker.id);
        const outcomes = await Promise.allSettled(jobs.map((job) => handler({ id: job.id, data: job.data })));
        for (const [i, outcome] of outcomes.entries()) {
          const job = jobs[i];
          if (outcome.status === "rejected" && job) {
            await this.boss.fail(
              queue,
              job.id,
              outcome.reason instanceof Error
                ? { message: outcome.reason.message }
                : { message: String(outcome.reason) },
            );
          }
        }
      },
    );
    worker.id = id;
    this.workerIds.push(id);
  }

  /** Wakes this process's workers now instead of at their next poll (jobs were just handed over). */
  private wake(): void {
    for (const id of this.workerIds) this.boss.notifyWorker(id);
  }

  /**
   * Hands the outbox to the queue every `intervalMs` (every process does; they skip each other's
   * rows), so that a job written by a change reaches the queue soon after its commit, and one left
   * by a process that died before handing it over is handed over by another.
   */
  dispatchOutboxEvery(db: Db, intervalMs: number): void {
    if (this.dispatching) return;
    const round = () => {
      this.dispatchRound = dispatchOutbox(db)
        .then((handed) => {
          if (handed > 0) this.wake();
        })
        .catch((error: unknown) => this.options.onError?.(error instanceof Error ? error : new Error(String(error))));
      void this.dispatchRound.finally(() => {
        if (this.dispatching) this.dispatching = setTimeout(round, intervalMs);
      });
    };
    this.dispatching = setTimeout(round, 0);
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
      timer.running = task().catch((error: unknown) =>
        this.options.onError?.(error instanceof Error ? error : new Error(String(error))),
      );
      void timer.running.finally(() => {
        if (timer.handle) timer.handle = setTimeout(round, intervalMs);
      });
    };
    timer.handle = setTimeout(round, 0);
    this.repeating.push(timer);
  }

  /**
   * Stops polling, waiting for running jobs (up to `timeoutMs`: longer than a job's own timeouts —
   * an SMTP send gives up after 15 s, a webhook delivery after 10 s — so that no job outlives the
   * stop and then writes through a closed pool; CI saw that with 5 s).
   */
  async stop(timeoutMs = 20_000): Promise<void> {
    for (const timer of this.repeating.splice(0)) {
      clearTimeout(timer.handle);
      timer.handle = undefined;
      await timer.running;
    }
    if (this.dispatching) {
      clearTimeout(this.dispatching);
      this.dispatching = undefined;
      await this.dispatchRound;
    }
    if (this.started) await this.boss.stop({ graceful: true, wait: true, close: false, timeout: timeoutMs });
    this.stopped = true;
  }
}
