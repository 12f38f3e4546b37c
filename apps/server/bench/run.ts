// `npm run bench [-- options]`: the slot-engine benchmark (@clinic/api's own `bench` script, in a
// process of its own), then HTTP benchmarks of the real server on PostgreSQL loaded as a clinic
// network would load it.
//
//   --seconds N      each HTTP row measures N s (default 30), after a short warm-up
//   --connections N  concurrent connections of each row, and pgbench's clients (default 20)
//   --workers N      the server's processes (WORKERS); default 1 and then 2; "1,2" for a list
//   --pool N         PostgreSQL connections of each server process (DATABASE_POOL_MAX); default: the
//                    server's own default (poolMaxFor: 4-10 for a database on this host, else 10).
//                    Printed with the rows' settings.
//   --db URL         the database (DATABASE_URL, else the local server's `postgres` database);
//                    once per database to compare several side by side, e.g. plain PostgreSQL and Citus
//   --no-engine      skip the slot-engine benchmark
//   --floor DIR      the safe-booking floor's folder (minbook.sql, minbook-schema.sql); default
//                    shared/bench beside the repository. Without it the floor's ratios are n/a.
//   --rows a,b,...   only these rows (readyz, hit, revalidate, miss, bookings, shared, hot, hotslot),
//                    e.g. to profile one of them with BENCH_CPU_PROF_DIR; default all but shared. A
//                    ratio whose calibration row was left out is n/a.
//   --generator G    the bookings rows' load generator: wrk (C, bench/bookings.lua; the default when
//                    `wrk` is installed: apt-get install wrk) or autocannon (JavaScript, 0.4-0.6 ms of
//                    the shared cores a booking). The other rows always run autocannon.
//   --calendars      providers' own calendars (docs/calendars.md): every provider of the cache and
//                    large clinics gets a calendar with busy time on every weekday (12:00–13:00 and
//                    15:30–16:00) from the cache rows' first date to a year after the misses' first,
//                    read by every availability answer; compare the cache rows with a run without
//                    (issue 38: within 10%). Printed with the world.
//   --wal-records    after each bookings row, its WAL by record type a booking (pg_walinspect's
//                    pg_get_wal_stats over the row's range; the extension is created in the database):
//                    what the WAL row measures, record by record (docs/performance.md#what-a-booking-writes).
//   --shared         add the row "bookings across 100 clinics, every provider shared with a second
//                    clinic" (docs/shared-providers.md; the same as `shared` in --rows): a second
//                    world of 100 clinics, seeded only then, whose clinic c's providers are also
//                    approved providers (same hours) of clinic (c + 1) mod 100, so every booking is
//                    written into provider_busy too. Printed next to the bookings row as the same
//                    ratio to pgbench, plus shared ÷ unshared bookings/s.
//
// The world (seed.ts, written in batches): 100 clinics in four time zones × 10 approved providers
// (Mon–Fri 09:00–17:00 clinic time), each clinic with one service per provider and two
// any-provider services; 1,000 booking agents and staff with tokens of their own, members of the
// clinics; an active webhook in every clinic to a sink on 127.0.0.1 that answers 204; one clinic
// of 50 providers; and four weeks of past appointments in every clinic (8 a weekday per provider,
// 1,600 a clinic), so that the tables and the planner's statistics are those of clinics in use: a
// world without history had each connection plan lookups by id for a table it believed empty, and
// the hot clinic's row scanned the clinic's growing appointments on every booking. Removed at the end.
//
// Honest by construction (docs/performance.md#benchmark): the server runs compiled in processes
// of its own (`apps/server/dist/main.js`), the load generator (autocannon) runs in yet another
// process per row (bench/load.ts), and every figure is a ratio to a calibration measured in the
// same run: the server's own one-query route (`/readyz`, a `select 1`, measured just before and
// just after each availability row it calibrates, the mean of the two) and PostgreSQL's own
// TPC-B-like TPS (`pgbench -s 10`, the same clients and duration), and the bookings' yardstick,
// the safe-booking floor (shared/bench/README.md: pgbench running the least a booking that cannot
// double-book and replays retries asks of PostgreSQL, same clients and duration). The rows, each with
// `--connections` connections:
//   GET /readyz; availability cache hits (the 20-provider clinic's two any-provider services over
//   one day, 60 weekdays: 120 keys, random users of the clinic; every key warmed first); the same requests revalidated with If-None-Match (the
//   ETag the user's GET answered); availability misses (a new 7-day range of an any-provider
//   service of the 50-provider clinic every request); bookings across the 100 clinics (each a
//   distinct free slot of a random clinic by one of its users, assigned and any-provider services
//   alike, 30% with an Idempotency-Key, some exact retries that must answer the same appointment);
//   bookings of one hot clinic; and the hot slot (50 simultaneous bookings of one slot: exactly
//   one 201 and 49 × 409).
// The booking rows and the floor also measure their WAL: `pg_current_wal_lsn()` before and after the
// whole row (the bookings: warm-up included, over the appointments created; the floor: over its
// pgbench transactions), printed as bytes per booking and per transaction and as their ratio (issue
// 49: at most 3×). The cluster's WAL, so the machine's other databases must be quiet meanwhile.
// Prints one table of ratios and one of raw figures with the load average of each row; writes
// bench-results/bench.json and bench.md, and the section between `<!-- bench:start -->` and
// `<!-- bench:end -->` of docs/performance.md. A benchmark never fails on a timing; it fails only
// when something is broken (the probe booking is not 201, the server does not start).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg, totalmem } from "node:os";
import { sql } from "drizzle-orm";
import { poolMaxFor } from "@clinic/config";
import { type DbHandle, migrate, openDatabase, rowsOf } from "@clinic/db";
import { addDays, zonedInstant } from "./dates.ts";
import type { AvailabilityKey, LoadResult, LoadSpec } from "./load.ts";
import {
  type BenchClinic,
  type BenchWorld,
  type WorldShape,
  removeLeftovers,
  removeWorld,
  seedWorld,
  zones,
} from "./seed.ts";
import {
  type Sink,
  benchDatabaseUrl,
  cacheLookups,
  root,
  runLoad,
  shownUrl,
  startServer,
  startSink,
} from "./server.ts";

interface Options {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  workerCounts: number[];
  /** DATABASE_POOL_MAX of the server processes (undefined: the server's default). */
  poolMax: number | undefined;
  urls: string[];
  engine: boolean;
  /** The rows to run (all by default). */
  rows: ReadonlySet<string>;
  /** Providers' own calendars' busy time in the cache and large clinics (--calendars). */
  calendars: boolean;
  /** The bookings rows' load generator (--generator). */
  generator: "wrk" | "autocannon";
  /** Print each bookings row's WAL by record type (--wal-records). */
  walRecords: boolean;
  /** The folder of the safe-booking floor (minbook.sql, minbook-schema.sql); default shared/bench. */
  floorDir: string | undefined;
}

