// `pnpm bench`: the slot-engine benchmark (@clinic/api's own `bench` script, in a process of its
// own), then HTTP benchmarks of the real server on PostgreSQL
// (DATABASE_URL, or the local server's `postgres` database; `--db URL` once per database to
// compare several, e.g. plain PostgreSQL and Citus).
//
// Honest by construction (docs/availability.md#benchmark): the server runs compiled in processes
// of its own (`apps/server/dist/main.js`, WORKERS=1 and then 2), the load generator (autocannon)
// runs in yet another process per row (bench/load.ts), and every figure is printed beside a
// calibration measured in the same sitting: the server's own one-query route (`/readyz`, a
// `select 1`) and, when `pgbench` is installed, PostgreSQL's own TPC-B-like and select-only TPS.
// The load average is printed with every row. Writes bench-results/bench.json and bench.md.
// A benchmark never fails on a timing; it reports what it measured.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { mintToken } from "@clinic/api";
import { loadConfig } from "@clinic/config";
import { clinicMembers, clinics, type DbHandle, migrate, openDatabase, services, users, workHours } from "@clinic/db";
import type { LoadResult, LoadSpec } from "./load.ts";

const secret = "bench-secret-0123456789-0123456789-abcdef";
const seconds = 5;
const connections = 20;
const root = fileURLToPath(new URL("../../../", import.meta.url));

/** One case of the slot-engine benchmark (packages/api/bench/engine.ts). */
interface EngineRow {
  name: string;
  opsPerSec: number;
  msPerOp: number;
  slots: number;
}

interface HttpRow extends LoadResult {
  name: string;
  load1: number;
}

const load1 = () => Number((loadavg()[0] ?? 0).toFixed(2));

/** The slot-engine benchmark, run by @clinic/api's own `bench` script in a process of its own. */
function runEngineBench(): EngineRow[] {
  const out = execFileSync("npm", ["run", "--silent", "bench", "--", "--json"], { cwd: `${root}packages/api`, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return JSON.parse(out.trim().split("\n").pop() ?? "[]") as EngineRow[];
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => { resolve(typeof address === "object" && address ? address.port : 0); });
    });
  });
}

/** One row of load from a process of its own. */
function runLoad(name: string, spec: Omit<LoadSpec, "seconds" | "connections">): HttpRow {
  const full: LoadSpec = { ...spec, seconds, connections };
  const before = load1();
  const out = execFileSync(process.execPath, ["--import", "tsx", "apps/server/bench/load.ts", JSON.stringify(full)], { cwd: root, encoding: "utf8" });
  const result = JSON.parse(out.trim().split("\n").pop() ?? "{}") as LoadResult;
  return { name, ...result, load1: Math.max(before, load1()) };
}

