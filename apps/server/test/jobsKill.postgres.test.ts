// `kill -9` under booking load (issues 37 and 49, docs/jobs.md, docs/events.md#webhooks): the
// service (WORKERS=2) books and delivers webhooks while a load runs; its whole process group is
// killed with SIGKILL mid-way and a new one started. Every booking that committed has its delivery
// made at least once — none lost — and no delivery is ever made twice at once (an overlap at the
// receiver); the webhook's events arrive in feed order, before the kill and after it; the only
// repeats are the events the killed process had claimed and not recorded (in flight at the kill);
// nothing is left in the queue nor failed. PostgreSQL and Citus (the embedded database has one owner).
import { Agent, type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { addService, addWebhook, bookableClinic, clinicDeliveries } from "@clinic/api/testing";
import { type DbHandle, rowsOf } from "@clinic/db";
import { createScratchDatabase, type ScratchDatabase } from "@clinic/db/testing";
import { type ServerProcess, call, startServer } from "./processes.ts";

const databaseUrl = inject("databaseUrl");

/**
 * A webhook receiver that answers after a while, notes every arrival in order (and whether it came
 * before the kill) and any delivery that arrives while one of the same event is open.
 */
function slowReceiver() {
  const received = new Map<string, number>();
  const arrivals: { id: string; afterKill: boolean }[] = [];
  const open = new Set<string>();
  const overlaps: string[] = [];
  let killed = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const id = String(req.headers["webhook-id"]);
    arrivals.push({ id, afterKill: killed });
    if (open.has(id)) overlaps.push(id);
    open.add(id);
    req.resume();
    req.on("end", () => {
      setTimeout(() => {
        open.delete(id);
        received.set(id, (received.get(id) ?? 0) + 1);
        res.writeHead(204).end();
      }, 10);
    });
  });
  return {
    server,
    received,
    arrivals,
    overlaps,
    kill: () => {
      killed = true;
    },
  };
}

