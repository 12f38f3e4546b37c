// The load generator of `npm run bench` and `npm run bench:soak`, in a process of its own (so that
// it does not share the server's event loop): runs one row with autocannon — a warm-up first, then
// the measured run — and prints its figures as JSON on stdout. The bookings rows run wrk instead
// when the spec says so (`generator: "wrk"`, bookings.lua): a generator in C, as the floor's pgbench.
//   node --import tsx apps/server/bench/load.ts <file holding the LoadSpec as JSON>
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { addDays, day, zonedInstant } from "./dates.ts";

/** What load.ts needs to know of a seeded clinic (seed.ts's BenchClinic has these fields). */
export interface LoadClinic {
  id: string;
  timezone: string;
  tokens: string[];
  assignedServiceIds: string[];
  anyServiceIds: string[];
}

/** One availability cache key: a clinic's service on one date, asked by the clinic's users. */
export interface AvailabilityKey {
  clinicId: string;
  serviceId: string;
  date: string;
  tokens: string[];
}

interface Common {
  base: string;
  /** The measured run. */
  seconds: number;
  /** The warm-up before it (same requests, not measured). */
  warmupSeconds: number;
  connections: number;
  /** The server's process group (its processes' CPU time is read around the measured run), when known. */
  serverGroup?: number | undefined;
  /** The local PostgreSQL's postmaster (its and its backends' CPU time is read around the measured run), when known. */
  databaseParent?: number | undefined;
}

export type LoadSpec = Common &
  (
    | { kind: "get"; path: string; token?: string | undefined }
    /** Random keys and users; first every key `warmupPasses` times in turn, so that each process holds it. */
    | { kind: "availability-hit"; keys: AvailabilityKey[]; warmupPasses: number }
    /** Each key asked again by one user with the ETag that user's previous GET answered. */
    | { kind: "availability-304"; keys: AvailabilityKey[] }
    /** A new key every request: `days`-day ranges of the clinic's any-provider services, from `firstDate` on. */
    | { kind: "availability-miss"; clinic: LoadClinic; firstDate: string; days: number }
    /**
     * Every request a distinct free slot of a random clinic (from `firstMonday`'s week on), by a user
     * of that clinic; `idempotentShare` of them with an Idempotency-Key, and `retryShare` more requests
     * exact retries of an earlier keyed booking (which must answer the same appointment).
     */
    | {
        kind: "bookings";
        clinics: LoadClinic[];
        firstMonday: string;
        idempotentShare: number;
        retryShare: number;
        /** The load generator: autocannon (default) or wrk (C; bookings.lua), as run.ts finds it installed. */
        generator?: "autocannon" | "wrk" | undefined;
      }
  );

export interface LoadResult {
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  total: number;
  /** Answers that are not the row's success (non-2xx; on the 304 row, non-304), plus connection errors and timeouts. */
  non2xx: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** availability-304: keys whose GET answered an ETag, of all keys. */
  etags?: { with: number; of: number };
  /** bookings: exact retries of a keyed booking answered, and how many answered the same appointment (200 or 201). */
  retries?: { answered: number; same: number };
  /** bookings: weeks of dates used from `firstMonday` on (the next row starts after them). */
  weeksUsed?: number;
  /**
   * CPU time the server's processes spent per answered request during the measured run (user +
   * system, from /proc): what a row costs the server, whatever else the shared machine runs.
   */
  serverCpuMsPerRequest?: number;
  /** The same for the local PostgreSQL: the postmaster and every process it started (backends included). */
  databaseCpuMsPerRequest?: number;
  /** The same for this load generator's own process (autocannon or wrk shares the cores with the server). */
  loadCpuMsPerRequest?: number;
  /** Which load generator ran the row. */
  generator?: "autocannon" | "wrk";
}