/** The compiled server with `workers` processes on `databaseUrl`; resolves once it listens. */
async function startServer(databaseUrl: string, workers: number): Promise<{ base: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--enable-source-maps", "apps/server/dist/main.js"], {
    cwd: root,
    detached: true,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      WORKERS: String(workers),
      PORT: String(port),
      HOST: "127.0.0.1",
      JWT_SECRET: secret,
      DEMO: "off",
      LOG_LEVEL: "warn",
      // Neither the per-IP nor the per-user booking-write limit may answer for the database here.
      RATE_LIMIT_MAX: "1000000000",
      BOOKING_RATE_LIMIT: "1000000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes("listening on")) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base: `http://127.0.0.1:${String(port)}`,
    stop: async () => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** A clinic with 50 providers working Mon–Fri 09:00–17:00 and one 30-minute service each. */
async function seedClinic(database: DbHandle) {
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
  return { clinicId: clinic.id, serviceIds, token };
}

interface WorkersRun {
  workers: number;
  rows: HttpRow[];
  hotSlot: { created: number; conflicts: number; other: number };
}

async function httpBench(databaseUrl: string, workerCounts: number[]): Promise<WorkersRun[]> {
  const database = await openDatabase({ url: databaseUrl, poolMax: 2 });
  const runs: WorkersRun[] = [];
  try {
    await migrate(database.db);
    for (const [i, workers] of workerCounts.entries()) {
      const server = await startServer(databaseUrl, workers);
      const clinic = await seedClinic(database);
      try {
        const { base } = server;
        const headers = { authorization: `Bearer ${clinic.token}`, "content-type": "application/json" };
        // One booking first: a benchmark of failures measures nothing.
        const probe = await fetch(`${base}/v1/appointments?clinic_id=${clinic.clinicId}`, {
          method: "POST",
          headers,
          body: JSON.stringify({ service_id: clinic.serviceIds[2], start: "2027-03-16T10:00:00+01:00", patient: { name: "Probe" } }),
        });
        if (probe.status !== 201) throw new Error(`the probe booking answered ${String(probe.status)}: ${await probe.text()}`);
        const common = { base, token: clinic.token, clinicId: clinic.clinicId, serviceIds: clinic.serviceIds };
        const rows: HttpRow[] = [];
        rows.push(runLoad("GET /healthz (no database)", { kind: "get", base, path: "/healthz" }));
        rows.push(runLoad("GET /readyz (one `select 1`)", { kind: "get", base, path: "/readyz" }));
        const hit = `/v1/availability?clinic_id=${clinic.clinicId}&service_id=${clinic.serviceIds[0] ?? ""}&from=2027-03-16&to=2027-03-16`;
        rows.push(runLoad("availability, cache hit (1 day)", { kind: "get", ...common, path: hit }));
        rows.push(runLoad("availability, cache miss (1 day)", { kind: "availability-miss", ...common }));
        rows.push(runLoad("bookings spread over 50 providers", { kind: "bookings", ...common, weekOffset: i * 8 }));
        // 50 simultaneous bookings of one slot through real HTTP connections.
        const hot = await Promise.all(
          Array.from({ length: 50 }, (_, k) =>
            fetch(`${base}/v1/appointments?clinic_id=${clinic.clinicId}`, {
              method: "POST",
              headers,
              body: JSON.stringify({ service_id: clinic.serviceIds[1], start: "2027-03-15T09:00:00+01:00", patient: { name: `Hot ${String(k)}` } }),
            }).then((r) => r.status),
          ),
        );
        runs.push({
          workers,
          rows,
          hotSlot: { created: hot.filter((s) => s === 201).length, conflicts: hot.filter((s) => s === 409).length, other: hot.filter((s) => s !== 201 && s !== 409).length },
        });
      } finally {
        await server.stop();
        await database.db.delete(clinics).where(sql`id = ${clinic.clinicId}`);
      }
    }
  } finally {
    await database.close();
  }
  return runs;
}

/** PostgreSQL's own figures in this sitting (pgbench, when installed), on a scratch database. */
function pgbench(databaseUrl: string): { tpcbTps: number; selectOnlyTps: number } | undefined {
  const which = ["/usr/bin/pgbench", "/usr/lib/postgresql/15/bin/pgbench"].find((p) => existsSync(p));
  if (!which) return undefined;
  const url = new URL(databaseUrl);
  url.pathname = "/postgres";
  const name = `bench_pgbench_${String(process.pid)}`;
  const admin = url.toString();
  execFileSync("psql", [admin, "-qc", `drop database if exists ${name}`, "-c", `create database ${name}`], { stdio: "ignore" });
  url.pathname = `/${name}`;
  const target = url.toString();
  try {
    execFileSync(which, ["-q", "-i", "-s", "10", target], { stdio: "ignore" });
    const tps = (args: string[]) => {
      const out = execFileSync(which, [...args, "-c", String(connections), "-j", "2", "-T", String(seconds), target], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
      return Math.round(Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0));
    };
    return { tpcbTps: tps([]), selectOnlyTps: tps(["-S"]) };
  } finally {
    execFileSync("psql", [admin, "-qc", `drop database if exists ${name} with (force)`], { stdio: "ignore" });
  }
}

function table(headers: string[], rows: (string | number)[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) => cells.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join("  ");
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function markdown(headers: string[], rows: (string | number)[][]): string {
  return [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

const pct = (a: number, b: number) => (b > 0 ? `${((a / b) * 100).toFixed(0)}%` : "n/a");

async function main() {
  const md: string[] = [`# pnpm bench, ${new Date().toISOString()}`, ""];
  console.log("Slot engine (pure, in-process)...");
  const engine = runEngineBench();
  const engineRows = engine.map((r) => [r.name, r.opsPerSec, r.msPerOp, r.slots]);
  console.log(table(["case", "ops/s", "ms/op", "slots"], engineRows));
  console.log("targets: reference ≥ 5,000/s, union ≥ 1,000/s, large ≤ 20 ms\n");
  md.push("## Slot engine", "", markdown(["case", "ops/s", "ms/op", "slots"], engineRows), "");

  if (!existsSync(`${root}apps/server/dist/main.js`)) throw new Error("build the server first: npm run build");
  const urls = process.argv.flatMap((arg, i) => (arg === "--db" ? [process.argv[i + 1] ?? ""] : arg.startsWith("--db=") ? [arg.slice(5)] : []));
  if (urls.length === 0) urls.push(loadConfig().databaseUrl ?? "postgres://postgres@127.0.0.1:5432/postgres");
  const workerCounts = [1, 2];
  const results: { url: string; calibration: ReturnType<typeof pgbench>; runs: WorkersRun[] }[] = [];
  for (const databaseUrl of urls) {
    const shown = databaseUrl.replace(/\/\/[^@]*@/, "//");
    console.log(`pgbench on ${shown} (${String(connections)} clients, ${String(seconds)} s each) ...`);
    const calibration = pgbench(databaseUrl);
    console.log(calibration ? `  TPC-B-like ${String(calibration.tpcbTps)} TPS, select-only ${String(calibration.selectOnlyTps)} TPS` : "  pgbench not installed: no database calibration");
    console.log(`HTTP on ${shown}: the compiled server with WORKERS=${workerCounts.join(" and then ")}, autocannon in its own process, ${String(connections)} connections, ${String(seconds)} s a row ...`);
    const runs = await httpBench(databaseUrl, workerCounts);
    results.push({ url: shown, calibration, runs });
    md.push(`## ${shown}`, "", calibration ? `pgbench: TPC-B-like ${String(calibration.tpcbTps)} TPS, select-only ${String(calibration.selectOnlyTps)} TPS (${String(connections)} clients).` : "pgbench not installed.", "");
    for (const run of runs) {
      const rows = run.rows.map((r) => [r.name, r.reqPerSec, r.p50ms, r.p99ms, r.non2xx, r.load1]);
      const headers = ["route", "req/s", "p50 ms", "p99 ms", "non-2xx", "load avg"];
      console.log(`\nWORKERS=${String(run.workers)}`);
      console.log(table(headers, rows));
      for (const r of run.rows.filter((row) => row.non2xx > 0)) console.log(`WARNING: ${r.name}: ${String(r.non2xx)} answers were not 2xx; its req/s is not a figure of success`);
      const readyz = run.rows[1]?.reqPerSec ?? 0;
      const hit = run.rows[2]?.reqPerSec ?? 0;
      const bookings = run.rows[4]?.reqPerSec ?? 0;
      const ratios = [
        `cache hit / one-query route: ${pct(hit, readyz)} (target ≥ 80%)`,
        `cache miss p99: ${String(run.rows[3]?.p99ms ?? 0)} ms (target < 50 ms)`,
        calibration ? `bookings / pgbench TPC-B-like: ${pct(bookings, calibration.tpcbTps)} (target ≥ 50%)` : "bookings / pgbench: n/a",
        `hot slot, 50 simultaneous bookings: ${String(run.hotSlot.created)} created, ${String(run.hotSlot.conflicts)} × 409, ${String(run.hotSlot.other)} other (target exactly 1 created)`,
      ];
      for (const line of ratios) console.log(line);
      md.push(`### WORKERS=${String(run.workers)}`, "", markdown(headers, rows), "", ...ratios.map((l) => `- ${l}`), "");
    }
    const [one, two] = runs;
    if (one && two) {
      const scaling = one.rows.map((r, i) => [r.name, r.reqPerSec, two.rows[i]?.reqPerSec ?? 0, `${((two.rows[i]?.reqPerSec ?? 0) / Math.max(r.reqPerSec, 1)).toFixed(2)}×`]);
      console.log(`\n1 → 2 workers:`);
      console.log(table(["route", "1 worker", "2 workers", "ratio"], scaling));
      md.push("### 1 → 2 workers", "", markdown(["route", "1 worker", "2 workers", "ratio"], scaling), "");
    }
  }
  const [first, ...others] = results;
  if (first && others.length > 0) {
    const side = (first.runs[0]?.rows ?? []).map((row, i) => [row.name, ...results.map((r) => `${String(r.runs[0]?.rows[i]?.reqPerSec ?? 0)} (${((r.runs[0]?.rows[i]?.reqPerSec ?? 0) / Math.max(row.reqPerSec, 1)).toFixed(2)}×)`)]);
    console.log(`\nSide by side, WORKERS=1 (req/s, and as a ratio of the first database's figure in this run):`);
    console.log(table(["route", ...results.map((r) => r.url)], side));
    md.push("## Side by side (WORKERS=1)", "", markdown(["route", ...results.map((r) => r.url)], side), "");
  }

  await mkdir("bench-results", { recursive: true });
  await writeFile("bench-results/bench.json", JSON.stringify({ at: new Date().toISOString(), engine, http: results }, null, 2));
  await writeFile("bench-results/bench.md", `${md.join("\n")}\n`);
  console.log("\nwrote bench-results/bench.json and bench-results/bench.md");
}

await main();
