import { describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { migrate, rowsOf } from "../src/index.ts";
import { createScratchDatabase } from "../src/testing.ts";

// drizzle/0029_reminders_derived.sql on a database that planned reminders (issue 49): the planned
// rows and their jobs go, the reminders sent stay as the record of what was sent, each clinic with
// offsets gets its one sweep looking back to its earliest reminder still planned, and the sweep's
// first page sends that overdue one — once.
describe("the upgrade to derived reminders (0030)", () => {
  it("drops the planned reminders and their jobs, keeps the sent ones, and gives each clinic its sweep", async () => {
    const scratch = await createScratchDatabase(inject("databaseUrl"), "clinic_reminders_derived");
    try {
      const handle = await scratch.open({ poolMax: 1 });
      try {
        const { db } = handle;
        await migrate(db, { through: "0027_sign_in" });
        const [clinic, quiet, user, service] = [1, 2, 3, 4].map(() => crypto.randomUUID());
        const [future, sent, overdue] = [1, 2, 3].map(() => crypto.randomUUID());
        const [futureJob, overdueJob] = [1, 2].map(() => crypto.randomUUID());
        await db.execute(sql`insert into clinics (id, name, timezone, reminder_offsets_min)
          values (${clinic}::uuid, 'Upgrade', 'UTC', '{1440,60}'), (${quiet}::uuid, 'Quiet', 'UTC', '{}')`);
        await db.execute(sql`insert into users (id, email) values (${user}::uuid, ${`${user}@example.test`})`);
        await db.execute(sql`insert into clinic_members (clinic_id, user_id, full_name, email)
          values (${clinic}::uuid, ${user}::uuid, 'Anna', 'anna@example.test')`);
        await db.execute(
          sql`insert into services (id, clinic_id, name, duration_min) values (${service}::uuid, ${clinic}::uuid, 'Check-up', 30)`,
        );
        const appointment = (id: string | undefined, start: string) =>
          db.execute(sql`insert into appointments (id, clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end, patient_name, created_at)
            select ${id ?? ""}::uuid, ${clinic}::uuid, ${service}::uuid, ${user}::uuid, s, s + interval '30 minutes', s, s + interval '30 minutes', 'Pat', now() - interval '2 days'
            from (select ${start}::timestamptz as s) x`);
        // A reminder planned for 2031, one sent, and one planned whose job has not run yet (due 30 minutes ago).
        await appointment(future, "2031-01-02T09:00:00Z");
        await appointment(sent, "2020-01-02T09:00:00Z");
        const overdueStart = new Date(Date.now() + 30 * 60_000);
        overdueStart.setUTCMilliseconds(0);
        await appointment(overdue, overdueStart.toISOString());
        await db.execute(sql`insert into appointment_reminders (clinic_id, appointment_id, offset_min, starts_at, job_id, status, updated_at) values
          (${clinic}::uuid, ${future}::uuid, 1440, '2031-01-02T09:00:00Z', ${futureJob}::uuid, 'planned', now()),
          (${clinic}::uuid, ${sent}::uuid, 1440, '2020-01-02T09:00:00Z', ${crypto.randomUUID()}::uuid, 'sent', '2020-01-01T09:00:00.123Z'),
          (${clinic}::uuid, ${overdue}::uuid, 60, ${overdueStart.toISOString()}, ${overdueJob}::uuid, 'planned', now())`);
        await db.execute(sql`insert into jobs (clinic_id, job_id, queue, data, run_at) values
          (${clinic}::uuid, ${futureJob}::uuid, 'appointment-reminder', '{}'::jsonb, '2031-01-01T09:00:00Z'),
          (${clinic}::uuid, ${overdueJob}::uuid, 'appointment-reminder', '{}'::jsonb, now() - interval '30 minutes')`);

        await migrate(db);
        const queued = rowsOf<{ clinic_id: string; queue: string; data: { clinicId: string; from: string } }>(
          await db.execute(sql`select clinic_id, queue, data from jobs order by clinic_id`),
        );
        // The planned jobs are gone; the clinic with offsets has its sweep, the quiet one none.
        expect(queued.map((j) => [j.clinic_id, j.queue, j.data.clinicId])).toEqual([
          [clinic, "reminder-sweep", clinic],
        ]);
        // It looks back to the overdue reminder's moment.
        const from = new Date(queued[0]?.data.from ?? "");
        expect(from.getTime()).toBeLessThanOrEqual(overdueStart.getTime() - 60 * 60_000);
        const kept = rowsOf<{ appointment_id: string; sent_at: string | Date }>(
          await db.execute(sql`select appointment_id, sent_at from appointment_reminders`),
        );
        expect(kept.map((r) => [r.appointment_id, new Date(r.sent_at).toISOString()])).toEqual([
          [sent, "2020-01-01T09:00:00.123Z"],
        ]);
        const [gone] = rowsOf<{ functions: number }>(
          await db.execute(
            sql`select count(*)::int as functions from pg_proc where proname in ('clinic_plan_reminders', 'clinic_drop_reminders')`,
          ),
        );
        expect(gone?.functions).toBe(0);
        // The sweep's page from there sends the overdue reminder, once, and nothing else is due yet.
        const page = async () =>
          rowsOf<{ answer: { sent: number } }>(
            await db.execute(
              sql`select clinic_due_reminders(${clinic}::uuid, ${JSON.stringify({ from: from.toISOString(), now: new Date().toISOString(), limit: 10 })}::jsonb) as answer`,
            ),
          )[0]?.answer.sent;
        expect(await page()).toBe(1);
        expect(await page()).toBe(0);
        const events = rowsOf<{ id: string; offset_min: number }>(
          await db.execute(
            sql`select data->>'id' as id, (data->>'offset_min')::int as offset_min from events where clinic_id = ${clinic}::uuid and type = 'appointment.reminder'`,
          ),
        );
        expect(events).toEqual([{ id: overdue, offset_min: 60 }]);
      } finally {
        await handle.close();
      }
    } finally {
      await scratch.drop();
    }
  }, 120_000);
});