/** CPU ms (user + system) so far of every process that `matches` (its pid, parent and process group), from /proc; undefined without /proc. */
function cpuMs(matches: (pid: number, parent: number, group: number) => boolean): number | undefined {
  let ticks = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command (which may hold spaces) in parentheses: state is field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 4 and 5: the parent and the process group.
    if (!matches(Number(pid), Number(fields[1]), Number(fields[2]))) continue;
    ticks += Number(fields[11]) + Number(fields[12]); // fields 14, 15: utime, stime
  }
  // Clock ticks of 10 ms (USER_HZ is 100 on Linux).
  return ticks * 10;
}

/** CPU ms of the server's processes and of the local PostgreSQL's, so far. */
function cpuNow(spec: Common): { server?: number | undefined; database?: number | undefined } {
  const { serverGroup, databaseParent } = spec;
  return {
    server: serverGroup === undefined ? undefined : cpuMs((_pid, _parent, group) => group === serverGroup),
    database:
      databaseParent === undefined
        ? undefined
        : cpuMs((pid, parent) => pid === databaseParent || parent === databaseParent),
  };
}

const perRequest = (before: number | undefined, after: number | undefined, requests: number) =>
  before !== undefined && after !== undefined && requests > 0
    ? Number(((after - before) / requests).toFixed(3))
    : undefined;

const at = <T>(list: readonly T[], i: number): T => {
  const value = list[i];
  if (value === undefined) throw new Error(`no element ${String(i)} in a list of ${String(list.length)}`);
  return value;
};
const random = <T>(list: readonly T[]): T => at(list, Math.floor(Math.random() * list.length));
const availabilityPath = (clinicId: string, serviceId: string, from: string, to: string) =>
  `/v1/availability?clinic_id=${clinicId}&service_id=${serviceId}&from=${from}&to=${to}`;
const keyPath = (key: AvailabilityKey) => availabilityPath(key.clinicId, key.serviceId, key.date, key.date);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/**
 * How many random requests a row draws in advance (autocannon's connections each go through the
 * list in order, and start over at its end). The server does the same work for a request whatever
 * its neighbours ask: nothing on the hit path is shared between requests of one key.
 */
const drawnRequests = (keys: number) => Math.max(5_000, 5 * keys);

/** Starts of a provider's week: Mon–Fri × 16 half hours from 09:00. */
const startsPerWeek = 5 * 16;

interface BookingContext {
  /** The appointment an exact retry must answer; unset on a first request. */
  expect?: string;
  /** A first request with a key: remembered for retries once it answers 201. */
  first?: Sent;
}

interface Sent {
  path: string;
  headers: Record<string, string>;
  body: string;
}

type BookingsSpec = Extract<LoadSpec, { kind: "bookings" }>;

/**
 * The clinic's n-th booking of this row: week n / (80 × providers), then start n mod 80 of the
 * week (Mon–Fri, 09:00–16:30 clinic time), layer (n / 80) mod providers. Even starts are booked
 * with the layer's provider's own service, odd starts with an any-provider service: a start holds
 * at most one booking per provider, so every request is a free slot, and the 20 requests in
 * flight at once are 20 different starts of a clinic.
 */
function slotDrawer(spec: Pick<BookingsSpec, "firstMonday">) {
  const turns = new Map<string, number>();
  let weeksUsed = 0;
  return {
    next: (clinic: LoadClinic) => {
      const n = turns.get(clinic.id) ?? 0;
      turns.set(clinic.id, n + 1);
      const providers = clinic.assignedServiceIds.length;
      const week = Math.floor(n / (startsPerWeek * providers));
      weeksUsed = Math.max(weeksUsed, week + 1);
      const start = n % startsPerWeek;
      const layer = Math.floor(n / startsPerWeek) % providers;
      const date = addDays(spec.firstMonday, week * 7 + Math.floor(start / 16));
      const serviceId =
        start % 2 === 0
          ? at(clinic.assignedServiceIds, layer)
          : at(clinic.anyServiceIds, layer % clinic.anyServiceIds.length);
      return { serviceId, start: zonedInstant(date, 540 + (start % 16) * 30, clinic.timezone) };
    },
    /** Weeks of dates used from `firstMonday` on (the next row starts after them). */
    weeksUsed: () => weeksUsed,
  };
}