function parseOptions(argv: string[]): Options {
  const values = (name: string) =>
    argv.flatMap((arg, i) =>
      arg === `--${name}` ? [argv[i + 1] ?? ""] : arg.startsWith(`--${name}=`) ? [arg.slice(name.length + 3)] : [],
    );
  const number = (name: string, fallback: number) => {
    const text = values(name).at(-1);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number ≥ 1, not ${text}`);
    return value;
  };
  const seconds = number("seconds", 30);
  const workers = values("workers").at(-1);
  const workerCounts = workers === undefined ? [1, 2] : workers.split(",").map(Number);
  if (workerCounts.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`--workers must be N or a list such as 1,2, not ${workers ?? ""}`);
  const urls = values("db");
  return {
    seconds,
    warmupSeconds: Math.min(5, Math.max(1, Math.round(seconds / 10))),
    connections: number("connections", 20),
    workerCounts,
    poolMax: values("pool").length > 0 ? number("pool", 10) : undefined,
    urls: urls.length > 0 ? urls : [benchDatabaseUrl()],
    engine: !argv.includes("--no-engine"),
    rows: new Set(rowsOption(values("rows").at(-1), argv.includes("--shared"))),
    floorDir: values("floor").at(-1),
    calendars: argv.includes("--calendars"),
    generator: generatorOption(values("generator").at(-1)),
    walRecords: argv.includes("--wal-records"),
  };
}

/** The bookings rows' load generator: as asked, else wrk when it is installed, else autocannon. */
function generatorOption(text: string | undefined): "wrk" | "autocannon" {
  if (text === "wrk" || text === "autocannon") return text;
  if (text !== undefined) throw new Error(`--generator: wrk or autocannon, not ${text}`);
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing program is "not installed".
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "autocannon";
  }
  return "wrk";
}

/** The rows of a run without --rows; `shared` (a world of its own) only with --shared or --rows. */
const defaultRows = ["readyz", "hit", "revalidate", "miss", "bookings", "hot", "hotslot"];
const allRows = [...defaultRows, "shared"];

function rowsOption(text: string | undefined, shared: boolean): string[] {
  const extra = shared ? ["shared"] : [];
  if (text === undefined) return [...defaultRows, ...extra];
  const rows = text.split(",").map((r) => r.trim());
  const unknown = rows.filter((r) => !allRows.includes(r));
  if (unknown.length > 0) throw new Error(`--rows: unknown ${unknown.join(", ")} (rows: ${allRows.join(", ")})`);
  return [...rows, ...extra];
}

const options = parseOptions(process.argv.slice(2));
const { seconds, connections } = options;

const shape: WorldShape = {
  clinics: 100,
  providersPerClinic: 10,
  users: 1000,
  anyServicesPerClinic: 2,
  largeClinicProviders: 50,
  cacheClinicProviders: 20,
  // Every clinic: deliveries must keep pace with bookings across all of them (issue 37).
  webhookClinics: 100,
  webhookUrl: undefined,
  // Four weeks of past appointments: 1,600 a clinic (8,000 in the large one).
  historyDays: 28,
};
/** Dates of the rows (far ahead, so that no time rule of a service cuts them). */
const hitDates = Array.from({ length: 84 }, (_, i) => new Date(Date.UTC(2029, 2, 5 + i)))
  .filter((d) => d.getUTCDay() >= 1 && d.getUTCDay() <= 5)
  .map((d) => d.toISOString().slice(0, 10));
const missFirstDate = "2031-01-06";
const missDays = 7;
/** Monday of week 0 of the bookings; each workers run and row takes weeks of its own from here. */
const bookingsMonday = "2030-01-07";

/** One case of the slot-engine benchmark (packages/api/bench/engine.ts). */
interface EngineRow {
  name: string;
  opsPerSec: number;
  msPerOp: number;
  slots: number;
}

const rowNames = {
  readyz: "GET /readyz (one `select 1`)",
  hit: "availability, cache hit (an any-provider service of 20 providers, 1 day)",
  revalidate: "availability, 304 revalidation (If-None-Match)",
  miss: `availability, cache miss (${String(shape.largeClinicProviders)} providers × ${String(missDays)} days)`,
  bookings: `bookings across ${String(shape.clinics)} clinics`,
  shared: `bookings across ${String(shape.clinics)} clinics, every provider shared with a second clinic`,
  hot: "bookings, one hot clinic",
} as const;
type RowId = keyof typeof rowNames;

interface HttpRow extends LoadResult {
  id: RowId;
  name: string;
  /** The 1-minute load average, the higher of before and after the row. */
  load1: number;
  /** Availability rows with WORKERS=1: the cache's lookups during the row, warm-up included (from /metrics). */
  cache?: { hits: number; misses: number };
  /**
   * The bookings row: webhook deliveries still pending when the row ended, and the seconds until
   * none was (undefined: not within 5 minutes). Deliveries keep pace when it is ≤ 30 s.
   */
  backlog?: { pending: number; drainedS: number | undefined };
  /**
   * The booking rows: WAL bytes per appointment written, `pg_current_wal_lsn()` before and after the
   * whole row (warm-up included) over the appointments created meanwhile (the 201s); the webhook
   * deliveries made during the row are in it. The cluster's WAL: anything else the database
   * server does meanwhile counts too.
   */
  walPerBooking?: number;
}

interface WorkersRun {
  workers: number;
  rows: HttpRow[];
  /** Absent when --rows left it out. */
  hotSlot: { created: number; conflicts: number; other: number } | undefined;
  /** Webhook deliveries planned (one per booking of a clinic with a webhook) and received by the sink while this server ran. */
  webhooks: { planned: number; received: number };
}

interface DatabaseResult {
  url: string;
  postgres: string;
  pgbench: { tps: number; load1: number } | undefined;
  /** The safe-booking floor (../shared/bench, pgbench with minbook.sql) in the same sitting. */
  floor: { tps: number; load1: number; walPerTransaction: number | undefined } | undefined;
  runs: WorkersRun[];
}

const warnings: string[] = [];
/** The database being measured, named in warnings when there are several. */
let measuring = "";
function warn(line: string): void {
  const text = options.urls.length > 1 && measuring ? `${measuring}: ${line}` : line;
  warnings.push(text);
  console.log(`WARNING: ${text}`);
}

const load1 = () => Number((loadavg()[0] ?? 0).toFixed(2));
const loadAverages = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");

const first = <T>(list: readonly T[], what: string): T => {
  const value = list[0];
  if (value === undefined) throw new Error(`no ${what}`);
  return value;
};

/** The slot-engine benchmark, run by @clinic/api's own `bench` script in a process of its own. */
function runEngineBench(): EngineRow[] {
  const out = execFileSync("npm", ["run", "--silent", "bench", "--", "--json"], {
    cwd: `${root}packages/api`,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(out.trim().split("\n").pop() ?? "[]") as EngineRow[];
}

/** One row of load from a process of its own, with progress and its warnings. */
async function runRow(database: DbHandle, id: RowId, workers: number, spec: LoadSpec): Promise<HttpRow> {
  const name = rowNames[id];
  // As pgbench vacuums its tables before it measures: every row starts from a vacuumed, analyzed
  // database, not from the dead rows the rows before it left (a server whose autovacuum is off, as
  // on the CI machine, would otherwise measure every row on more of them than the last:
  // docs/performance.md#benchmark).
  await database.db.execute(sql`vacuum (analyze)`);
  const warm =
    spec.kind === "availability-hit"
      ? `every key ${String(spec.warmupPasses)} times`
      : `${String(spec.warmupSeconds)} s`;
  console.log(`  ${name}: warm-up (${warm}), then ${String(spec.seconds)} s ...`);
  // With one process, /metrics tells whether the availability rows hit the cache as they mean to.
  const counted = workers === 1 && (id === "hit" || id === "revalidate" || id === "miss");
  const lookups = counted ? await cacheLookups(spec.base) : undefined;
  const before = load1();
  const writes = spec.kind === "bookings" ? await walMark(database) : undefined;
  const result = await runLoad(spec);
  const row: HttpRow = { id, name, ...result, load1: Math.max(before, load1()) };
  if (writes) row.walPerBooking = await walPerAppointment(database, writes);
  if (writes && options.walRecords) await printWalRecords(database, writes);
  if (lookups) {
    const now = await cacheLookups(spec.base);
    row.cache = { hits: now.hits - lookups.hits, misses: now.misses - lookups.misses };
  }
  const cache = row.cache
    ? `; cache ${String(row.cache.hits)} hits, ${String(row.cache.misses)} misses (warm-up included)`
    : "";
  console.log(
    `    ${String(row.reqPerSec)} req/s, p50 ${String(row.p50ms)} ms, p99 ${String(row.p99ms)} ms, non-2xx ${String(row.non2xx)}, load ${String(row.load1)}, server CPU ${String(row.serverCpuMsPerRequest ?? "n/a")} ms/req, database CPU ${String(row.databaseCpuMsPerRequest ?? "n/a")} ms/req, load generator CPU ${String(row.loadCpuMsPerRequest ?? "n/a")} ms/req${cache}`,
  );
  const where = `WORKERS=${String(workers)}, ${name}`;
  if (row.cache && spec.kind === "availability-hit" && row.cache.misses > spec.keys.length) {
    warn(
      `${where}: ${String(row.cache.misses)} cache misses, more than the ${String(spec.keys.length)} keys' first asks: not every request was a hit`,
    );
  }
  if (row.cache && id === "miss" && row.cache.hits > 0)
    warn(`${where}: ${String(row.cache.hits)} requests hit the cache`);
  if (id === "revalidate" && row.etags) {
    if (row.etags.with === 0)
      warn(
        `${where}: the server sent no ETag on availability, so this row measured 200s, not 304s (${String(row.non2xx)} answers were not 304)`,
      );
    else if (row.non2xx > 0)
      warn(
        `${where}: ${String(row.non2xx)} of ${String(row.total)} revalidations were not 304 (${String(row.etags.with)} of ${String(row.etags.of)} keys had an ETag)`,
      );
  } else if (row.non2xx > 0) {
    warn(
      `${where}: ${String(row.non2xx)} of ${String(row.total)} answers were not 2xx (${JSON.stringify(row.statuses)}, ${String(row.errors)} errors): its req/s is not a figure of success`,
    );
  }
  if (row.retries && row.retries.same < row.retries.answered) {
    warn(
      `${where}: ${String(row.retries.answered - row.retries.same)} of ${String(row.retries.answered)} exact retries of a keyed booking did not answer the same appointment`,
    );
  }
  return row;
}