describe.skipIf(!databaseUrl)("kill -9 under booking load", () => {
  let scratch: ScratchDatabase;
  let handle: DbHandle;
  const receiver = slowReceiver();
  const servers: ServerProcess[] = [];
  const env = {
    WORKERS: "2",
    // The shortest lease the configuration allows: the killed processes' jobs run again after it.
    JOB_LEASE_S: "20",
    JOB_POLL_INTERVAL_MS: "100",
    WEBHOOK_ALLOW_PRIVATE: "true",
    BOOKING_RATE_LIMIT: "1000000",
  };

  beforeAll(async () => {
    scratch = await createScratchDatabase(databaseUrl, "clinic_kill", { migrated: true });
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    servers.push(await startServer(scratch.url ?? "", env));
    handle = await scratch.open({ poolMax: 2 });
  }, 90_000);
  afterAll(async () => {
    for (const s of servers) await s.kill9();
    receiver.server.close();
    await handle.close();
    await scratch.drop();
  });

  it("loses no job and runs none twice at once", async () => {
    const c = await bookableClinic(handle.db, {
      hours: { weekdays: [1, 2, 3, 4, 5], opens: "08:00", closes: "16:00" },
    });
    const service = await addService(handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 15 });
    const port = (receiver.server.address() as AddressInfo).port;
    const hook = await addWebhook(handle.db, c.clinicId, { url: `http://127.0.0.1:${String(port)}/hook` });

    // Slots of 15 minutes from Monday 2031-03-17, 32 a weekday, handed out once each.
    let next = 0;
    const slot = () => {
      const i = next++;
      const week = Math.floor(i / 160);
      const day = Math.floor((i % 160) / 32);
      const at = Date.parse("2031-03-17T08:00:00Z") + (week * 7 + day) * 86_400_000 + (i % 32) * 15 * 60_000;
      return new Date(at).toISOString();
    };
    let answered = 0;
    const load = (server: ServerProcess, until: () => boolean) =>
      Promise.all(
        Array.from({ length: 6 }, async () => {
          const agent = new Agent({ keepAlive: true, maxSockets: 1 });
          try {
            while (!until()) {
              const result = await call(agent, server.port, {
                method: "POST",
                path: `/v1/appointments?clinic_id=${c.clinicId}`,
                token: c.staff.token,
                body: { service_id: service, start: slot(), patient: { name: "Load" } },
              }).catch(() => undefined);
              if (result === undefined) return; // killed under it
              if (result.status === 201) answered++;
            }
          } finally {
            agent.destroy();
          }
        }),
      );

    // Load, and SIGKILL the whole process group once deliveries are under way.
    const first = servers[0];
    if (!first) throw new Error("no server");
    let killed = false;
    const running = load(first, () => killed);
    for (const deadline = Date.now() + 30_000; receiver.received.size < 40;) {
      if (Date.now() > deadline) throw new Error(`no deliveries under load:\n${first.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.kill9();
    receiver.kill();
    killed = true;
    await running;

    // What the killed processes left: the webhook's cursor, and the events its lease had claimed
    // after it — in flight at the kill (its lease runs out after JOB_LEASE_S).
    const [left] = rowsOf<{ cursor: number; inFlight: number }>(
      await handle.db.execute(sql`
        select feed_seq::int as cursor,
               (case when feed_lease_id is null then 0 else feed_claimed_seq - feed_seq end)::int as "inFlight"
        from webhooks where clinic_id = ${c.clinicId}::uuid and id = ${hook}::uuid`),
    );

    // A new process group, under load a little longer, then until every delivery is made.
    const second = await startServer(scratch.url ?? "", env);
    servers.push(second);
    const until = Date.now() + 2_000;
    await load(second, () => Date.now() > until);

    // As H5 counts them: delivery rows and the batches' first attempts that succeeded.
    const deliveries = () => clinicDeliveries(handle.db, c.clinicId);
    // Jobs left for the webhook (retries: none here, the receiver answers every attempt) and events
    // after its cursor (a killed process's lease keeps them until it runs out, JOB_LEASE_S).
    const queued = async () => {
      const [queue] = rowsOf<{ n: number }>(
        await handle.db.execute(
          sql`select (select count(*) from jobs where clinic_id = ${c.clinicId}::uuid and queue = 'webhook-delivery')::int
                + (select c.last_seq - w.feed_seq from webhooks w join event_counters c on c.clinic_id = w.clinic_id
                   where w.clinic_id = ${c.clinicId}::uuid and w.id = ${hook}::uuid)::int as n`,
        ),
      );
      return queue?.n ?? -1;
    };
    // Until every delivery is made and nothing is left to send.
    for (const deadline = Date.now() + 90_000; ;) {
      const rows = await deliveries();
      if (rows.every((r) => r.status === "succeeded") && (await queued()) === 0) break;
      if (Date.now() > deadline)
        throw new Error(
          `deliveries not made or jobs left (${String(await queued())}): ${JSON.stringify(rows.filter((r) => r.status !== "succeeded").slice(0, 5))}\n${second.output()}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }

    const rows = await deliveries();
    const [booked] = rowsOf<{ n: number }>(
      await handle.db.execute(sql`select count(*)::int as n from appointments where clinic_id = ${c.clinicId}::uuid`),
    );
    // Every committed booking has its delivery (an answer lost to the kill may still have committed).
    expect(rows).toHaveLength(booked?.n ?? -1);
    expect(rows.length).toBeGreaterThanOrEqual(answered);
    // None lost: each event reached the receiver; none twice at once.
    expect(rows.filter((r) => !receiver.received.has(r.eventId))).toEqual([]);
    expect(receiver.overlaps).toEqual([]);
    // Nothing left to run (the loop above waited for it), nothing failed.
    expect(rows.filter((r) => r.status !== "succeeded")).toEqual([]);
    // Repeats only of what the kill left in flight (at least once, never more than that).
    const repeats = [...receiver.received.values()].filter((n) => n > 1).length;
    expect(repeats).toBeLessThanOrEqual(left?.inFlight ?? 0);

    // Feed order: before the kill and after it, each arrival is the event after the one before it
    // in the clinic's feed (this webhook takes every type). After the kill the feed is read again
    // from the cursor the killed process left: the events from there to what it had sent are the
    // repeats, the rest each arrive once.
    const seqs = new Map(
      rowsOf<{ id: string; seq: number }>(
        await handle.db.execute(sql`select id, seq::int as seq from events where clinic_id = ${c.clinicId}::uuid`),
      ).map((e) => [e.id, e.seq]),
    );
    const order = (afterKill: boolean) =>
      receiver.arrivals.filter((a) => a.afterKill === afterKill).map((a) => seqs.get(a.id) ?? -1);
    const [before, after] = [order(false), order(true)];
    const consecutive = (list: number[]) => list.every((seq, i) => i === 0 || seq === (list[i - 1] ?? 0) + 1);
    expect(consecutive(before), JSON.stringify(before)).toBe(true);
    expect(consecutive(after), JSON.stringify(after.slice(0, 50))).toBe(true);
    expect(after[0]).toBe((left?.cursor ?? 0) + 1);
    expect(after.filter((seq) => before.includes(seq))).toHaveLength(repeats);
    console.log(
      `kill -9: ${String(rows.length)} bookings, ${String(before.length)} arrivals before the kill and ${String(after.length)} after, ${String(left?.inFlight ?? 0)} events in flight at the kill, ${String(repeats)} made twice`,
    );
  }, 180_000);
});
