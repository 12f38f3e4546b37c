import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { Interval } from "../src/domain/intervals.ts";
import { type ProviderSchedule, type SlotQuery, type WeeklyPeriod, computeSlots } from "../src/domain/slots.ts";
import { addDays, clearTimeZoneCache, isoWeekday, wallClockToInstant } from "../src/domain/timezone.ts";

/**
 * Slot-engine benchmark: `pnpm --filter @clinic/api bench` (`tsx bench/engine.ts`; `--json` prints
 * the rows as one JSON line instead of a table, which is how `pnpm bench` reads them). In-process
 * and pure, so the figures are the engine's alone (no database, no HTTP). Not exported: the package
 * runs it, nothing imports it.
 */

/** One measured case: throughput, mean latency, and the slot count as a sanity check. */
export interface EngineBenchRow {
  name: string;
  opsPerSec: number;
  msPerOp: number;
  slots: number;
}

const tz = "Europe/Berlin";
const from = "2027-03-15";
// Before every slot of every case, so nothing is filtered by "now".
const nowMs = Date.parse("2027-03-01T00:00:00Z");
const weekdays = [1, 2, 3, 4, 5];

/**
 * `count` 30-minute bookings for one provider, spread over the working days of the range on the
 * half-hour grid of 09:00–16:30 (the lunch hour included: a booking there is busy time outside
 * the windows). Deterministic per seed, so every run measures the same query.
 */
function bookings(days: number, count: number, seed: number): Interval[] {
  const out: Interval[] = [];
  for (let k = 0; k < count; k++) {
    let date = addDays(from, (k * 7 + seed * 3) % days);
    while (!weekdays.includes(isoWeekday(date))) date = addDays(date, 1);
    const minute = 9 * 60 + ((k * 5 + seed) % 16) * 30;
    const start = wallClockToInstant(date, minute, tz);
    out.push({ start, end: start + 30 * 60_000 });
  }
  return out;
}

function scenario(providers: number, days: number, durationMin: number, bookingsPerProvider: number): SlotQuery {
  const providerHours: WeeklyPeriod[] = weekdays.flatMap((weekday) => [
    { weekday, opensMin: 9 * 60, closesMin: 12 * 60 },
    { weekday, opensMin: 13 * 60, closesMin: 17 * 60 },
  ]);
  const schedules: ProviderSchedule[] = Array.from({ length: providers }, (_, p) => ({
    providerId: `provider-${String(p).padStart(3, "0")}`,
    hours: providerHours,
    closures: bookings(days, bookingsPerProvider, p),
  }));
  // One clinic closure: the afternoon of Thursday 2027-03-18.
  const closureDate = addDays(from, 3);
  return {
    timeZone: tz,
    fromDate: from,
    toDate: addDays(from, days - 1),
    durationMin,
    nowMs,
    clinicHours: weekdays.map((weekday) => ({ weekday, opensMin: 9 * 60, closesMin: 17 * 60 })),
    clinicClosures: [
      { start: wallClockToInstant(closureDate, 13 * 60, tz), end: wallClockToInstant(closureDate, 17 * 60, tz) },
    ],
    providers: schedules,
  };
}

/**
 * The reference case with the booking rules of a busy clinic: buffers 10/5, a 15-minute step,
 * two hours' notice, a 60-day horizon, and two date overrides (a shortened day for the clinic,
 * a day off for the provider); the bookings carry buffers of their own.
 */
function withRules(query: SlotQuery): SlotQuery {
  return {
    ...query,
    stepMin: 15,
    bufferBeforeMin: 10,
    bufferAfterMin: 5,
    noticeMin: 120,
    horizonDays: 60,
    clinicOverrides: [{ date: addDays(from, 8), periods: [{ opensMin: 9 * 60, closesMin: 13 * 60 }] }],
    providers: query.providers.map((p) => ({
      ...p,
      overrides: [{ date: addDays(from, 10), periods: [] }],
      bookings: (p.closures ?? []).map((c, k) => ({
        id: `b${String(k)}`,
        start: c.start,
        end: c.end,
        bufferBeforeMin: 5,
        bufferAfterMin: 10,
      })),
      closures: [],
    })),
  };
}

/**
 * Runs `query` for about `seconds` after a warm-up. With `cold`, the time-zone memo is emptied
 * before every computation (inside the timed span: a cold request pays for it), so every date is
 * resolved through Temporal again. The polyfill's own internal caches cannot be cleared and stay warm.
 */
function measure(name: string, query: SlotQuery, seconds: number, cold: boolean): EngineBenchRow {
  let slots = 0;
  const warmUntil = performance.now() + Math.min(300, seconds * 250);
  while (performance.now() < warmUntil) {
    if (cold) clearTimeZoneCache();
    slots = computeSlots(query).length;
  }
  let ops = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let elapsed = 0;
  do {
    // Timing in batches keeps performance.now() out of the measured cost of the fast cases.
    for (let k = 0; k < 16; k++) {
      if (cold) clearTimeZoneCache();
      slots = computeSlots(query).length;
    }
    ops += 16;
    elapsed = performance.now() - started;
  } while (started + elapsed < deadline);
  return { name, opsPerSec: Math.round((ops / elapsed) * 1000), msPerOp: Number((elapsed / ops).toFixed(4)), slots };
}

/** The engine cases of the availability issue, each measured for about `seconds` (default 1.5). */
export async function runEngineBench(seconds = 1.5): Promise<EngineBenchRow[]> {
  const reference = scenario(1, 30, 30, 40);
  const rows = [
    measure("reference", reference, seconds, false),
    measure("reference + rules", withRules(reference), seconds, false),
    measure("reference (cold tz cache)", reference, seconds, true),
    measure("union", scenario(5, 30, 30, 40), seconds, false),
    measure("large", scenario(50, 62, 15, 80), seconds, false),
  ];
  // Async for the callers' sake (a runner may await several benchmarks); yield once to the loop.
  await Promise.resolve();
  return rows;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const rows = await runEngineBench();
  if (process.argv.includes("--json")) process.stdout.write(`${JSON.stringify(rows)}\n`);
  else console.table(rows);
}