/** Where the WAL and the database's clock are now: the start of a booking row's WAL measurement. */
async function walMark(database: DbHandle): Promise<{ lsn: string; at: string }> {
  const [mark] = rowsOf<{ lsn: string; at: string }>(
    await database.db.execute(sql`select pg_current_wal_lsn()::text as lsn, clock_timestamp()::text as at`),
  );
  if (!mark) throw new Error("no WAL position");
  return mark;
}

/** WAL bytes since `mark` over the appointments created since (undefined when none was). */
async function walPerAppointment(database: DbHandle, mark: { lsn: string; at: string }): Promise<number | undefined> {
  const [row] = rowsOf<{ bytes: number; created: number }>(
    await database.db.execute(sql`select pg_wal_lsn_diff(pg_current_wal_lsn(), ${mark.lsn}::pg_lsn)::float8 as bytes,
      (select count(*)::int from appointments where created_at >= ${mark.at}::timestamptz) as created`),
  );
  return row && row.created > 0 ? Math.round(row.bytes / row.created) : undefined;
}

/** The WAL since `mark` by record type, a booking (the appointments created since), largest first. */
async function printWalRecords(database: DbHandle, mark: { lsn: string; at: string }): Promise<void> {
  await database.db.execute(sql`create extension if not exists pg_walinspect`);
  const stats = rowsOf<{ type: string; count: number; bytes: number; fpi: number; created: number }>(
    await database.db.execute(sql`
      select "resource_manager/record_type" as type, count::float8 as count, record_size::float8 as bytes,
             fpi_size::float8 as fpi,
             (select count(*)::int from appointments where created_at >= ${mark.at}::timestamptz) as created
      from pg_get_wal_stats(${mark.lsn}::pg_lsn, pg_current_wal_lsn(), true)
      where count > 0 order by record_size + fpi_size desc limit 16`),
  );
  for (const row of stats) {
    const per = (n: number) => n / Math.max(1, row.created);
    console.log(
      `    ${row.type.padEnd(28)} ${per(row.count).toFixed(2).padStart(6)} a booking ${per(row.bytes).toFixed(0).padStart(6)} B${row.fpi > 0 ? ` + ${per(row.fpi).toFixed(0)} B full pages` : ""}`,
    );
  }
}

