// `pnpm bench`: the slot-engine benchmark, and HTTP benchmarks on PostgreSQL (DATABASE_URL, or
// the local server's `postgres` database; `--db URL` once per database to compare several) with
// autocannon in-process. Prints a table and writes
// bench-results/bench.json. A benchmark never fails on a timing; it reports what it measured.
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import { createTokenVerifier, installJobQueue, mintToken } from "@clinic/api";
import { loadConfig } from "@clinic/config";
import { clinicMembers, clinics, migrate, openDatabase, services, users, workHours } from "@clinic/db";
import { buildApp } from "../src/app.ts";
import { runEngineBench } from "@clinic/api/bench/engine";

const secret = "bench-secret-0123456789-0123456789-abcdef";
const seconds = 5;

interface HttpRow {
  name: string;
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  non2xx: number;
}

async function cannon(name: string, options: autocannon.Options): Promise<HttpRow> {
  const result = await autocannon({ connections: 20, duration: seconds, ...options });
  return { name, reqPerSec: Math.round(result.requests.average), p50ms: result.latency.p50, p99ms: result.latency.p99, non2xx: result.non2xx };
}

async function httpBench(databaseUrl: string) {
  const database = await openDatabase({ url: databaseUrl, poolMax: 10 });
  await migrate(database.db);
  // Bookings enqueue their reminders: the job queue must be installed, as `npm start` does.
  await installJobQueue(database);
  const app = await buildApp({
    // Neither the per-IP nor the per-user booking-write limit may answer for the database here.
    config: { allowedOrigins: [], rateLimit: { max: 10_000_000, windowMs: 60_000 }, bookingRateLimit: 10_000_000, logLevel: "silent" },
    database,
    verifier: createTokenVerifier({ secret }),
    logger: false,
    now: () => new Date("2027-03-01T00:00:00Z"),
  });
  app.get("/bench/bare", () => Promise.resolve({ ok: true }));
  app.get("/bench/select1", async () => {
    await database.db.execute(sql`select 1`);
    return { ok: true };
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const base = `http://127.0.0.1:${String(typeof address === "object" && address ? address.port : 0)}`;

  // A clinic with 50 providers working Mon–Fri 09:00–17:00 and one 30-minute service each.
  const [clinic] = await database.db.insert(clinics).values({ name: "Bench", timezone: "Europe/Berlin" }).returning();
  if (!clinic) throw new Error("no clinic");
  const agentId = crypto.randomUUID();
  await database.db.insert(users).values({ id: agentId, email: `agent-${agentId}@bench.test` });
  await database.db.insert(clinicMembers).values({ clinicId: clinic.id, userId: agentId, fullName: "Agent", email: "agent@bench.test", clinicRole: "BOOKING_AGENT" });
  await database.db.insert(workHours).values([1, 2, 3, 4, 5].map((weekday) => ({ clinicId: clinic.id, scope: "clinic" as const, weekday, opensMin: 540, closesMin: 1020 })));
  const serviceIds: string[] = [];
  for (let p = 0; p < 50; p++) {
    const id = crypto.randomUUID();
    await database.db.insert(users).values({ id, email: `p${String(p)}-${id}@bench.test` });
    await database.db.insert(clinicMembers).values({ clinicId: clinic.id, userId: id, fullName: `Provider ${String(p).padStart(2, "0")}`, email: `p${String(p)}@bench.test`, isProvider: true, status: "approved" });
    await database.db.insert(workHours).values([1, 2, 3, 4, 5].map((weekday) => ({ clinicId: clinic.id, scope: "provider" as const, providerId: id, weekday, opensMin: 540, closesMin: 1020 })));
    const [service] = await database.db.insert(services).values({ clinicId: clinic.id, name: `Consultation ${String(p)}`, durationMin: 30, providerId: id }).returning();
    if (service) serviceIds.push(service.id);
  }
  const token = await mintToken(secret, { sub: agentId, email: `agent-${agentId}@bench.test` });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const firstService = serviceIds[0] ?? "";
  const availability = (from: string, serviceId = firstService) => `/v1/availability?clinic_id=${clinic.id}&service_id=${serviceId}&from=${from}&to=${from}`;

  // One booking first: a benchmark of failures measures nothing (it is cancelled again).
  const probe = await fetch(`${base}/v1/appointments?clinic_id=${clinic.id}`, {
    method: "POST",
    headers,
    body: JSON.stringify({ service_id: serviceIds[2], start: "2027-03-16T10:00:00+01:00", patient: { name: "Probe" } }),
  });
  if (probe.status !== 201) throw new Error(`the probe booking answered ${String(probe.status)}: ${await probe.text()}`);

  const rows: HttpRow[] = [];
  rows.push(await cannon("bare Fastify JSON route", { url: `${base}/bench/bare` }));
  rows.push(await cannon("route doing one `select 1`", { url: `${base}/bench/select1` }));
  rows.push(await cannon("availability, cache hit (1 day)", { url: `${base}${availability("2027-03-16")}`, headers }));
  let miss = 0;
  rows.push(
    await cannon("availability, cache miss (1 day)", {
      url: base,
      headers,
      requests: [
        {
          setupRequest: (request) => {
            // A new date (and service) every request: nothing is cached yet.
            const day = new Date(Date.parse("2027-04-01T00:00:00Z") + (miss % 700) * 86_400_000).toISOString().slice(0, 10);
            const serviceId = serviceIds[Math.floor(miss / 700) % serviceIds.length] ?? firstService;
            miss++;
            return { ...request, method: "GET", path: availability(day, serviceId) };
          },
        },
      ],
    }),
  );
  let booking = 0;
  rows.push(
    await cannon("bookings spread over 50 providers", {
      url: base,
      headers,
      requests: [
        {
          setupRequest: (request) => {
            // Each request a distinct (provider, slot): 50 providers × 16 slots a day, weekdays from 2027-06-07.
            const k = booking++;
            const serviceId = serviceIds[k % 50] ?? firstService;
            const slot = Math.floor(k / 50);
            const week = Math.floor(slot / 80);
            const dayInWeek = Math.floor((slot % 80) / 16);
            const date = new Date(Date.parse("2027-06-07T00:00:00Z") + (week * 7 + dayInWeek) * 86_400_000).toISOString().slice(0, 10);
            const minute = 540 + (slot % 16) * 30;
            const hh = String(Math.floor(minute / 60)).padStart(2, "0");
            const mm = String(minute % 60).padStart(2, "0");
            return {
              ...request,
              method: "POST",
              path: `/v1/appointments?clinic_id=${clinic.id}`,
              body: JSON.stringify({ service_id: serviceId, start: `${date}T${hh}:${mm}:00+02:00`, patient: { name: `Bench ${String(k)}` } }),
            };
          },
        },
      ],
    }),
  );

  // 50 simultaneous bookings of one slot through real HTTP connections.
  const hot = await Promise.all(
    Array.from({ length: 50 }, (_, k) =>
      fetch(`${base}/v1/appointments?clinic_id=${clinic.id}`, {
        method: "POST",
        headers,
        body: JSON.stringify({ service_id: serviceIds[1], start: "2027-03-15T09:00:00+01:00", patient: { name: `Hot ${String(k)}` } }),
      }).then((r) => r.status),
    ),
  );
  const hotSlot = { created: hot.filter((s) => s === 201).length, conflicts: hot.filter((s) => s === 409).length, other: hot.filter((s) => s !== 201 && s !== 409).length };

  await app.close();
  await database.db.delete(clinics).where(sql`id = ${clinic.id}`);
  await database.close();
  return { rows, hotSlot };
}

function table(headers: string[], rows: (string | number)[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) => cells.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join("  ");
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

async function main() {
  console.log("Slot engine (pure, in-process)...");
  const engine = await runEngineBench();
  console.log(table(["case", "ops/s", "ms/op", "slots"], engine.map((r) => [r.name, r.opsPerSec, r.msPerOp, r.slots])));
  console.log("targets: reference ≥ 5,000/s, union ≥ 1,000/s, large ≤ 20 ms\n");

  // `--db URL` (repeatable) runs the HTTP benchmarks on each database in turn, in this one sitting,
  // e.g. plain PostgreSQL beside a Citus coordinator (docs/scale-out.md#figures).
  const urls = process.argv.flatMap((arg, i) => (arg === "--db" ? [process.argv[i + 1] ?? ""] : arg.startsWith("--db=") ? [arg.slice(5)] : []));
  if (urls.length === 0) urls.push(loadConfig().databaseUrl ?? "postgres://postgres@127.0.0.1:5432/postgres");
  const http: { url: string; rows: HttpRow[]; hotSlot: { created: number; conflicts: number; other: number } }[] = [];
  for (const databaseUrl of urls) {
    const shown = databaseUrl.replace(/\/\/[^@]*@/, "//");
    console.log(`HTTP on ${shown}, autocannon, 20 connections, ${String(seconds)} s each (load average ${loadavg().map((l) => l.toFixed(2)).join(" ")})...`);
    const result = await httpBench(databaseUrl);
    http.push({ url: shown, ...result });
    console.log(table(["route", "req/s", "p50 ms", "p99 ms", "non-2xx"], result.rows.map((r) => [r.name, r.reqPerSec, r.p50ms, r.p99ms, r.non2xx])));
    for (const r of result.rows.filter((row) => row.non2xx > 0)) console.log(`WARNING: ${r.name}: ${String(r.non2xx)} answers were not 2xx; its req/s is not a figure of success`);
    const select1 = result.rows[1]?.reqPerSec ?? 1;
    const hit = result.rows[2]?.reqPerSec ?? 0;
    console.log(`\ncache hit / one-query route: ${(hit / select1 * 100).toFixed(0)}% (target ≥ 70%)`);
    console.log(`hot slot, 50 simultaneous bookings: ${String(result.hotSlot.created)} created, ${String(result.hotSlot.conflicts)} × 409, ${String(result.hotSlot.other)} other (target exactly 1 created)\n`);
  }
  const [first, ...others] = http;
  if (first && others.length > 0) {
    console.log(`Side by side (req/s, and as a ratio of the first database's figure in this run):`);
    console.log(
      table(
        ["route", ...http.map((h) => h.url)],
        first.rows.map((row, i) => [row.name, ...http.map((h) => `${String(h.rows[i]?.reqPerSec ?? 0)} (${((h.rows[i]?.reqPerSec ?? 0) / Math.max(row.reqPerSec, 1)).toFixed(2)}×)`)]),
      ),
    );
  }

  await mkdir("bench-results", { recursive: true });
  await writeFile("bench-results/bench.json", JSON.stringify({ at: new Date().toISOString(), engine, http }, null, 2));
  console.log("\nwrote bench-results/bench.json");
}

await main();
