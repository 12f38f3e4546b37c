import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eq, inArray, sql } from "drizzle-orm";
import { type DbHandle, openDatabase, outbox, rowsOf } from "@clinic/db";
import { dispatchOutbox, enqueue, queueNames } from "../src/modules/jobs/index.ts";
import { createClinic } from "../testing/index.ts";

// The outbox (docs/performance.md#jobs-from-the-clinics-shard): jobs written with their change wait
// in the clinic's outbox until handed to the queue. A dispatcher that dies mid-hand-over (its
// connection killed, as by `kill -9`) leaves them there for the next one; a job handed over twice
// is created once.
const databaseUrl = inject("databaseUrl");

describe.skipIf(!databaseUrl)("the outbox (PostgreSQL)", () => {
  let one: DbHandle;
  let two: DbHandle;
  beforeAll(async () => {
    one = await openDatabase({ url: databaseUrl, poolMax: 2 });
    two = await openDatabase({ url: databaseUrl, poolMax: 2 });
  });
  afterAll(async () => {
    await one.close();
    await two.close();
  });

  // The run's other test files leave their clinics' jobs in the shared outbox, and one call hands
  // over at most 50 clinics: hand over everything, as the dispatcher's rounds do.
  const drain = async (db: DbHandle["db"]) => {
    while ((await dispatchOutbox(db, { clinics: 500 })) > 0);
  };

  const jobsWithIds = async (ids: string[]) =>
    rowsOf<{ n: number }>(
      await two.db.execute(
        sql`select count(*)::int as n from pgboss.job where id = any (string_to_array(${ids.join(",")}, ',')::uuid[])`,
      ),
    )[0]?.n ?? 0;

  it("hands over what a killed dispatcher left, each job once", async () => {
    const clinicId = await createClinic(one.db);
    const ids = await one.db.transaction(async (tx) =>
      Promise.all(
        [1, 2, 3].map((n) =>
          enqueue(
            tx,
            clinicId,
            queueNames.appointmentReminder,
            { clinicId, appointmentId: crypto.randomUUID(), offsetMin: n, startsAt: "2030-01-01T00:00:00.000Z" },
            { startAfter: new Date("2029-12-31T00:00:00Z") },
          ),
        ),
      ),
    );
    expect(ids).toHaveLength(3);

    // A dispatcher locks the rows and its process dies before it commits.
    const victim = await openDatabase({ url: databaseUrl, poolMax: 1 });
    const [backend] = rowsOf<{ pid: number }>(await victim.db.execute(sql`select pg_backend_pid() as pid`));
    const dying = victim.db
      .transaction(async (tx) => {
        await tx.select().from(outbox).where(eq(outbox.clinicId, clinicId)).for("update");
        await tx.execute(sql`select pg_sleep(30)`);
      })
      .catch(() => "killed");
    await new Promise((resolve) => setTimeout(resolve, 300));
    await two.db.execute(sql`select pg_terminate_backend(${backend?.pid ?? 0}::int)`);
    expect(await dying).toBe("killed");
    await victim.close().catch(() => undefined);

    expect(await two.db.select().from(outbox).where(inArray(outbox.jobId, ids))).toHaveLength(3);
    await drain(two.db);
    expect(await jobsWithIds(ids)).toBe(3);
    expect(await two.db.select().from(outbox).where(inArray(outbox.jobId, ids))).toHaveLength(0);

    // Handed over again (as after a crash between the queue's insert and the outbox's delete, were
    // they not one transaction): still one job each.
    await one.db
      .insert(outbox)
      .values(ids.map((jobId) => ({ clinicId, jobId, queue: queueNames.appointmentReminder, data: { clinicId } })));
    await drain(one.db);
    expect(await jobsWithIds(ids)).toBe(3);
  }, 60_000);
});