/**
 * The worlds' webhook deliveries so far: planned, and still pending. Since v1.4 a delivery's row is
 * written with its first attempt (docs/events.md#webhooks): the events after each webhook's cursor
 * in its clinic's feed are deliveries not attempted yet (the bench's webhooks take every type).
 */
async function deliveries(database: DbHandle, worlds: BenchWorld[]): Promise<{ planned: number; pending: number }> {
  const hooked = worlds.flatMap((world) => [...world.clinics, world.large]).filter((c) => c.webhook);
  if (hooked.length === 0) return { planned: 0, pending: 0 };
  const ids = sql.join(
    hooked.map((c) => sql`${c.id}::uuid`),
    sql`, `,
  );
  // Attempted: the delivery rows and the events of the batches' rows (first attempts that
  // succeeded, docs/events.md#delivery-history).
  const [rows] = rowsOf<{ attempted: number; pending: number }>(
    await database.db.execute(
      sql`select (count(*) + (select coalesce(sum(cardinality(b.seqs)), 0) from webhook_sent b where b.clinic_id in (${ids})))::int as attempted,
                 (count(*) filter (where status = 'pending'))::int as pending
          from webhook_deliveries where clinic_id in (${ids})`,
    ),
  );
  const [feed] = rowsOf<{ behind: number }>(
    await database.db.execute(
      sql`select coalesce(sum(c.last_seq - w.feed_seq), 0)::int as behind from webhooks w join event_counters c on c.clinic_id = w.clinic_id where w.active and w.clinic_id in (${ids})`,
    ),
  );
  const behind = feed?.behind ?? 0;
  return { planned: (rows?.attempted ?? 0) + behind, pending: (rows?.pending ?? 0) + behind };
}

/**
 * Waits (at most 5 minutes, printing progress) until the worlds' pending webhook deliveries are
 * made; answers the seconds it took, or undefined when some are still pending.
 */
