import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { type DbHandle, clinics, jobs, migrate, rowsOf } from "@clinic/db";
import { type ScratchDatabase, createScratchDatabase } from "@clinic/db/testing";
import { type Job, JobWorkers, enqueue, jobQueueState, queueNames, runDueJobs } from "../src/modules/jobs/index.ts";

// The job queue (docs/jobs.md) on a database of its own (an in-memory PGlite without DATABASE_URL):
// no other test file's workers may take these jobs, nor these workers theirs.
const serverUrl = inject("databaseUrl");
let scratch: ScratchDatabase;
let one: DbHandle;
/** A second process's pool: on PostgreSQL and Citus its own connections; PGlite has one owner. */
let two: DbHandle;

beforeAll(async () => {
  scratch = await createScratchDatabase(serverUrl, "clinic_jobs", { migrated: true });
  one = await scratch.open({ poolMax: 4 });
  await migrate(one.db);
  two = scratch.url ? await scratch.open({ poolMax: 4 }) : one;
}, 120_000);
afterAll(async () => {
  if (two !== one) await two.close();
  await one.close();
  await scratch.drop();
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(done: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await done()); await wait(25))
    if (Date.now() > deadline) throw new Error("timed out");
}

async function newClinic(): Promise<string> {
  const clinicId = crypto.randomUUID();
  await one.db.insert(clinics).values({ id: clinicId, name: "Jobs", timezone: "Europe/Berlin" });
  return clinicId;
}

async function enqueueMany(clinicId: string, count: number): Promise<string[]> {
  return one.db.transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await enqueue(tx, clinicId, queueNames.messageSend, { clinicId, i }));
    return ids;
  });
}

const rowsOfClinic = (clinicId: string) => one.db.select().from(jobs).where(eq(jobs.clinicId, clinicId));

