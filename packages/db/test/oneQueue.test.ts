import { describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { migrate, rowsOf } from "../src/index.ts";
import { createScratchDatabase } from "../src/testing.ts";

// drizzle/0022_one_queue.sql on a database that ran the service before it: the jobs waiting in the
// outbox and pg-boss's unfinished jobs become rows of `jobs`, nothing else does, and pg-boss's
// schema goes. (pg-boss's table is reduced to the columns the migration reads.)
describe("the upgrade to one queue (0022)", () => {
  it("moves the outbox's rows and pg-boss's unfinished jobs into jobs, and drops pg-boss", async () => {
    const scratch = await createScratchDatabase(inject("databaseUrl"), "clinic_one_queue");
    try {
      const handle = await scratch.open({ poolMax: 1 });
      try {
        const { db } = handle;
        await migrate(db, { through: "0021_v13_finish" });
        const clinic = crypto.randomUUID();
        const [outboxJob, created, retrying, done, gone] = [1, 2, 3, 4, 5].map(() => crypto.randomUUID());
        await db.execute(sql`insert into clinics (id, name, timezone) values (${clinic}::uuid, 'Upgrade', 'UTC')`);
        await db.execute(sql`insert into outbox (clinic_id, job_id, queue, data, start_after)
          values (${clinic}::uuid, ${outboxJob}::uuid, 'appointment-reminder', ${JSON.stringify({ clinicId: clinic })}::jsonb, '2031-01-01T08:00:00Z')`);
        await db.execute(sql`create schema pgboss`);
        await db.execute(sql`create table pgboss.job (id uuid primary key, name text, data jsonb, state text,
          start_after timestamptz not null default now(), retry_count int not null default 0, created_on timestamptz not null default now())`);
        const job = (id: string | undefined, state: string, clinicId: string, retries = 0) =>
          db.execute(sql`insert into pgboss.job (id, name, data, state, retry_count, start_after)
            values (${id ?? ""}::uuid, 'webhook-delivery', ${JSON.stringify({ clinicId, deliveryId: crypto.randomUUID(), attempt: 0 })}::jsonb,
                    ${state}, ${retries}, '2030-06-01T00:00:00Z')`);
        await job(created, "created", clinic);
        await job(retrying, "retry", clinic, 2);
        await job(done, "completed", clinic);
        await job(gone, "created", crypto.randomUUID()); // a clinic that no longer exists

        // Through 0022 only: 0030 replaces the planned reminders' jobs with each clinic's sweep (remindersDerived.test.ts).
        await migrate(db, { through: "0022_one_queue" });
        const rows = rowsOf<{ job_id: string; queue: string; run_at: string | Date; attempts: number }>(
          await db.execute(
            sql`select job_id, queue, run_at, attempts from jobs where clinic_id = ${clinic}::uuid order by run_at, job_id`,
          ),
        );
        expect(rows.map((r) => ({ ...r, run_at: new Date(r.run_at).toISOString() }))).toEqual(
          [
            { job_id: created, queue: "webhook-delivery", run_at: "2030-06-01T00:00:00.000Z", attempts: 0 },
            { job_id: retrying, queue: "webhook-delivery", run_at: "2030-06-01T00:00:00.000Z", attempts: 2 },
            { job_id: outboxJob, queue: "appointment-reminder", run_at: "2031-01-01T08:00:00.000Z", attempts: 0 },
          ].sort((x, y) => x.run_at.localeCompare(y.run_at) || (x.job_id ?? "").localeCompare(y.job_id ?? "")),
        );
        const [left] = rowsOf<{ pgboss: boolean; outbox: boolean }>(
          await db.execute(sql`select exists (select 1 from pg_namespace where nspname = 'pgboss') as pgboss,
            to_regclass('outbox') is not null as outbox`),
        );
        expect(left).toEqual({ pgboss: false, outbox: false });
      } finally {
        await handle.close();
      }
    } finally {
      await scratch.drop();
    }
  }, 120_000);
});