async function drainDeliveries(database: DbHandle, worlds: BenchWorld[], pending: number): Promise<number | undefined> {
  const started = Date.now();
  console.log(`  delivering the ${String(pending)} pending webhook deliveries before the next rows ...`);
  let left = pending;
  let said = started;
  while (left > 0 && Date.now() - started < 300_000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = (await deliveries(database, worlds)).pending;
    if (Date.now() - said >= 15_000) {
      said = Date.now();
      console.log(`    ${String(left)} pending after ${String(Math.round((said - started) / 1000))} s`);
    }
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(
    left > 0
      ? `    ${String(left)} still pending after ${seconds.toFixed(0)} s: the next rows share the machine with them`
      : `    delivered in ${seconds.toFixed(1)} s (${String(Math.round(pending / seconds))} deliveries/s with the machine otherwise idle)`,
  );
  return left > 0 ? undefined : seconds;
}

async function book(
  base: string,
  clinic: BenchClinic,
  token: string,
  serviceId: string,
  start: string,
  name: string,
): Promise<Response> {
  return fetch(`${base}/v1/appointments?clinic_id=${clinic.id}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ service_id: serviceId, start, patient: { name } }),
  });
}

async function httpBench(databaseUrl: string, sink: Sink): Promise<DatabaseResult> {
  const shown = shownUrl(databaseUrl);
  measuring = shown;
  const database = await openDatabase({ url: databaseUrl, poolMax: 2 });
  try {
    await migrate(database.db);
    const postgres =
      rowsOf<{ server_version: string }>(await database.db.execute(sql`show server_version`))[0]?.server_version ??
      "unknown";
    console.log(`\n${shown} (PostgreSQL ${postgres})`);
    const databaseParent = await localPostmaster(database);
    const leftovers = await removeLeftovers(database);
    if (leftovers > 0) console.log(`  removed the ${String(leftovers)} clinics an earlier run left (it was stopped)`);
    const calendarBusy = options.calendars ? { from: hitDates[0] ?? "2029-03-05", days: 1100 } : undefined;
    const world = await seedWorld(database, { ...shape, webhookUrl: sink.url, calendarBusy }, (line) => {
      console.log(`  ${line}`);
    });
    // The shared row's world of its own (so that the other rows' world stays as it was).
    let sharedWorld: BenchWorld | undefined;
    try {
      if (options.rows.has("shared")) {
        console.log("  the shared providers' world:");
        sharedWorld = await seedWorld(database, { ...shape, webhookUrl: sink.url, sharedProviders: true }, (line) => {
          console.log(`  ${line}`);
        });
      }
      const worlds = sharedWorld ? [world, sharedWorld] : [world];
      console.log(`  pgbench TPC-B-like -s 10, ${String(connections)} clients, ${String(seconds)} s ...`);
      const before = load1();
      const tps = pgbench(databaseUrl);
      const calibration = tps === undefined ? undefined : { tps, load1: Math.max(before, load1()) };
      console.log(
        calibration ? `    ${String(calibration.tps)} TPS` : "    pgbench not installed: no database calibration",
      );
      console.log(`  the safe-booking floor (shared/bench), ${String(connections)} clients, ${String(seconds)} s ...`);
      const floorBefore = load1();
      const measured = safeBookingFloor(databaseUrl);
      const floor = measured === undefined ? undefined : { ...measured, load1: Math.max(floorBefore, load1()) };
      console.log(
        floor
          ? `    ${String(floor.tps)} TPS, ${String(floor.walPerTransaction ?? "n/a")} bytes of WAL a transaction`
          : "    no pgbench or no shared/bench: no floor",
      );
      const runs: WorkersRun[] = [];
      let week = 0;
      const clinics = world.clinics;
      const hotClinic = first(clinics, "clinic");
      const hotSlotClinic = clinics[1] ?? hotClinic;
      const settings = { seconds, warmupSeconds: options.warmupSeconds, connections };
      // The cache rows' keys: the 20-provider clinic's any-provider services over one day, 60
      // weekdays each (answers with every provider's slots, not tiny ones; issue 37).
      const hitKeys: AvailabilityKey[] = world.cache.anyServiceIds.flatMap((serviceId) =>
        hitDates.map((date) => ({ clinicId: world.cache.id, serviceId, date, tokens: world.cache.tokens })),
      );

      for (const workers of options.workerCounts) {
        console.log(
          `\n  WORKERS=${String(workers)}: the compiled server, autocannon in its own process (the bookings rows: ${options.generator}), ${String(connections)} connections, ${String(seconds)} s a row`,
        );
        const server = await startServer(databaseUrl, workers, options.poolMax);
        const received = sink.received();
        const planned = (await deliveries(database, worlds)).planned;
        try {
          const { base } = server;
          const common = { ...settings, serverGroup: server.pid, databaseParent };
          // Week `reserved` holds the probe and the hot slot; the booking rows take the weeks after it.
          const reserved = addDays(bookingsMonday, week++ * 7);
          const probe = await book(
            base,
            hotClinic,
            first(hotClinic.tokens, "token"),
            first(hotClinic.assignedServiceIds, "service"),
            zonedInstant(reserved, 600, hotClinic.timezone),
            "Probe",
          );
          // One booking first: a benchmark of failures measures nothing.
          if (probe.status !== 201)
            throw new Error(`the probe booking answered ${String(probe.status)}: ${await probe.text()}`);
          const rows: HttpRow[] = [];
          const wanted = (id: RowId | "hotslot") => options.rows.has(id);
          // /readyz before and after each availability row it calibrates: on a shared machine the
          // load drifts within a run, and a ratio is only as good as its calibration's timing.
          const readyz = async () => {
            if (wanted("readyz"))
              rows.push(await runRow(database, "readyz", workers, { ...common, kind: "get", base, path: "/readyz" }));
          };
          await readyz();
          if (wanted("hit")) {
            rows.push(
              await runRow(database, "hit", workers, {
                ...common,
                kind: "availability-hit",
                base,
                keys: hitKeys,
                warmupPasses: 1 + 3 * workers,
              }),
            );
            await readyz();
          }
          if (wanted("revalidate")) {
            rows.push(
              await runRow(database, "revalidate", workers, {
                ...common,
                kind: "availability-304",
                base,
                keys: hitKeys,
              }),
            );
            await readyz();
          }
          if (wanted("miss"))
            rows.push(
              await runRow(database, "miss", workers, {
                ...common,
                kind: "availability-miss",
                base,
                clinic: world.large,
                firstDate: missFirstDate,
                days: missDays,
              }),
            );
          const bookingMix = { idempotentShare: 0.3, retryShare: 0.05, generator: options.generator };
          if (wanted("bookings")) {
            const spread = await runRow(database, "bookings", workers, {
              ...common,
              kind: "bookings",
              base,
              clinics,
              firstMonday: addDays(bookingsMonday, week * 7),
              ...bookingMix,
            });
            week += spread.weeksUsed ?? 0;
            // The backlog the row left: deliveries keep pace when it is gone within 30 s.
            const { pending } = await deliveries(database, worlds);
            spread.backlog = {
              pending,
              drainedS: pending === 0 ? 0 : await drainDeliveries(database, worlds, pending),
            };
            rows.push(spread);
          }
          if (wanted("shared") && sharedWorld) {
            // The bookings row's load on the shared world: each booking also takes provider_busy.
            const shared = await runRow(database, "shared", workers, {
              ...common,
              kind: "bookings",
              base,
              clinics: sharedWorld.clinics,
              firstMonday: addDays(bookingsMonday, week * 7),
              ...bookingMix,
            });
            week += shared.weeksUsed ?? 0;
            rows.push(shared);
          }
          if (wanted("hot")) {
            const hot = await runRow(database, "hot", workers, {
              ...common,
              kind: "bookings",
              base,
              clinics: [hotClinic],
              firstMonday: addDays(bookingsMonday, week * 7),
              ...bookingMix,
            });
            week += hot.weeksUsed ?? 0;
            rows.push(hot);
          }
          // 50 simultaneous bookings of one slot through real HTTP connections.
          async function hotSlotRun(): Promise<{ created: number; conflicts: number; other: number }> {
            console.log("  the hot slot: 50 simultaneous bookings of one slot ...");
            const slot = zonedInstant(addDays(reserved, 1), 540, hotSlotClinic.timezone);
            const serviceId = first(hotSlotClinic.assignedServiceIds, "service");
            const statuses = await Promise.all(
              Array.from({ length: 50 }, async (_, k) => {
                const answer = await book(
                  base,
                  hotSlotClinic,
                  hotSlotClinic.tokens[k % hotSlotClinic.tokens.length] ?? "",
                  serviceId,
                  slot,
                  `Hot ${String(k)}`,
                );
                await answer.arrayBuffer();
                return answer.status;
              }),
            );
            const hotSlot = {
              created: statuses.filter((s) => s === 201).length,
              conflicts: statuses.filter((s) => s === 409).length,
              other: statuses.filter((s) => s !== 201 && s !== 409).length,
            };
            console.log(
              `    ${String(hotSlot.created)} × 201, ${String(hotSlot.conflicts)} × 409, ${String(hotSlot.other)} other`,
            );
            if (hotSlot.created !== 1 || hotSlot.other > 0)
              warn(
                `WORKERS=${String(workers)}: the hot slot answered ${String(hotSlot.created)} × 201, ${String(hotSlot.conflicts)} × 409, ${String(hotSlot.other)} other (expected exactly one 201 and 49 × 409)`,
              );
            return hotSlot;
          }
          const hotSlot = wanted("hotslot") ? await hotSlotRun() : undefined;
          const now = await deliveries(database, worlds);
          const webhooks = { planned: now.planned - planned, received: sink.received() - received };
          console.log(
            `  webhooks: ${String(webhooks.planned)} deliveries planned during this run, ${String(webhooks.received)} received by the sink, ${String(now.pending)} pending`,
          );
          const booked = wanted("bookings") || wanted("hot") || wanted("shared");
          if (booked && webhooks.received === 0)
            warn(`WORKERS=${String(workers)}: the webhook sink received no delivery`);
          else if (booked && webhooks.received < webhooks.planned / 2)
            warn(
              `WORKERS=${String(workers)}: webhook deliveries lag the bookings: ${String(webhooks.planned)} planned during the run, ${String(webhooks.received)} received (${String(now.pending)} still pending)`,
            );
          // Deliveries still pending would be delivered during the next WORKERS' rows, by its server,
          // and counted in their CPU per request (they were: 18,051 pending after WORKERS=1's
          // booking rows, 19,017 received during WORKERS=2's cache rows). This server delivers them first.
          if (now.pending > 0) await drainDeliveries(database, worlds, now.pending);
          runs.push({ workers, rows, hotSlot, webhooks });
        } finally {
          await server.stop();
        }
      }
      return { url: shown, postgres, pgbench: calibration, floor, runs };
    } finally {
      console.log("  removing the bench world ...");
      if (sharedWorld) await removeWorld(database, sharedWorld);
      await removeWorld(database, world);
    }
  } finally {
    await database.close();
  }
}

/**
 * The postmaster of the database, when it runs on this machine (its backends' CPU is then read
 * around each row): the parent of this connection's backend, if /proc shows that pid as a
 * PostgreSQL process. Undefined for a database elsewhere (a pid there means nothing here).
 */
async function localPostmaster(database: DbHandle): Promise<number | undefined> {
  const pid = rowsOf<{ pid: number }>(await database.db.execute(sql`select pg_backend_pid() as pid`))[0]?.pid;
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    if (!stat.includes("(postgres)")) return undefined;
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return readFileSync(`/proc/${String(parent)}/stat`, "utf8").includes("(postgres)") ? parent : undefined;
  } catch {
    return undefined;
  }
}

const pgbenchBinary = () => ["/usr/bin/pgbench", "/usr/lib/postgresql/15/bin/pgbench"].find((p) => existsSync(p));

/**
 * Runs pgbench on a scratch database of the server (made by `prepare`, dropped after) with the
 * rows' clients and seconds, and answers its TPS; undefined without pgbench.
 */
function pgbenchTps(
  databaseUrl: string,
  name: string,
  prepare: (pgbench: string, target: string) => void,
  script: string[],
): { tps: number; walPerTransaction: number | undefined } | undefined {
  const which = pgbenchBinary();
  if (!which) return undefined;
  const url = new URL(databaseUrl);
  url.pathname = "/postgres";
  const database = `bench_${name}_${String(process.pid)}`;
  const admin = url.toString();
  execFileSync("psql", [admin, "-qc", `drop database if exists ${database}`, "-c", `create database ${database}`], {
    stdio: "ignore",
  });
  url.pathname = `/${database}`;
  const target = url.toString();
  const lsn = () => execFileSync("psql", [admin, "-Atc", "select pg_current_wal_lsn()"], { encoding: "utf8" }).trim();
  try {
    prepare(which, target);
    const before = lsn();
    const out = execFileSync(which, [...script, "-c", String(connections), "-j", "2", "-T", String(seconds), target], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const bytes = Number(
      execFileSync("psql", [admin, "-Atc", `select pg_wal_lsn_diff(pg_current_wal_lsn(), '${before}')`], {
        encoding: "utf8",
      }).trim(),
    );
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1] ?? 0);
    return {
      tps: Math.round(Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0)),
      walPerTransaction: transactions > 0 ? Math.round(bytes / transactions) : undefined,
    };
  } finally {
    execFileSync("psql", [admin, "-qc", `drop database if exists ${database} with (force)`], { stdio: "ignore" });
  }
}

/** PostgreSQL's own TPC-B-like TPS in this sitting (pgbench -s 10, when installed). */
function pgbench(databaseUrl: string): number | undefined {
  return pgbenchTps(
    databaseUrl,
    "pgbench",
    (which, target) => execFileSync(which, ["-q", "-i", "-s", "10", target], { stdio: "ignore" }),
    [],
  )?.tps;
}

/**
 * The shared bench folder: `--floor DIR`, else `shared/bench` beside the repository (the
 * developers' and CI's layout), else undefined.
 */
function floorFolder(): string | undefined {
  const dir = options.floorDir ?? new URL("../../../../shared/bench/", import.meta.url).pathname;
  return existsSync(`${dir}/minbook.sql`) && existsSync(`${dir}/minbook-schema.sql`) ? dir : undefined;
}

/**
 * The safe-booking floor in this sitting (shared/bench/README.md): what any service that keeps
 * double booking impossible in the database and replays retries must at least ask of PostgreSQL
 * for one booking — read the hours, store the idempotency key, insert under an exclusion
 * constraint, one transaction — as pgbench TPS.
 */
function safeBookingFloor(databaseUrl: string): { tps: number; walPerTransaction: number | undefined } | undefined {
  const folder = floorFolder();
  if (!folder) return undefined;
  return pgbenchTps(
    databaseUrl,
    "floor",
    (_, target) => execFileSync("psql", [target, "-q", "-f", `${folder}/minbook-schema.sql`], { stdio: "ignore" }),
    ["-n", "-f", `${folder}/minbook.sql`],
  );
}

type Cell = string | number;

function table(headers: string[], rows: Cell[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: Cell[]) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function markdown(headers: string[], rows: Cell[][]): string {
  const escape = (c: Cell) => String(c).replaceAll("|", "\\|");
  return [
    `| ${headers.map(escape).join(" | ")} |`,
    `|${headers.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(escape).join(" | ")} |`),
  ].join("\n");
}

const percent = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) : undefined);
const mark = (ok: boolean) => (ok ? "✓" : "✗");

/** The ratio table: one row per figure, one column per database and WORKERS. */
function ratioTable(results: DatabaseResult[]): { headers: string[]; rows: Cell[][] } {
  const columns = results.flatMap((result) => result.runs.map((run) => ({ result, run })));
  const label = (result: DatabaseResult, run: WorkersRun) =>
    results.length > 1 ? `${result.url} WORKERS=${String(run.workers)}` : `WORKERS=${String(run.workers)}`;
  const row = (id: RowId, run: WorkersRun) => run.rows.find((r) => r.id === id);
  /** /readyz around a row: the mean of the measurements just before and just after it. */
  const readyzAround = (id: RowId, run: WorkersRun) => {
    const at = run.rows.findIndex((r) => r.id === id);
    if (at < 0) return undefined;
    const before = run.rows.slice(0, at).findLast((r) => r.id === "readyz");
    const after = run.rows.slice(at + 1).find((r) => r.id === "readyz");
    const values = [before, after].flatMap((r) => (r ? [r.reqPerSec] : []));
    return values.length === 0 ? undefined : Math.round(values.reduce((a, b) => a + b, 0) / values.length);
  };
  const ratio = (a: number | undefined, b: number | undefined, target: number) => {
    const p = a === undefined || b === undefined ? undefined : percent(a, b);
    return p === undefined ? "n/a" : `${String(p)}% ${mark(p >= target)} (${String(a)} / ${String(b)})`;
  };
  /** A multiple that must stay at most `most`. */
  const times = (a: number | undefined, b: number | undefined, most: number) => {
    if (a === undefined || b === undefined || b === 0) return "n/a";
    const m = a / b;
    return `${m.toFixed(1)}× ${mark(m <= most)} (${String(a)} / ${String(b)})`;
  };
  /** A ratio without a target (the shared row's: no target set yet). */
  const plain = (a: number | undefined, b: number | undefined) => {
    const p = a === undefined || b === undefined ? undefined : percent(a, b);
    return p === undefined ? "n/a" : `${String(p)}% (${String(a)} / ${String(b)})`;
  };
  const tps = (result: DatabaseResult) => result.pgbench?.tps;
  const floorTps = (result: DatabaseResult) => result.floor?.tps;
  type Line = [string, string, (result: DatabaseResult, run: WorkersRun) => Cell];
  // The shared row (--shared), next to the bookings row: the same ratio, and shared ÷ unshared.
  const sharedLines: Line[] = results.some((result) => result.runs.some((run) => row("shared", run)))
    ? [
        [
          `bookings/s across ${String(shape.clinics)} clinics, every provider shared with a second clinic ÷ pgbench TPC-B-like TPS`,
          "—",
          (result, run) => plain(row("shared", run)?.reqPerSec, tps(result)),
        ],
        [
          "bookings/s shared ÷ unshared (the two rows above)",
          "—",
          (_, run) => plain(row("shared", run)?.reqPerSec, row("bookings", run)?.reqPerSec),
        ],
      ]
    : [];
  const lines: Line[] = [
    [
      `bookings/s across ${String(shape.clinics)} clinics ÷ the safe-booking floor's TPS`,
      "≥ 25%",
      (result, run) => ratio(row("bookings", run)?.reqPerSec, floorTps(result), 25),
    ],
    [
      "bookings/s one hot clinic ÷ the safe-booking floor's TPS",
      "≥ 15%",
      (result, run) => ratio(row("hot", run)?.reqPerSec, floorTps(result), 15),
    ],
    [
      `WAL bytes per booking across ${String(shape.clinics)} clinics ÷ the floor's per transaction`,
      "≤ 3×",
      (result, run) => times(row("bookings", run)?.walPerBooking, result.floor?.walPerTransaction, 3),
    ],
    [
      "WAL bytes per booking one hot clinic ÷ the floor's per transaction",
      "≤ 3×",
      (result, run) => times(row("hot", run)?.walPerBooking, result.floor?.walPerTransaction, 3),
    ],
    [
      `bookings/s across ${String(shape.clinics)} clinics ÷ pgbench TPC-B-like TPS`,
      "—",
      (result, run) => plain(row("bookings", run)?.reqPerSec, tps(result)),
    ],
    ...sharedLines,
    [
      "bookings/s one hot clinic ÷ pgbench TPC-B-like TPS",
      "—",
      (result, run) => plain(row("hot", run)?.reqPerSec, tps(result)),
    ],
    [
      "availability cache hit req/s ÷ /readyz req/s (before and after)",
      "≥ 80%",
      (_, run) => ratio(row("hit", run)?.reqPerSec, readyzAround("hit", run), 80),
    ],
    [
      "availability 304 req/s ÷ /readyz req/s (before and after)",
      "≥ 90%",
      (_, run) => {
        const r = row("revalidate", run);
        const text = ratio(r?.reqPerSec, readyzAround("revalidate", run), 90);
        return r?.etags?.with === 0 ? `${text}, 200s: no ETag` : text;
      },
    ],
    [
      `availability miss p99 ms (${String(shape.largeClinicProviders)} providers × ${String(missDays)} days, ${String(connections)} connections)`,
      "< 50 ms",
      (_, run) => {
        const p99 = row("miss", run)?.p99ms;
        return p99 === undefined ? "n/a" : `${String(p99)} ms ${mark(p99 < 50)}`;
      },
    ],
    [
      "the hot slot: 50 simultaneous bookings of one slot",
      "1 × 201, 49 × 409",
      (_, { hotSlot }) =>
        hotSlot
          ? `${String(hotSlot.created)} × 201, ${String(hotSlot.conflicts)} × 409${hotSlot.other > 0 ? `, ${String(hotSlot.other)} other` : ""} ${mark(hotSlot.created === 1 && hotSlot.conflicts === 49)}`
          : "n/a",
    ],
    [
      "exact retries of a keyed booking answering the same appointment",
      "all",
      (_, run) => {
        const answered = run.rows.reduce((n, r) => n + (r.retries?.answered ?? 0), 0);
        const same = run.rows.reduce((n, r) => n + (r.retries?.same ?? 0), 0);
        return `${String(same)} / ${String(answered)} ${mark(same === answered)}`;
      },
    ],
    [
      `webhook backlog after the bookings row (a webhook in every clinic): gone within`,
      "≤ 30 s",
      (_, run) => {
        const backlog = row("bookings", run)?.backlog;
        if (!backlog) return "n/a";
        const { pending, drainedS } = backlog;
        return drainedS === undefined
          ? `${String(pending)} pending, not gone in 300 s ${mark(false)}`
          : `${drainedS.toFixed(1)} s (${String(pending)} pending at the row's end) ${mark(drainedS <= 30)}`;
      },
    ],
    [
      "webhook deliveries received by the sink during the run, of those planned",
      "> 0",
      (_, run) =>
        `${String(run.webhooks.received)} of ${String(run.webhooks.planned)} ${mark(run.webhooks.received > 0)}`,
    ],
  ];
  return {
    headers: ["figure", "target", ...columns.map(({ result, run }) => label(result, run))],
    rows: lines.map(([name, target, cell]) => [name, target, ...columns.map(({ result, run }) => cell(result, run))]),
  };
}

