import PgBoss from "pg-boss";
import { type Db, type DbHandle, executePositional, pgErrorInfo } from "@clinic/db";

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

/** Enqueues a job in `tx` (the transaction of the change that causes it); answers its id. */
export async function enqueue(tx: Db, queue: QueueName, data: object, options: { startAfter?: Date | undefined } = {}): Promise<string> {
  // A job whose process died mid-run expires after two minutes and runs again; a handler that threw
  // (the database was away) runs again too. Handlers are idempotent: they re-read their row first.
  const id = await sender.send(queue, data, {
    db: adapter(tx),
    retryLimit: 5,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 120,
    ...(options.startAfter ? { startAfter: options.startAfter } : {}),
  });
  if (id === null) throw new Error(`pg-boss did not enqueue a ${queue} job`);
  return id;
}

/** Cancels jobs that have not run yet, in `tx`. */
export async function cancelJobs(tx: Db, queue: QueueName, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await sender.cancel(queue, [...ids], { db: adapter(tx) });
}

/**
 * Installs (or upgrades) pg-boss's schema and creates the queues; idempotent. Run after the
 * migrations. Several processes may start at once on a new database: pg-boss decides to install
 * before it takes its advisory lock, so the second one's install script fails on objects the
 * first has just created, and two creating one queue can deadlock; by then the first has done
 * the work, and trying again finds it done.
 */
export async function installJobQueue(database: Database): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await installOnce(database);
      return;
    } catch (error) {
      if (attempt >= 5 || !lostRace(error)) throw error;
    }
  }
}

/** unique_violation, duplicate_object, duplicate_table, duplicate_schema, deadlock_detected. */
const lostRace = (error: unknown) => ["23505", "42710", "42P07", "42P06", "40P01"].includes(pgErrorInfo(error)?.code ?? "");

async function installOnce(database: Database): Promise<void> {
  const boss = new PgBoss({ db: adapter(database.db, database), schema, supervise: false, schedule: false, migrate: true });
  boss.on("error", () => undefined);
  try {
    await boss.start();
    for (const name of Object.values(queueNames)) await boss.createQueue(name, { name, retryLimit: 5 });
  } finally {
    await boss.stop({ graceful: false, close: false, wait: true });
  }
}

/** The workers of one process: poll queues and run their jobs. */
export class JobWorkers {
  private readonly boss: PgBoss;
  private started: Promise<void> | undefined;

  constructor(
    database: Database,
    private readonly options: { pollingIntervalSeconds?: number; onError?: (error: Error) => void } = {},
  ) {
    // Supervised: pg-boss's maintenance (expiring stuck jobs, archiving) runs in one process at a time.
    this.boss = new PgBoss({ db: adapter(database.db, database), schema, supervise: true, schedule: false, migrate: false });
    this.boss.on("error", (error) => options.onError?.(error));
  }

  /** Runs `handler` for each job of `queue`, one at a time per process; a throwing handler fails the job. */
  async work<T extends object>(queue: QueueName, handler: (job: Job<T>) => Promise<void>): Promise<void> {
    this.started ??= this.boss.start().then(() => undefined);
    await this.started;
    await this.boss.work<T>(queue, { pollingIntervalSeconds: this.options.pollingIntervalSeconds ?? 1, batchSize: 1 }, async (jobs) => {
      for (const job of jobs) await handler({ id: job.id, data: job.data });
    });
  }

  /** Stops polling, waiting for running jobs (up to `timeoutMs`). */
  async stop(timeoutMs = 5_000): Promise<void> {
    if (!this.started) return;
    await this.boss.stop({ graceful: true, wait: true, close: false, timeout: timeoutMs });
  }
}