/** CPU ms (user + system) of this process's children that have ended and been waited for (/proc/self/stat's cutime and cstime). */
function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** What bookings.lua's done() prints. */
interface WrkResult {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  statuses: Record<string, number>;
  retries_sent: number;
  retries_same: number;
  retries_other: number;
  ran_out: number;
}

/** Runs wrk over lines [first, last] of the drawn requests for `seconds`; its result line. */
async function wrk(spec: BookingsSpec, file: string, seconds: number, first: number, last: number): Promise<WrkResult> {
  const script = new URL("./bookings.lua", import.meta.url).pathname;
  const args = ["-t1", `-c${String(spec.connections)}`, `-d${String(seconds)}s`, "--timeout", "30s", "-s", script];
  const child = spawn("wrk", [...args, spec.base, "--", file, String(spec.retryShare), String(first), String(last)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject).on("close", resolve);
  });
  const line = out.split("\n").find((l) => l.startsWith("WRK_RESULT "));
  if (code !== 0 || !line) throw new Error(`wrk ended with ${String(code)}:\n${out}`);
  return JSON.parse(line.slice("WRK_RESULT ".length)) as WrkResult;
}

/**
 * The bookings row with wrk: every request drawn in advance (a free slot each, as the autocannon
 * row draws them one at a time), written to a file that bookings.lua reads, more than the row can
 * send at 3,000 a second; the warm-up takes the first lines, the measured run the rest. The load
 * generator's CPU is wrk's own (this process's waited-for children), not this process's.
 */