/** The raw figures: pgbench and every row of every run. */
function rawTable(results: DatabaseResult[]): { headers: string[]; rows: Cell[][] } {
  const several = results.length > 1;
  const rows: Cell[][] = results.flatMap((result) => [
    [
      ...(several ? [result.url] : []),
      `pgbench TPC-B-like -s 10 (TPS)`,
      "",
      result.pgbench?.tps ?? "n/a",
      "",
      "",
      "",
      result.pgbench?.load1 ?? "",
      "",
      "",
      "",
    ],
    [
      ...(several ? [result.url] : []),
      `the safe-booking floor, shared/bench (TPS)`,
      "",
      result.floor?.tps ?? "n/a",
      "",
      "",
      "",
      result.floor?.load1 ?? "",
      "",
      "",
      result.floor?.walPerTransaction ?? "n/a",
    ],
    ...result.runs.flatMap((run) =>
      run.rows.map((r) => [
        ...(several ? [result.url] : []),
        r.name,
        run.workers,
        r.reqPerSec,
        r.p50ms,
        r.p99ms,
        r.non2xx,
        r.load1,
        r.serverCpuMsPerRequest ?? "n/a",
        r.databaseCpuMsPerRequest ?? "n/a",
        r.walPerBooking ?? "",
      ]),
    ),
  ]);
  return {
    headers: [
      ...(several ? ["database"] : []),
      "row",
      "WORKERS",
      "req/s",
      "p50 ms",
      "p99 ms",
      "non-2xx",
      "load avg",
      "server CPU ms/req",
      "database CPU ms/req",
      "WAL bytes/booking (floor: /transaction)",
    ],
    rows,
  };
}

