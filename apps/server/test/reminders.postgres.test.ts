// 10,000 reminders due within one minute, two worker processes and a `kill -9` (issue 49,
// docs/events.md#reminders): the service (WORKERS=2) sweeps four clinics of 2,500 appointments
// each, seeded directly, whose reminders fall due over 20 seconds; a third sweeper (this test,
// calling the same page statement, clinic_due_reminders) races them on one clinic; the whole process
// group is killed with SIGKILL once a third of them are out, and a new one is started. Every reminder
// is recorded exactly once, none before its moment and each within a minute of it. PostgreSQL and
// Citus (the embedded database has one owner).
import { Agent } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { addService, bookableClinic } from "@clinic/api/testing";
import { type DbHandle, rowsOf } from "@clinic/db";
import { createScratchDatabase, type ScratchDatabase } from "@clinic/db/testing";
import { type ServerProcess, call, startServer } from "./processes.ts";

const databaseUrl = inject("databaseUrl");
const CLINICS = 4;
const PER_CLINIC = 2_500;
const OFFSET_MIN = 60;
/** The reminders fall due from 10 s after the seeding for this long. */
const SPREAD_MS = 20_000;

describe.skipIf(!databaseUrl)("10,000 reminders due in one minute, two processes, kill -9", () => {
  let scratch: ScratchDatabase;
  let handle: DbHandle;
  const servers: ServerProcess[] = [];
  const env = {
    WORKERS: "2",
    // The shortest lease the configuration allows: the killed processes' sweeps run again after it.
    JOB_LEASE_S: "20",
    JOB_POLL_INTERVAL_MS: "100",
  };

  beforeAll(async () => {
    scratch = await createScratchDatabase(databaseUrl, "clinic_reminders", { migrated: true });
    servers.push(await startServer(scratch.url ?? "", env));
    handle = await scratch.open({ poolMax: 3 });
  }, 90_000);
  afterAll(async () => {
    for (const s of servers) await s.kill9();
    await handle.close();
    await scratch.drop();
  });

  it("records each once, within a minute of its time", async () => {
    const first = servers[0];
    if (!first) throw new Error("no server");
    const agent = new Agent({ keepAlive: false });
    const clinicIds: string[] = [];
    const seeds: { clinicId: string; service: string; provider: string }[] = [];
    for (let i = 0; i < CLINICS; i++) {
      const c = await bookableClinic(handle.db);
      const service = await addService(handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
      // C4 with offsets: the clinic's one sweep, due now.
      const patched = await call(agent, first.port, {
        method: "PATCH",
        path: `/v1/clinics/${c.clinicId}`,
        token: c.admin.token,
        body: { reminder_offsets_min: [OFFSET_MIN] },
      });
      expect(patched.status, patched.body).toBe(200);
      clinicIds.push(c.clinicId);
      seeds.push({ clinicId: c.clinicId, service, provider: c.provider.id });
    }
    const ids = sql.param(clinicIds);
    // The appointments, booked now (reminders_after), their reminders due from t0 + 10 s over
    // SPREAD_MS; one group session's seats, so that they may overlap.
    const t0 = Date.now();
    for (const seed of seeds) {
      const session = crypto.randomUUID();
      for (let from = 0; from < PER_CLINIC; from += 500)
        await handle.db.execute(sql`
          insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end,
                                    status, patient_name, session_key, reminders_after)
          select ${seed.clinicId}::uuid, ${seed.service}::uuid, ${seed.provider}::uuid, s, s + interval '30 minutes', s,
                 s + interval '30 minutes', 'booked', 'Seat ' || g, ${session}::uuid, now()
          from generate_series(${from + 1}::int, ${from + 500}::int) g,
               lateral (select ${new Date(t0 + OFFSET_MIN * 60_000 + 10_000).toISOString()}::timestamptz
                               + (g * ${SPREAD_MS / PER_CLINIC}::float8) * interval '1 millisecond' as s) x`);
    }
    const seededMs = Date.now() - t0;
    expect(seededMs, "the seeding took longer than the time before the first reminder").toBeLessThan(10_000);

    const recorded = async () =>
      rowsOf<{ n: number }>(
        await handle.db.execute(
          sql`select count(*)::int as n from events where clinic_id = any (${ids}::uuid[]) and type = 'appointment.reminder'`,
        ),
      )[0]?.n ?? 0;

    // A third sweeper on the first clinic, the page statement itself, until the kill.
    const phase = { killed: false };
    let raced = 0;
    const racer = (async () => {
      while (!phase.killed) {
        const [row] = rowsOf<{ answer: { sent: number } }>(
          await handle.db.execute(
            sql`select clinic_due_reminders(${clinicIds[0] ?? ""}::uuid, ${JSON.stringify({
              from: new Date(t0).toISOString(),
              now: new Date().toISOString(),
              limit: 200,
            })}::jsonb) as answer`,
          ),
        );
        raced += row?.answer.sent ?? 0;
        await new Promise((r) => setTimeout(r, 300));
      }
    })();

    // SIGKILL the whole process group once a third are out, and start a new one.
    const total = CLINICS * PER_CLINIC;
    for (const deadline = t0 + 60_000; (await recorded()) < total / 3;) {
      if (Date.now() > deadline) throw new Error(`reminders not under way:\n${first.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.kill9();
    phase.killed = true;
    await racer;
    const atKill = await recorded();
    const killedAtS = (Date.now() - t0) / 1000;
    const second = await startServer(scratch.url ?? "", env);
    servers.push(second);

    // Until every one is out: the last falls due at t0 + 10 s + SPREAD_MS, and a minute later at most.
    for (const deadline = t0 + 10_000 + SPREAD_MS + 75_000; (await recorded()) < total;) {
      if (Date.now() > deadline)
        throw new Error(`${String(await recorded())} of ${String(total)}:\n${second.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // A little longer: nothing more may come.
    await new Promise((r) => setTimeout(r, 1_000));

    const [summary] = rowsOf<{
      events: number;
      distinct: number;
      sent_rows: number;
      wrong_start: number;
      earliest_s: number;
      latest_s: number;
      late_over_15: number;
    }>(
      await handle.db.execute(sql`
        with r as (
          select e.data->>'id' as id, e.data->>'offset_min' as offset_min, e.data->>'start' as start, e.occurred_at, a.starts_at,
                 extract(epoch from e.occurred_at - (a.starts_at - make_interval(mins => (e.data->>'offset_min')::int)))::float8 as late_s
          from events e join appointments a on a.clinic_id = e.clinic_id and a.id = (e.data->>'id')::uuid
          where e.clinic_id = any (${ids}::uuid[]) and e.type = 'appointment.reminder')
        select count(*)::int as events, count(distinct (id, offset_min, start))::int as distinct,
               (select count(*)::int from appointment_reminders where clinic_id = any (${ids}::uuid[])) as sent_rows,
               count(*) filter (where (start)::timestamptz <> starts_at)::int as wrong_start,
               min(late_s) as earliest_s, max(late_s) as latest_s, count(*) filter (where late_s > 15)::int as late_over_15
        from r`),
    );
    console.log(
      `reminders: ${String(summary?.events)} recorded (${String(atKill)} before the kill at ${killedAtS.toFixed(1)} s, ${String(raced)} by the racing sweeper), ` +
        `from ${String(summary?.earliest_s.toFixed(2))} s to ${String(summary?.latest_s.toFixed(2))} s after their moment, ${String(summary?.late_over_15)} more than 15 s late; seeded in ${String(seededMs)} ms`,
    );
    // Each once: as many events as reminders, all distinct, each with its record, at its start.
    expect(summary?.events).toBe(total);
    expect(summary?.distinct).toBe(total);
    expect(summary?.sent_rows).toBe(total);
    expect(summary?.wrong_start).toBe(0);
    // None before its moment (its transaction's start is the event's time), each within a minute.
    expect(summary?.earliest_s).toBeGreaterThanOrEqual(0);
    expect(summary?.latest_s).toBeLessThanOrEqual(60);
    agent.destroy();
  }, 150_000);
});
