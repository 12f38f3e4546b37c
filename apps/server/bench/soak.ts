// `npm run bench:soak -- [minutes]`: the compiled server (one process) under a steady mix of
// availability reads (cache hits and misses) and bookings for a few minutes (default 5), its RSS
// sampled every 15 s from /proc. Prints the samples: memory that keeps growing under a steady
// load is a leak; a plateau is a cache filling to its bound.
import { readFile } from "node:fs/promises";
import { migrate, openDatabase } from "@clinic/db";
import type { LoadSpec } from "./load.ts";
import { removeClinic, seedClinic } from "./seed.ts";
import { benchDatabaseUrl, runLoad, shownUrl, startServer } from "./server.ts";

const minutes = Number(process.argv[2] ?? 5);
const databaseUrl = benchDatabaseUrl();

const rssMb = async (pid: number) => {
  const status = await readFile(`/proc/${String(pid)}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};

const database = await openDatabase({ url: databaseUrl, poolMax: 2 });
await migrate(database.db);
const clinic = await seedClinic(database, "Soak");
const server = await startServer(databaseUrl, 1);
const { base, pid } = server;
const samples: { s: number; rssMb: number }[] = [{ s: 0, rssMb: await rssMb(pid) }];
console.log(`soak: ${String(minutes)} min on ${shownUrl(databaseUrl)}; idle RSS ${String(samples[0]?.rssMb)} MB`);

// Rounds of load, each from a process of its own: a cache-hit row, a cache-miss row, a booking row.
const started = Date.now();
const common = { base, token: clinic.token, clinicId: clinic.clinicId, serviceIds: clinic.serviceIds, seconds: 10, connections: 10 };
const hit = `/v1/availability?clinic_id=${clinic.clinicId}&service_id=${clinic.serviceIds[0] ?? ""}&from=2027-03-16&to=2027-03-16`;
const kinds: Pick<LoadSpec, "kind" | "path">[] = [{ kind: "get", path: hit }, { kind: "availability-miss" }, { kind: "bookings" }];
let round = 0;
const sampler = setInterval(() => {
  void rssMb(pid).then((mb) => {
    samples.push({ s: Math.round((Date.now() - started) / 1000), rssMb: mb });
    console.log(`  ${String(samples.at(-1)?.s).padStart(4)} s  RSS ${String(mb)} MB`);
  });
}, 15_000);
while (Date.now() - started < minutes * 60_000) {
  const row = kinds[round % kinds.length] ?? { kind: "get", path: hit };
  await runLoad({ ...common, ...row, weekOffset: Math.floor(round / 3) });
  round++;
}
clearInterval(sampler);
await new Promise((r) => setTimeout(r, 5000));
const after = await rssMb(pid);
console.log(`after ${String(round)} rounds and 5 s idle: RSS ${String(after)} MB`);
const middle = samples.filter((s) => s.s >= (minutes * 60) / 2).map((s) => s.rssMb);
console.log(`second half of the soak: min ${String(Math.min(...middle))} MB, max ${String(Math.max(...middle))} MB`);
await server.stop();
await removeClinic(database, clinic.clinicId);
await database.close();
