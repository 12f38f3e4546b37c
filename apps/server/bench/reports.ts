// `npm run bench:reports [-- --db URL] [--runs N] [--keep]`: the reports of CONTRACT §20 on a year of a
// busy clinic (docs/reports.md, docs/performance.md#reports). One clinic in Europe/Berlin with 50
// approved providers (Mon–Fri 09:00–17:00), ten services, a clinic closure on ten public holidays,
// a week's vacation per provider, a Wednesday lunch in every provider's own calendar (§18), and
// 104,400 appointments of 2025 (eight a weekday per provider, 30 minutes on the hour; 70%
// completed, 5% no-show, 15% canceled, 10% booked), written straight to the database; removed at
// the end. The compiled server (`apps/server/dist/main.js`, `npm run build` first) runs in a
// process of its own; each request is timed from this process, one at a time, `--runs` times
// (default 10) after two warm-ups: RP1 by week and by provider, RP2 as CSV (half the year and the
// year) and as JSON, each with the median time to the first byte of the body and the server
// process's largest resident memory while it ran (what must not grow with the rows). The
// calibration is the same server's `GET /readyz` (one `select 1`), timed the same way in the same
// sitting, and the load average. Prints the figures as a Markdown table. Never fails on a timing.
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { Agent, get } from "node:http";
import { loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { mintToken } from "@clinic/api";
import { type DbHandle, migrate, openDatabase, rowsOf } from "@clinic/db";
import { benchDatabaseUrl, benchSecret, root, shownUrl, startServer } from "./server.ts";

const argv = process.argv.slice(2);
const option = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const runs = Number(option("runs") ?? 10);
const databaseUrl = option("db") ?? benchDatabaseUrl();
const zone = "Europe/Berlin";
const providers = 50;
const holidays = [
  "2025-01-01",
  "2025-04-18",
  "2025-04-21",
  "2025-05-01",
  "2025-05-29",
  "2025-06-09",
  "2025-10-03",
  "2025-12-24",
  "2025-12-25",
  "2025-12-26",
];

interface ReportsWorld {
  clinicId: string;
  userIds: string[];
  token: string;
  appointments: number;
}

async function seed(database: DbHandle): Promise<ReportsWorld> {
  const { db } = database;
  const clinicId = randomUUID();
  const adminId = randomUUID();
  const providerIds = Array.from({ length: providers }, () => randomUUID());
  const userIds = [adminId, ...providerIds];
  const ids = (list: readonly string[]) => `{${list.join(",")}}`;
  await db.execute(
    sql`insert into clinics (id, name, timezone) values (${clinicId}::uuid, 'Bench reports clinic', ${zone})`,
  );
  await db.execute(sql`insert into users (id, email)
    select u, u::text || '@bench.test' from unnest(${ids(userIds)}::uuid[]) u`);
  await db.execute(sql`insert into clinic_members (clinic_id, user_id, full_name, email, clinic_role, is_provider, status)
    values (${clinicId}::uuid, ${adminId}::uuid, 'Report Admin', ${`${adminId}@bench.test`}, 'CLINIC_ADMIN', false, 'approved')`);
  await db.execute(sql`insert into clinic_members (clinic_id, user_id, full_name, email, clinic_role, is_provider, status)
    select ${clinicId}::uuid, p, 'Provider ' || lpad(n::text, 2, '0'), p::text || '@bench.test', 'STAFF', true, 'approved'
    from unnest(${ids(providerIds)}::uuid[]) with ordinality as x(p, n)`);
  await db.execute(sql`insert into work_hours (clinic_id, scope, provider_id, weekday, opens_min, closes_min)
    select ${clinicId}::uuid, case when p is null then 'clinic' else 'provider' end, p, w, 540, 1020
    from unnest(array[null]::uuid[] || ${ids(providerIds)}::uuid[]) p cross join generate_series(1, 5) w`);
  // Ten services: five any-provider, five assigned to the first five providers.
  await db.execute(sql`insert into services (clinic_id, name, duration_min, provider_id)
    select ${clinicId}::uuid, 'Service ' || s, 30, case when s > 5 then (${ids(providerIds)}::uuid[])[s - 5] end
    from generate_series(1, 10) s`);
  await db.execute(sql`insert into closures (clinic_id, scope, provider_id, starts_at, ends_at, reason)
    select ${clinicId}::uuid, 'clinic', null, d::timestamp at time zone ${zone}, (d + 1)::timestamp at time zone ${zone}, 'holiday'
    from unnest(${`{${holidays.join(",")}}`}::date[]) d`);
  await db.execute(sql`insert into closures (clinic_id, scope, provider_id, starts_at, ends_at, reason)
    select ${clinicId}::uuid, 'provider', p, v::timestamp at time zone ${zone}, (v + 7)::timestamp at time zone ${zone}, 'vacation'
    from unnest(${ids(providerIds)}::uuid[]) with ordinality as x(p, n)
    cross join lateral (select date '2025-01-06' + ((n * 7) % 350)::int as v) d`);
  await db.execute(sql`insert into calendar_busy (clinic_id, provider_id, calendar_clinic_id, calendar_id, starts_at, ends_at)
    select ${clinicId}::uuid, p, ${clinicId}::uuid, p, (d + interval '12 hours') at time zone ${zone}, (d + interval '13 hours') at time zone ${zone}
    from unnest(${ids(providerIds)}::uuid[]) p
    cross join generate_series(date '2025-01-01', date '2025-12-31', interval '1 day') d
    where extract(isodow from d) = 3`);
  // Eight a weekday per provider, 30 minutes on the hour from 09:00 local time, of the any-provider services.
  await db.execute(sql`
    insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end,
      status, canceled_at, patient_name, patient_email, created_at, updated_at)
    select ${clinicId}::uuid, s.id, p.p, t.at, t.at + interval '30 minutes', t.at, t.at + interval '30 minutes',
      st.status, case when st.status = 'canceled' then t.at - (r.h % 72) * interval '1 hour' end,
      'Patient ' || r.h, 'patient' || r.h || '@example.org', t.at - (1 + r.h % 30) * interval '1 day', t.at
    from unnest(${ids(providerIds)}::uuid[]) with ordinality as p(p, n)
    cross join (select array_agg(id order by name) as ids from services
      where clinic_id = ${clinicId}::uuid and provider_id is null) sv
    cross join generate_series(date '2025-01-01', date '2025-12-31', interval '1 day') d
    cross join generate_series(0, 7) k
    cross join lateral (select ((d + interval '9 hours' + k * interval '1 hour')::timestamp at time zone ${zone}) as at) t
    cross join lateral (select abs(hashtext(p.p::text || d::text || k::text)) as h) r
    cross join lateral (select case when r.h % 100 < 70 then 'completed' when r.h % 100 < 75 then 'no_show'
      when r.h % 100 < 90 then 'canceled' else 'booked' end as status) st
    cross join lateral (select (sv.ids)[1 + p.n % 5] as id) s
    where extract(isodow from d) < 6`);
  const [count] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from appointments where clinic_id = ${clinicId}::uuid`),
  );
  const token = await mintToken(benchSecret, { sub: adminId, email: `${adminId}@bench.test` }, { expiresIn: "2h" });
  return { clinicId, userIds, token, appointments: count?.n ?? 0 };
}

async function remove(database: DbHandle, world: ReportsWorld): Promise<void> {
  await database.db.execute(sql`delete from clinics where id = ${world.clinicId}::uuid`);
  await database.db.execute(sql`delete from users where id = any(${`{${world.userIds.join(",")}}`}::uuid[])`);
}

interface Timing {
  name: string;
  /** To the first byte of the body, median. */
  firstByteMs: number;
  /** The server process's resident memory when the row began, MiB. */
  startRssMiB: number;
  /** The server process's resident memory at most while the row ran, MiB (sampled every 10 ms). */
  peakRssMiB: number;
  medianMs: number;
  p90Ms: number;
  maxMs: number;
  bytes: number;
  status: number;
}

/** The resident memory of a process now, in MiB (Linux: /proc), or 0 where it cannot be read. */
function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * One GET, its body counted and dropped as it arrives: node:http, whose chunks are the socket's
 * buffers. (fetch's body is a WHATWG stream: on this 2-core machine reading 68 MB of JSON through it
 * took a third of a core from the server it measured, 0.3–0.5 s a request — docs/performance.md#reports.)
 */
function download(
  url: string,
  headers: Record<string, string>,
): Promise<{ firstByte: number; size: number; code: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = get(url, { headers, agent: keepAlive }, (response) => {
      let size = 0;
      let firstByte = 0;
      response.on("data", (chunk: Buffer) => {
        if (size === 0) firstByte = performance.now() - started;
        size += chunk.byteLength;
      });
      response.on("end", () => {
        resolve({ firstByte, size, code: response.statusCode ?? 0 });
      });
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}
const keepAlive = new Agent({ keepAlive: true });

async function time(name: string, url: string, headers: Record<string, string>, pid: number): Promise<Timing> {
  const ms: number[] = [];
  const firstBytes: number[] = [];
  let bytes = 0;
  let status = 0;
  const startRss = rssMiB(pid);
  let peak = startRss;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 10);
  try {
    for (let i = 0; i < runs + 2; i++) {
      const started = performance.now();
      const { firstByte, size, code } = await download(url, headers);
      const elapsed = performance.now() - started;
      if (i >= 2) {
        ms.push(elapsed);
        firstBytes.push(firstByte);
      }
      bytes = size;
      status = code;
    }
  } finally {
    clearInterval(sampler);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  return {
    name,
    firstByteMs: median(firstBytes),
    startRssMiB: startRss,
    peakRssMiB: peak,
    medianMs: at(0.5),
    p90Ms: at(0.9),
    maxMs: ms[ms.length - 1] ?? 0,
    bytes,
    status,
  };
}

if (!existsSync(`${root}apps/server/dist/main.js`)) throw new Error("build the server first: npm run build");
const database = await openDatabase({ url: databaseUrl, poolMax: 2 });
await migrate(database.db);
console.log(`Reports bench on ${shownUrl(databaseUrl)}: seeding ...`);
const seedStarted = Date.now();
const world = await seed(database);
await database.db.execute(sql`vacuum (analyze)`);
console.log(`  ${String(world.appointments)} appointments seeded in ${String(Date.now() - seedStarted)} ms`);
const server = await startServer(databaseUrl, 1);
const timings: Timing[] = [];
const loads: number[] = [];
try {
  const headers = { authorization: `Bearer ${world.token}` };
  const base = `${server.base}/v1/clinics/${world.clinicId}/reports`;
  const year = "from=2025-01-01&to=2025-12-31";
  const rows: [string, string, Record<string, string>][] = [
    ["GET /readyz (calibration: one `select 1`)", `${server.base}/readyz`, {}],
    ["RP1, a year by week (JSON)", `${base}/utilization?${year}&group_by=week`, headers],
    ["RP1, a year by provider (JSON)", `${base}/utilization?${year}&group_by=provider`, headers],
    ["RP1, a year by week (CSV)", `${base}/utilization?${year}&group_by=week`, { ...headers, accept: "text/csv" }],
    // Half the rows, to show what grows with them (the total) and what must not (first byte, memory).
    [
      "RP2, half a year as CSV",
      `${base}/appointments?from=2025-01-01&to=2025-06-30`,
      { ...headers, accept: "text/csv" },
    ],
    ["RP2, a year as CSV", `${base}/appointments?${year}`, { ...headers, accept: "text/csv" }],
    ["RP2, a year as JSON", `${base}/appointments?${year}`, { ...headers, accept: "application/json" }],
  ];
  for (const [name, url, h] of rows) {
    loads.push(loadavg()[0] ?? 0);
    const timing = await time(name, url, h, server.pid);
    timings.push(timing);
    console.log(
      `  ${name}: median ${timing.medianMs.toFixed(1)} ms (first byte ${timing.firstByteMs.toFixed(1)} ms, server RSS ${timing.startRssMiB.toFixed(0)} MiB before, at most ${timing.peakRssMiB.toFixed(0)} MiB), p90 ${timing.p90Ms.toFixed(1)} ms, max ${timing.maxMs.toFixed(1)} ms, ${String(timing.bytes)} bytes, status ${String(timing.status)}`,
    );
  }
  loads.push(loadavg()[0] ?? 0);
} finally {
  await server.stop();
  // --keep: leave the clinic for a closer look (EXPLAIN, a profile); remove it by its id afterwards.
  if (argv.includes("--keep")) console.log(`  kept the clinic ${world.clinicId}`);
  else await remove(database, world);
  await database.close();
}
const readyz = timings[0]?.medianMs ?? 0;
console.log("");
console.log(
  `| Request (${String(world.appointments)} appointments, 50 providers, 2025) | median ms | p90 ms | ÷ /readyz | first byte ms | server RSS MiB before → at most | answer |`,
);
console.log("|---|---|---|---|---|---|---|");
for (const t of timings) {
  console.log(
    `| ${t.name} | ${t.medianMs.toFixed(1)} | ${t.p90Ms.toFixed(1)} | ${readyz > 0 ? (t.medianMs / readyz).toFixed(0) : "n/a"} | ${t.firstByteMs.toFixed(1)} | ${t.startRssMiB.toFixed(0)} → ${t.peakRssMiB.toFixed(0)} | ${(t.bytes / 1024).toFixed(0)} KiB |`,
  );
}
console.log(
  `\nLoad average (1 min) during the rows: ${Math.min(...loads).toFixed(2)} – ${Math.max(...loads).toFixed(2)}`,
);
