// `npm run bench:soak -- [minutes]`: the compiled server (one process) under a steady mix of
// availability reads (cache hits and misses) and bookings for a few minutes (default 5), its RSS
// sampled every 15 s from /proc. Prints the samples: memory that keeps growing under a steady
// load is a leak; a plateau is a cache filling to its bound. Its world (seed.ts) is small: 10
// clinics of 10 providers, 100 users, one clinic of 50 providers, no webhooks.
import { readFile } from "node:fs/promises";
import { migrate, openDatabase } from "@clinic/db";
import { addDays } from "./dates.ts";
import type { AvailabilityKey, LoadSpec } from "./load.ts";
import { removeWorld, seedWorld } from "./seed.ts";
import { benchDatabaseUrl, runLoad, shownUrl, startServer } from "./server.ts";

const minutes = Number(process.argv[2] ?? 5);
const databaseUrl = benchDatabaseUrl();

const rssMb = async (pid: number) => {
  const status = await readFile(`/proc/${String(pid)}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};

const database = await openDatabase({ url: databaseUrl, poolMax: 2 });
await migrate(database.db);
const world = await seedWorld(
  database,
  {
    clinics: 10,
    providersPerClinic: 10,
    users: 100,
    anyServicesPerClinic: 2,
    largeClinicProviders: 50,
    webhookClinics: 0,
    webhookUrl: undefined,
  },
  (line) => {
    console.log(line);
  },
);
const server = await startServer(databaseUrl, 1);
const { base, pid } = server;
const samples: { s: number; rssMb: number }[] = [{ s: 0, rssMb: await rssMb(pid) }];
console.log(`soak: ${String(minutes)} min on ${shownUrl(databaseUrl)}; idle RSS ${String(samples[0]?.rssMb)} MB`);

// Rounds of load, each from a process of its own: a cache-hit row, a cache-miss row, a booking row.
const started = Date.now();
const common = { base, seconds: 10, warmupSeconds: 0, connections: 10 };
const keys: AvailabilityKey[] = world.clinics.flatMap((clinic) =>
  clinic.assignedServiceIds
    .slice(0, 3)
    .map((serviceId) => ({ clinicId: clinic.id, serviceId, date: "2029-03-06", tokens: clinic.tokens })),
);
// Each round's misses start 7,000 days after the last round's (new keys); its bookings in the weeks after the last round's.
let week = 0;
const rows = (round: number): LoadSpec[] => [
  { ...common, kind: "availability-hit", keys, warmupPasses: 1 },
  {
    ...common,
    kind: "availability-miss",
    clinic: world.large,
    firstDate: addDays("2031-01-06", (round % 300) * 7000),
    days: 7,
  },
  {
    ...common,
    kind: "bookings",
    clinics: world.clinics,
    firstMonday: addDays("2030-01-07", week * 7),
    idempotentShare: 0.3,
    retryShare: 0.05,
  },
];
let round = 0;
const sampler = setInterval(() => {
  void rssMb(pid).then((mb) => {
    samples.push({ s: Math.round((Date.now() - started) / 1000), rssMb: mb });
    console.log(`  ${String(samples.at(-1)?.s).padStart(4)} s  RSS ${String(mb)} MB`);
  });
}, 15_000);
while (Date.now() - started < minutes * 60_000) {
  const spec = rows(Math.floor(round / 3))[round % 3];
  if (spec) week += (await runLoad(spec)).weeksUsed ?? 0;
  round++;
}
clearInterval(sampler);
await new Promise((r) => setTimeout(r, 5000));
const after = await rssMb(pid);
console.log(`after ${String(round)} rounds and 5 s idle: RSS ${String(after)} MB`);
const middle = samples.filter((s) => s.s >= (minutes * 60) / 2).map((s) => s.rssMb);
console.log(`second half of the soak: min ${String(Math.min(...middle))} MB, max ${String(Math.max(...middle))} MB`);
await server.stop();
await removeWorld(database, world);
await database.close();