describe("the job queue", () => {
  it("runs a job written in a transaction only once that transaction commits, and nothing of one rolled back", async () => {
    const clinicId = await newClinic();
    const ran: string[] = [];
    const handlers = new Map([
      [
        queueNames.messageSend,
        (job: Job<object>) => {
          ran.push(job.id);
          return Promise.resolve();
        },
      ],
    ]);
    await one.db
      .transaction(async (tx) => {
        await enqueue(tx, clinicId, queueNames.messageSend, { clinicId });
        throw new Error("rolled back");
      })
      .catch(() => undefined);
    const [kept] = await enqueueMany(clinicId, 1);
    // A job due later waits.
    await one.db.transaction((tx) =>
      enqueue(tx, clinicId, queueNames.messageSend, { clinicId }, { startAfter: new Date(Date.now() + 3_600_000) }),
    );
    while ((await runDueJobs(one.db, handlers, { clinics: 10_000 })) > 0);
    expect(ran).toEqual([kept]);
    const left = await rowsOfClinic(clinicId);
    expect(left).toHaveLength(1);
    expect(left[0]?.attempts).toBe(0);
  });

  it("claims the next batch at once after a full one, not after the polling interval", async () => {
    const clinicId = await newClinic();
    const count = 65; // three full batches of 20 and a partial one
    await enqueueMany(clinicId, count);
    // A polling interval far longer than the test may take: only claiming again at once after a
    // full batch can run more than the first 20 jobs within it.
    const workers = new JobWorkers(one, { pollIntervalMs: 600_000 });
    const seen = new Set<number>();
    try {
      workers.work<{ i: number }>(queueNames.messageSend, (job) => {
        seen.add(job.data.i);
        return Promise.resolve();
      });
      await until(() => seen.size >= count);
    } finally {
      await workers.stop();
    }
    expect(seen.size).toBe(count);
    await until(async () => (await rowsOfClinic(clinicId)).length === 0);
  }, 60_000);

  it("retries a throwing handler with the backoff, then keeps the job as failed with its error", async () => {
    const clinicId = await newClinic();
    const [id] = await enqueueMany(clinicId, 1);
    const attempts: { attempt: number; at: number }[] = [];
    const workers = new JobWorkers(one, {
      pollIntervalMs: 50,
      retry: { retryLimit: 2, retryDelayS: 1 },
      onError: (error) => {
        errors.push(error.message);
      },
    });
    const errors: string[] = [];
    try {
      workers.work(queueNames.messageSend, (job) => {
        attempts.push({ attempt: job.attempt, at: Date.now() });
        return Promise.reject(new Error(`refused, attempt ${String(job.attempt)}`));
      });
      await until(async () => (await rowsOfClinic(clinicId))[0]?.failedAt != null, 30_000).catch((error: unknown) => {
        throw new Error(`${String(error)}: ${JSON.stringify({ attempts, errors })}`);
      });
    } finally {
      await workers.stop();
    }
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    // 1 s before the first retry, 2 s before the second (PGlite's clock and ours differ by < 50 ms).
    const [a1, a2, a3] = attempts.map((a) => a.at);
    expect((a2 ?? 0) - (a1 ?? 0)).toBeGreaterThanOrEqual(950);
    expect((a3 ?? 0) - (a2 ?? 0)).toBeGreaterThanOrEqual(1_950);
    const [row] = await rowsOfClinic(clinicId);
    expect(row).toMatchObject({ jobId: id, attempts: 3, lastError: "refused, attempt 3", leaseId: null });
    // A failed job never runs again, and /metrics counts it.
    expect(
      await runDueJobs(one.db, new Map([[queueNames.messageSend, () => Promise.resolve()]]), { clinics: 10_000 }),
    ).toBe(0);
    const state = await jobQueueState(one.db);
    expect(state.find((s) => s.queue === queueNames.messageSend)?.failed).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("runs a job again once its lease has run out (its process died), and the late run can no longer finish it", async () => {
    const clinicId = await newClinic();
    const [id] = await enqueueMany(clinicId, 1);
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first: number[] = [];
    // A run that never ends while the lease lasts (as a process killed mid-run).
    const dying = runDueJobs(
      one.db,
      new Map([
        [
          queueNames.messageSend,
          (job: Job<object>) => {
            first.push(job.attempt);
            return stuck;
          },
        ],
      ]),
      { clinics: 10_000, retry: { leaseS: 1 } },
    );
    await until(() => first.length === 1);
    // Leased: no one else takes it meanwhile.
    const second: number[] = [];
    const handlers = new Map([
      [
        queueNames.messageSend,
        (job: Job<object>) => {
          second.push(job.attempt);
          return Promise.resolve();
        },
      ],
    ]);
    expect(await runDueJobs(two.db, handlers, { clinics: 10_000 })).toBe(0);
    await wait(1_200);
    expect(await runDueJobs(two.db, handlers, { clinics: 10_000 })).toBe(1);
    expect(second).toEqual([2]);
    expect(await rowsOfClinic(clinicId)).toHaveLength(0);
    // The first run ends late: its completion deletes nothing that is not its own.
    const [again] = await one.db.transaction(async (tx) => [
      await enqueue(tx, clinicId, queueNames.messageSend, { clinicId }),
    ]);
    release();
    await dying;
    expect((await rowsOfClinic(clinicId)).map((r) => r.jobId)).toEqual([again]);
    expect(id).not.toBe(again);
  }, 30_000);

  it("fails a job whose attempts are spent when a claim reaches it, and reads no further than the claim's limit", async () => {
    const clinicId = await newClinic();
    const [oldest, spentInWindow, next, spentLater] = await enqueueMany(clinicId, 4);
    // Due in this order; two of them died with their process on every attempt (attempts spent, lease over).
    for (const [i, id] of [oldest, spentInWindow, next, spentLater].entries())
      await one.db.execute(sql`update jobs set run_at = now() - make_interval(secs => ${100 - i}),
        attempts = ${id === spentInWindow || id === spentLater ? 6 : 0},
        leased_until = ${id === spentInWindow || id === spentLater ? sql`now() - interval '1 second'` : null}
        where clinic_id = ${clinicId}::uuid and job_id = ${id ?? ""}::uuid`);
    const claimOf = async (limit: number) => {
      const [row] = rowsOf<{ claim: { jobs: { id: string; attempt: number }[] } }>(
        await one.db.execute(
          sql`select clinic_claim_jobs(${clinicId}::uuid, array['${sql.raw(queueNames.messageSend)}']::text[], ${limit}::int, 60, 6) as claim`,
        ),
      );
      return row?.claim.jobs ?? [];
    };
    const state = async () =>
      Object.fromEntries(
        (await rowsOfClinic(clinicId)).map((r) => [r.jobId, { failed: r.failedAt !== null, error: r.lastError }]),
      );
    // The claim of two: the oldest is leased, the spent one beside it failed; the later spent one is
    // not read by this claim at all.
    expect((await claimOf(2)).map((j) => [j.id, j.attempt])).toEqual([[oldest, 1]]);
    let rows = await state();
    expect(rows[spentInWindow ?? ""]).toEqual({ failed: true, error: "no attempt finished within its lease" });
    expect(rows[spentLater ?? ""]).toEqual({ failed: false, error: null });
    // The next claim reaches it.
    expect((await claimOf(2)).map((j) => j.id)).toEqual([next]);
    rows = await state();
    expect(rows[spentLater ?? ""]).toEqual({ failed: true, error: "no attempt finished within its lease" });
    expect(rows[oldest ?? ""]?.failed).toBe(false);
  });

  it("runs every job once when several processes work the queue at once", async () => {
    const clinicIds = await Promise.all([1, 2, 3, 4].map(() => newClinic()));
    const ids = (await Promise.all(clinicIds.map((c) => enqueueMany(c, 60)))).flat();
    const runs = new Map<string, number>();
    let running = 0;
    let most = 0;
    const handler = async (job: Job<object>) => {
      runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      running++;
      most = Math.max(most, running);
      await wait(Math.random() * 5);
      running--;
    };
    const workers = [one, two, two].map((h) => new JobWorkers(h, { pollIntervalMs: 20, batchSize: 7 }));
    try {
      for (const w of workers) w.work(queueNames.messageSend, handler);
      await until(() => ids.every((id) => runs.has(id)));
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    expect(ids.filter((id) => runs.get(id) !== 1)).toEqual([]);
    expect(most).toBeGreaterThan(1);
    for (const c of clinicIds) expect(await rowsOfClinic(c)).toHaveLength(0);
  }, 60_000);

  it("keeps of a failed query only the database's message, not the statement and its parameters", async () => {
    const clinicId = await newClinic();
    await enqueueMany(clinicId, 1);
    const handlers = new Map([
      [
        queueNames.messageSend,
        () =>
          Promise.reject(
            new Error("Failed query: update messages set to = $1\nparams: pat@example.test", {
              cause: new Error("deadlock detected"),
            }),
          ),
      ],
    ]);
    expect(await runDueJobs(one.db, handlers, { clinics: 10_000, retry: { retryLimit: 0 } })).toBe(1);
    const [row] = await rowsOfClinic(clinicId);
    expect(row?.lastError).toBe("deadlock detected");
    expect(row?.failedAt).not.toBeNull();
  });

  it("reports the oldest due job's wait by queue", async () => {
    const clinicId = await newClinic();
    await one.db.insert(jobs).values({
      clinicId,
      jobId: crypto.randomUUID(),
      queue: queueNames.reminderSweep,
      data: { clinicId },
      runAt: sql`now() - interval '90 seconds'`,
    });
    const state = await jobQueueState(one.db);
    const reminders = state.find((s) => s.queue === queueNames.reminderSweep);
    expect(reminders?.due).toBeGreaterThanOrEqual(1);
    expect(reminders?.oldestDueAgeS).toBeGreaterThanOrEqual(89);
    const [count] = rowsOf<{ n: number }>(
      await one.db.execute(sql`select count(*)::int as n from jobs where clinic_id = ${clinicId}::uuid`),
    );
    expect(count?.n).toBe(1);
  });
});