function machine(postgres: string[]): {
  nproc: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  postgres: string[];
} {
  const cpuinfo = existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "";
  return {
    nproc: Number(execFileSync("nproc", { encoding: "utf8" }).trim()),
    cpu: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? "unknown",
    memoryGiB: Number((totalmem() / 1024 ** 3).toFixed(1)),
    node: process.version,
    postgres: [...new Set(postgres)],
  };
}

async function main() {
  const startedAt = new Date();
  const loadAtStart = loadAverages();
  const args = process.argv.slice(2).map(shownUrl);
  const command = `npm run bench${args.length > 0 ? ` -- ${args.join(" ")}` : ""}`;
  const md: string[] = [`# npm run bench, ${startedAt.toISOString()}`, "", `\`${command}\``, ""];
  let engine: EngineRow[] = [];
  if (options.engine) {
    console.log("Slot engine (pure, in-process) ...");
    engine = runEngineBench();
    const engineRows = engine.map((r) => [r.name, r.opsPerSec, r.msPerOp, r.slots]);
    console.log(table(["case", "ops/s", "ms/op", "slots"], engineRows));
    console.log("targets: reference ≥ 5,000/s, union ≥ 1,000/s, large ≤ 20 ms");
    md.push("## Slot engine", "", markdown(["case", "ops/s", "ms/op", "slots"], engineRows), "");
  }

  if (!existsSync(`${root}apps/server/dist/main.js`)) throw new Error("build the server first: npm run build");
  const sink = await startSink();
  const results: DatabaseResult[] = [];
  try {
    for (const databaseUrl of options.urls) results.push(await httpBench(databaseUrl, sink));
  } finally {
    await sink.stop();
  }

  const host = machine(results.map((r) => r.postgres));
  const loadAtEnd = loadAverages();
  const ratios = ratioTable(results);
  const raw = rawTable(results);
  const world = `${String(shape.clinics)} clinics (${zones.join(", ")}) × ${String(shape.providersPerClinic)} providers, ${String(shape.providersPerClinic + shape.anyServicesPerClinic)} services each (${String(shape.anyServicesPerClinic)} any-provider), ${String(shape.users)} booking agents and staff with tokens of their own, a webhook in ${shape.webhookClinics >= shape.clinics ? "every clinic" : `${String(shape.webhookClinics)} clinics`} to a local sink, one clinic of ${String(shape.largeClinicProviders)} providers, one of ${String(shape.cacheClinicProviders ?? 20)} for the cache rows, ${String(shape.historyDays ?? 0)} days of past appointments in every clinic (8 a weekday per provider)${options.calendars ? "; every provider of the cache and large clinics with a calendar's busy time (2 intervals a weekday)" : ""}${options.rows.has("shared") ? `; for the shared row a second such world without them, clinic c's providers also approved providers (same hours) of clinic (c + 1) mod ${String(shape.clinics)}` : ""}`;
  const setting = `${String(connections)} connections, ${String(seconds)} s a row after a ${String(options.warmupSeconds)} s warm-up (the cache-hit row: every key first), WORKERS=${options.workerCounts.join(" and ")}, ${options.poolMax === undefined ? `the default pool (DATABASE_POOL_MAX unset: ${options.workerCounts.map((w) => `${String(poolMaxFor(options.urls[0], w, availableParallelism()))} with WORKERS=${String(w)}`).join(", ")}; docs/operations.md#sizing-the-pool)` : `DATABASE_POOL_MAX=${String(options.poolMax)}`} per server process`;
  const machineLine = `${String(host.nproc)} cores (nproc), ${host.cpu}, ${String(host.memoryGiB)} GiB memory, Node ${host.node}, PostgreSQL ${host.postgres.join(" / ")}`;
  const loadLine = `load average (1, 5, 15 min) ${loadAtStart} at the start, ${loadAtEnd} at the end`;

  console.log(`\n${machineLine}; ${loadLine}`);
  console.log(`\nRatios (this run's own calibrations):`);
  console.log(table(ratios.headers, ratios.rows));
  console.log(
    `\nRows (non-2xx: answers that are not the row's success — on the 304 row, non-304 — and connection errors):`,
  );
  console.log(table(raw.headers, raw.rows));
  if (warnings.length > 0) {
    console.log("");
    for (const line of warnings) console.log(`WARNING: ${line}`);
  }

  const section = [
    `Measured ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run build && ${command}\` (this section is written by the bench).`,
    "",
    `- Machine: ${machineLine}; shared, so figures are ratios to calibrations taken in the same run.`,
    `- Load: ${loadLine}; each row's own is in the table below.`,
    `- World: ${world}.`,
    `- Rows: ${setting}.`,
    "",
    markdown(ratios.headers, ratios.rows),
    "",
    "Non-2xx counts answers that are not the row's success (on the 304 row, answers that are not 304) and connection errors; load avg is the 1-minute load average, the higher of before and after the row; server CPU is the user + system time of the server's processes during the measured run per answered request (what a request costs the server, less sensitive to the rest of the shared machine than req/s); database CPU is the same for the PostgreSQL server (the postmaster and every process it started: backends, WAL writer, checkpointer), when it runs on this machine. Each row starts after a `VACUUM (ANALYZE)` of the database, as pgbench vacuums its tables before it measures.",
    "",
    markdown(raw.headers, raw.rows),
    ...(warnings.length > 0 ? ["", ...warnings.map((w) => `- WARNING: ${w}`)] : []),
  ].join("\n");
  md.push("## HTTP", "", section, "");

  await mkdir("bench-results", { recursive: true });
  await writeFile(
    "bench-results/bench.json",
    JSON.stringify(
      {
        at: startedAt.toISOString(),
        command,
        machine: host,
        load: { start: loadAtStart, end: loadAtEnd },
        world: shape,
        options,
        engine,
        http: results,
        ratios,
        warnings,
      },
      null,
      2,
    ),
  );
  await writeFile("bench-results/bench.md", `${md.join("\n")}\n`);
  const docs = `${root}docs/performance.md`;
  const text = await readFile(docs, "utf8");
  const begin = "<!-- bench:start -->";
  const end = "<!-- bench:end -->";
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  let wroteDocs = false;
  if (!defaultRows.every((r) => options.rows.has(r)) || options.calendars) {
    console.log("\n--rows or --calendars: docs/performance.md is left as it is");
  } else if (from < 0 || to < from) {
    warn(`docs/performance.md has no ${begin} … ${end} section: not updated`);
  } else {
    await writeFile(docs, `${text.slice(0, from + begin.length)}\n${section}\n${text.slice(to)}`);
    wroteDocs = true;
  }
  console.log(
    `\nwrote bench-results/bench.json, bench-results/bench.md${wroteDocs ? " and the bench section of docs/performance.md" : ""}`,
  );
}

await main();
