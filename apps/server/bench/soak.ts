// `npm run bench:soak -- [minutes]`: the compiled server (one process) under a steady mix of
// availability reads (cache hits and misses) and bookings for a few minutes (default 5), its RSS
// sampled every 15 s from /proc. Prints the samples: memory that keeps growing under a steady
// load is a leak; a plateau is a cache filling to its bound.
import { execFile, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { mintToken } from "@clinic/api";
import { loadConfig } from "@clinic/config";
import { sql } from "drizzle-orm";
import { clinicMembers, clinics, migrate, openDatabase, services, users, workHours } from "@clinic/db";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const secret = "bench-secret-0123456789-0123456789-abcdef";
const minutes = Number(process.argv[2] ?? 5);
const databaseUrl = loadConfig().databaseUrl ?? "postgres://postgres@127.0.0.1:5432/postgres";

const rssMb = async (pid: number) => {
  const status = await readFile(`/proc/${String(pid)}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};
const port = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const a = s.address();
    s.close(() => { resolve(typeof a === "object" && a ? a.port : 0); });
  });
});

const database = await openDatabase({ url: databaseUrl, poolMax: 2 });
await migrate(database.db);
const [clinic] = await database.db.insert(clinics).values({ name: "Soak", timezone: "Europe/Berlin" }).returning();
if (!clinic) throw new Error("no clinic");
const agentId = crypto.randomUUID();
await database.db.insert(users).values({ id: agentId, email: `soak-${agentId}@bench.test` });
await database.db.insert(clinicMembers).values({ clinicId: clinic.id, userId: agentId, fullName: "Agent", email: "agent@bench.test", clinicRole: "BOOKING_AGENT" });
await database.db.insert(workHours).values([1, 2, 3, 4, 5].map((weekday) => ({ clinicId: clinic.id, scope: "clinic" as const, weekday, opensMin: 540, closesMin: 1020 })));
const serviceIds: string[] = [];
for (let p = 0; p < 50; p++) {
  const id = crypto.randomUUID();
  await database.db.insert(users).values({ id, email: `soak-p${String(p)}-${id}@bench.test` });
  await database.db.insert(clinicMembers).values({ clinicId: clinic.id, userId: id, fullName: `Provider ${String(p)}`, email: `p${String(p)}@bench.test`, isProvider: true });
  await database.db.insert(workHours).values([1, 2, 3, 4, 5].map((weekday) => ({ clinicId: clinic.id, scope: "provider" as const, providerId: id, weekday, opensMin: 540, closesMin: 1020 })));
  const [service] = await database.db.insert(services).values({ clinicId: clinic.id, name: `Soak ${String(p)}`, durationMin: 30, providerId: id }).returning();
  if (service) serviceIds.push(service.id);
}
const token = await mintToken(secret, { sub: agentId, email: `soak-${agentId}@bench.test` });

const server = spawn(process.execPath, ["--enable-source-maps", "apps/server/dist/main.js"], {
  cwd: root,
  detached: true,
  env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, WORKERS: "1", PORT: String(port), JWT_SECRET: secret, DEMO: "off", LOG_LEVEL: "warn", RATE_LIMIT_MAX: "1000000000", BOOKING_RATE_LIMIT: "1000000" },
  stdio: ["ignore", "pipe", "pipe"],
});
let output = "";
server.stdout.on("data", (c: Buffer) => (output += c.toString()));
server.stderr.on("data", (c: Buffer) => (output += c.toString()));
while (!output.includes("listening on")) {
  if (server.exitCode !== null) throw new Error(output);
  await new Promise((r) => setTimeout(r, 100));
}
const pid = server.pid ?? 0;
const base = `http://127.0.0.1:${String(port)}`;
const samples: { s: number; rssMb: number }[] = [{ s: 0, rssMb: await rssMb(pid) }];
console.log(`soak: ${String(minutes)} min on ${databaseUrl.replace(/\/\/[^@]*@/, "//")}; idle RSS ${String(samples[0]?.rssMb)} MB`);

// Rounds of load, each from a process of its own: a cache-hit row, a cache-miss row, a booking row.
const run = promisify(execFile);
const started = Date.now();
const common = { base, token, clinicId: clinic.id, serviceIds, seconds: 10, connections: 10 };
const hit = `/v1/availability?clinic_id=${clinic.id}&service_id=${serviceIds[0] ?? ""}&from=2027-03-16&to=2027-03-16`;
const kinds = [{ kind: "get", path: hit }, { kind: "availability-miss" }, { kind: "bookings" }];
let round = 0;
const sampler = setInterval(() => {
  void rssMb(pid).then((mb) => {
    samples.push({ s: Math.round((Date.now() - started) / 1000), rssMb: mb });
    console.log(`  ${String(samples.at(-1)?.s).padStart(4)} s  RSS ${String(mb)} MB`);
  });
}, 15_000);
while (Date.now() - started < minutes * 60_000) {
  const spec = { ...common, ...kinds[round % kinds.length], weekOffset: Math.floor(round / 3) };
  await run(process.execPath, ["--import", "tsx", "apps/server/bench/load.ts", JSON.stringify(spec)], { cwd: root });
  round++;
}
clearInterval(sampler);
await new Promise((r) => setTimeout(r, 5000));
const after = await rssMb(pid);
console.log(`after ${String(round)} rounds and 5 s idle: RSS ${String(after)} MB`);
const middle = samples.filter((s) => s.s >= (minutes * 60) / 2).map((s) => s.rssMb);
console.log(`second half of the soak: min ${String(Math.min(...middle))} MB, max ${String(Math.max(...middle))} MB`);
if (server.pid !== undefined) process.kill(-server.pid, "SIGTERM");
await database.db.delete(clinics).where(sql`id = ${clinic.id}`);
await database.close();
