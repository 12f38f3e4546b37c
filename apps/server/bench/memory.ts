// `npm run bench:memory`: what one member can make the server hold with availability answers
// (docs/availability.md#limits). The probe of the hardening review: a 1-minute service that any of
// 8 providers open 00:00–24:00 can give, asked over 62 days, then over 20 different ranges of the
// largest size the limit allows. Prints RSS and heap before, after, and after idling; never fails on
// a figure. Run with `node --expose-gc` (the npm script does) so that "after idling" is after a GC.
import { createTokenVerifier } from "@clinic/api";
import { addHours, addProvider, addService, clinicFixture, testSecret } from "@clinic/api/testing";
import { loadConfig } from "@clinic/config";
import { migrate, openDatabase } from "@clinic/db";
import { buildApp } from "../src/app.ts";

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function snapshot(label: string): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  console.log(`${label.padEnd(44)} RSS ${mb(rss).padStart(7)}   heap ${mb(heapUsed).padStart(7)}`);
  return { rss, heap: heapUsed };
}

async function main() {
  // PostgreSQL when DATABASE_URL is set (the figures of the review were taken there); PGlite in memory otherwise.
  const { databaseUrl } = loadConfig();
  const database = await openDatabase({ url: databaseUrl });
  console.log(`database: ${database.kind}`);
  await migrate(database.db);
  const app = await buildApp({
    config: { allowedOrigins: [], rateLimit: { max: 10_000_000, windowMs: 60_000 }, logLevel: "silent" },
    database,
    verifier: createTokenVerifier({ secret: testSecret }),
    logger: false,
    now: () => new Date("2027-03-01T00:00:00Z"),
  });
  const c = await clinicFixture(database.db, { timezone: "UTC" });
  const everyDay = [1, 2, 3, 4, 5, 6, 7];
  await addHours(database.db, c.clinicId, null, everyDay, "00:00", "24:00");
  for (let p = 0; p < 8; p++) {
    const provider = await addProvider(database.db, c.clinicId, `Provider ${String(p)}`);
    await addHours(database.db, c.clinicId, provider.id, everyDay, "00:00", "24:00");
  }
  const service = await addService(database.db, c.clinicId, { durationMin: 1, providerId: null });
  const ask = (from: string, to: string) =>
    app.inject({
      method: "GET",
      url: `/v1/availability?clinic_id=${c.clinicId}&service_id=${service}&from=${from}&to=${to}`,
      headers: { authorization: `Bearer ${c.staff.token}` },
    });

  const before = snapshot("before");
  const probe = await ask("2027-03-01", "2027-05-01");
  console.log(`62 days of a 1-minute service: HTTP ${String(probe.statusCode)}, ${String(probe.body.length)} bytes`);
  let largest = 0;
  let slots = 0;
  for (let days = 1; days <= 62; days++) {
    const to = new Date(Date.UTC(2027, 2, days)).toISOString().slice(0, 10);
    const answer = await ask("2027-03-01", to);
    if (answer.statusCode !== 200) break;
    largest = days;
    slots = answer.json<{ slots: unknown[] }>().slots.length;
  }
  console.log(`largest range answered: ${String(largest)} day(s), ${String(slots)} slots`);
  // Three rounds of 20 ranges never asked before: the cache's byte budget must hold RSS level.
  let after = before;
  for (let round = 0; round < 3; round++) {
    let bytes = 0;
    for (let i = 0; i < 20; i++) {
      const first = 1 + (round * 20 + i) * largest;
      const from = new Date(Date.UTC(2027, 2, first)).toISOString().slice(0, 10);
      const to = new Date(Date.UTC(2027, 2, first + largest - 1)).toISOString().slice(0, 10);
      bytes += (await ask(from, to)).body.length;
    }
    after = snapshot(`after ${String((round + 1) * 20)} different ranges (${mb(bytes)} answered)`);
  }
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const idle = snapshot("after 5 s idle");
  console.log(
    `RSS growth: ${mb(after.rss - before.rss)} after the probe, ${mb(idle.rss - before.rss)} after idling (cache budget AVAILABILITY_CACHE_MB, default 64)`,
  );
  await app.close();
  await database.close();
}

await main();