async function bookingsWithWrk(spec: BookingsSpec): Promise<LoadResult> {
  const slots = slotDrawer(spec);
  const warmLines = Math.max(2_000, spec.warmupSeconds * 3_000);
  const lines = warmLines + Math.max(5_000, spec.seconds * 3_000);
  const text: string[] = [];
  for (let k = 1; k <= lines; k++) {
    const clinic = random(spec.clinics);
    const { serviceId, start } = slots.next(clinic);
    const key = Math.random() < spec.idempotentShare ? `bench-${String(process.pid)}-${String(k)}` : "";
    const body = JSON.stringify({ service_id: serviceId, start, patient: { name: `Patient ${String(k)}` } });
    text.push(`/v1/appointments?clinic_id=${clinic.id}\t${random(clinic.tokens)}\t${key}\t${body}`);
  }
  const file = join(tmpdir(), `bench-bookings-${String(process.pid)}.tsv`);
  writeFileSync(file, `${text.join("\n")}\n`);
  try {
    if (spec.warmupSeconds > 0) await wrk(spec, file, spec.warmupSeconds, 1, warmLines);
    const cpuBefore = cpuNow(spec);
    const ownBefore = childrenCpuMs();
    const r = await wrk(spec, file, spec.seconds, warmLines + 1, lines);
    const own = childrenCpuMs();
    const cpuAfter = cpuNow(spec);
    if (r.ran_out > 0) throw new Error(`wrk sent ${String(r.ran_out)} requests past the ${String(lines)} drawn`);
    const failed = Object.entries(r.statuses).reduce(
      (sum, [code, count]) => (Number(code) >= 200 && Number(code) < 300 ? sum : sum + count),
      0,
    );
    const errors = r.connect + r.read + r.write;
    const serverCpu = perRequest(cpuBefore.server, cpuAfter.server, r.requests);
    const databaseCpu = perRequest(cpuBefore.database, cpuAfter.database, r.requests);
    const loadCpu = perRequest(ownBefore, own, r.requests);
    return {
      reqPerSec: Math.round(r.requests / (r.duration_us / 1e6)),
      p50ms: Number((r.p50_us / 1000).toFixed(1)),
      p99ms: Number((r.p99_us / 1000).toFixed(1)),
      total: r.requests,
      non2xx: failed + errors + r.timeout,
      statuses: r.statuses,
      errors,
      timeouts: r.timeout,
      // An exact retry whose answer was an error names no patient: it is in non-2xx, not here.
      retries: { answered: r.retries_same + r.retries_other, same: r.retries_same },
      weeksUsed: slots.weeksUsed(),
      generator: "wrk",
      ...(serverCpu === undefined ? {} : { serverCpuMsPerRequest: serverCpu }),
      ...(databaseCpu === undefined ? {} : { databaseCpuMsPerRequest: databaseCpu }),
      ...(loadCpu === undefined ? {} : { loadCpuMsPerRequest: loadCpu }),
    };
  } finally {
    rmSync(file, { force: true });
  }
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error("usage: load.ts <spec.json>");
  const spec = JSON.parse(readFileSync(file, "utf8")) as LoadSpec;
  const json = { "content-type": "application/json" };
  /** The row's own figures, read after the run. */
  let report: () => Partial<LoadResult> = () => ({});
  /** The success of a request of this row. */
  let success = (status: number) => status >= 200 && status < 300;
  let requests: (warm: boolean) => autocannon.Request[];
  let warmup: { amount: number } | { duration: number } = { duration: spec.warmupSeconds };

  switch (spec.kind) {
    case "get": {
      const headers = spec.token ? bearer(spec.token) : {};
      requests = () => [{ method: "GET", path: spec.path, headers }];
      break;
    }
    case "availability-hit": {
      const { keys } = spec;
      let turn = 0;
      // The measured run: random keys asked by random users of their clinic, drawn in advance, so
      // that autocannon sends prepared requests as it does for /readyz (a `setupRequest` rebuilds
      // every request in the load generator, which shares the cores with the server).
      const drawn = Array.from({ length: drawnRequests(keys.length) }, () => {
        const key = random(keys);
        return { method: "GET" as const, path: keyPath(key), headers: bearer(random(key.tokens)) };
      });
      requests = (warm) =>
        warm
          ? [
              {
                setupRequest: (request) => {
                  // Warm-up: every key in turn, each pass by another of its users.
                  const n = turn++;
                  const key = at(keys, n % keys.length);
                  const token = at(key.tokens, (Math.floor(n / keys.length) + n) % key.tokens.length);
                  return { ...request, method: "GET", path: keyPath(key), headers: bearer(token) };
                },
              },
            ]
          : drawn;
      warmup = { amount: keys.length * spec.warmupPasses };
      break;
    }
    case "availability-304": {
      // The ETag each key's user got from a GET of their own.
      const tagged: { key: AvailabilityKey; token: string; etag: string | undefined }[] = [];
      const queue = spec.keys.map((key, i) => ({ key, token: at(key.tokens, i % key.tokens.length) }));
      await Promise.all(
        Array.from({ length: spec.connections }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            const answer = await fetch(`${spec.base}${keyPath(next.key)}`, { headers: bearer(next.token) });
            await answer.arrayBuffer();
            tagged.push({ ...next, etag: answer.headers.get("etag") ?? undefined });
          }
        }),
      );
      const withTag = tagged.filter((t) => t.etag !== undefined).length;
      report = () => ({ etags: { with: withTag, of: tagged.length } });
      // A revalidation succeeds with 304 only: without an ETag every answer is a 200, and counted.
      success = (status) => status === 304;
      // Drawn in advance, as the cache-hit row's.
      const drawn = Array.from({ length: drawnRequests(tagged.length) }, () => {
        const { key, token, etag } = random(tagged);
        return {
          method: "GET" as const,
          path: keyPath(key),
          headers: { ...bearer(token), ...(etag ? { "if-none-match": etag } : {}) },
        };
      });
      requests = () => drawn;
      break;
    }
    case "availability-miss": {
      const { clinic, days } = spec;
      // Ranges stay before year 9000, then start over (long evicted from the cache by then).
      const windows = Math.max(1, Math.floor((Date.parse("9000-01-01") - Date.parse(spec.firstDate)) / (days * day)));
      let turn = 0;
      requests = () => [
        {
          setupRequest: (request) => {
            const n = turn++;
            const from = addDays(spec.firstDate, (n % windows) * days);
            const path = availabilityPath(
              clinic.id,
              at(clinic.anyServiceIds, n % clinic.anyServiceIds.length),
              from,
              addDays(from, days - 1),
            );
            return { ...request, method: "GET", path, headers: bearer(random(clinic.tokens)) };
          },
        },
      ];
      break;
    }
    case "bookings": {
      if (spec.generator === "wrk") {
        process.stdout.write(`${JSON.stringify(await bookingsWithWrk(spec))}\n`);
        return;
      }
      const { clinics, idempotentShare, retryShare } = spec;
      const slots = slotDrawer(spec);
      const nextSlot = slots.next;
      // Keyed bookings that answered 201, for exact retries (the latest 1,000).
      const answered: (Sent & { id: string })[] = [];
      const retries = { answered: 0, same: 0 };
      let booked = 0;
      requests = () => [
        {
          setupRequest: (request, context) => {
            const c = context as BookingContext;
            if (answered.length > 0 && Math.random() < retryShare / (1 + retryShare)) {
              const earlier = random(answered);
              c.expect = earlier.id;
              return { ...request, method: "POST", path: earlier.path, headers: earlier.headers, body: earlier.body };
            }
            const clinic = random(clinics);
            const { serviceId, start } = nextSlot(clinic);
            const k = booked++;
            const headers: Record<string, string> = { ...json, ...bearer(random(clinic.tokens)) };
            if (Math.random() < idempotentShare)
              headers["idempotency-key"] =
                `bench-${String(process.pid)}-${String(k)}-${Math.random().toString(36).slice(2)}`;
            const sent: Sent = {
              path: `/v1/appointments?clinic_id=${clinic.id}`,
              headers,
              body: JSON.stringify({ service_id: serviceId, start, patient: { name: `Patient ${String(k)}` } }),
            };
            if (headers["idempotency-key"]) c.first = sent;
            return { ...request, method: "POST", ...sent };
          },
          onResponse: (status, body, context) => {
            const c = context as BookingContext;
            if (c.expect !== undefined) {
              retries.answered++;
              if ((status === 200 || status === 201) && (JSON.parse(body) as { id?: string }).id === c.expect)
                retries.same++;
            } else if (c.first && status === 201) {
              const id = (JSON.parse(body) as { id?: string }).id;
              if (id) {
                answered.push({ ...c.first, id });
                if (answered.length > 1000) answered.shift();
              }
            }
          },
        },
      ];
      report = () => ({ retries, weeksUsed: slots.weeksUsed() });
      break;
    }
  }

  const run = (warm: boolean, length: { amount: number } | { duration: number }) =>
    autocannon({ url: spec.base, connections: spec.connections, headers: json, requests: requests(warm), ...length });
  if ("amount" in warmup ? warmup.amount > 0 : warmup.duration > 0) await run(true, warmup);
  const cpuBefore = cpuNow(spec);
  const ownBefore = process.cpuUsage();
  const result = await run(false, { duration: spec.seconds });
  const own = process.cpuUsage(ownBefore);
  const cpuAfter = cpuNow(spec);
  const serverCpu = perRequest(cpuBefore.server, cpuAfter.server, result.requests.total);
  const databaseCpu = perRequest(cpuBefore.database, cpuAfter.database, result.requests.total);
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  const failed = Object.entries(statuses).reduce(
    (sum, [code, count]) => (success(Number(code)) ? sum : sum + count),
    0,
  );
  const out: LoadResult = {
    reqPerSec: Math.round(result.requests.average),
    p50ms: result.latency.p50,
    p99ms: result.latency.p99,
    total: result.requests.total,
    non2xx: failed + result.errors,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    ...report(),
    ...(serverCpu === undefined ? {} : { serverCpuMsPerRequest: serverCpu }),
    ...(databaseCpu === undefined ? {} : { databaseCpuMsPerRequest: databaseCpu }),
    generator: "autocannon",
    ...(result.requests.total > 0
      ? { loadCpuMsPerRequest: Number(((own.user + own.system) / 1000 / result.requests.total).toFixed(3)) }
      : {}),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

await main();
