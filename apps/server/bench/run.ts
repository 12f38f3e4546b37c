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
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { migrate, openDatabase } from "@clinic/db";
import type { LoadResult, LoadSpec } from "./load.ts";
import { removeClinic, seedClinic } from "./seed.ts";
import { benchDatabaseUrl, root, runLoad as runLoadProcess, shownUrl, startServer } from "./server.ts";

const seconds = 5;
const connections = 20;

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

/** One row of load from a process of its own. */
async function runLoad(name: string, spec: Omit<LoadSpec, "seconds" | "connections">): Promise<HttpRow> {
  const before = load1();
  const result = await runLoadProcess({ ...spec, seconds, connections });
  return { name, ...result, load1: Math.max(before, load1()) };
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
      const clinic = await seedClinic(database, "Bench");
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
        rows.push(await runLoad("GET /healthz (no database)", { kind: "get", base, path: "/healthz" }));
        rows.push(await runLoad("GET /readyz (one `select 1`)", { kind: "get", base, path: "/readyz" }));
        const hit = `/v1/availability?clinic_id=${clinic.clinicId}&service_id=${clinic.serviceIds[0] ?? ""}&from=2027-03-16&to=2027-03-16`;
        rows.push(await runLoad("availability, cache hit (1 day)", { kind: "get", ...common, path: hit }));
        rows.push(await runLoad("availability, cache miss (1 day)", { kind: "availability-miss", ...common }));
        rows.push(await runLoad("bookings spread over 50 providers", { kind: "bookings", ...common, weekOffset: i * 8 }));
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
        await removeClinic(database, clinic.clinicId);
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
  if (urls.length === 0) urls.push(benchDatabaseUrl());
  const workerCounts = [1, 2];
  const results: { url: string; calibration: ReturnType<typeof pgbench>; runs: WorkersRun[] }[] = [];
  for (const databaseUrl of urls) {
    const shown = shownUrl(databaseUrl);
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
