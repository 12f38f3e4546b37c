import { performance } from "node:perf_hooks";
import { type Interval } from "@clinic/api/domain/intervals";
import { type ProviderSchedule, type SlotQuery, computeSlots } from "@clinic/api/domain/slots";
import { addDays, clearTimeZoneCache, isoWeekday, wallClockToInstant } from "@clinic/api/domain/timezone";

export interface EngineRow {
  name: string;
  opsPerSec: number;
  msPerOp: number;
  slots: number;
}

const tz = "Europe/Berlin";
const from = "2027-03-15";
const weekdays = [1, 2, 3, 4, 5];

/** `count` bookings of `durationMin` spread over the working days of the range for one provider. */
function bookings(days: number, count: number, durationMin: number, seed: number): Interval[] {
  const out: Interval[] = [];
  for (let k = 0; k < count; k++) {
    let date = addDays(from, (k * 7 + seed) % days);
    while (!weekdays.includes(isoWeekday(date))) date = addDays(date, 1);
    const minute = 9 * 60 + (((k * 5 + seed) % 14) * 30);
    const start = wallClockToInstant(date, minute, tz);
    out.push({ start, end: start + durationMin * 60_000 });
  }
  return out;
}

function scenario(providers: number, days: number, durationMin: number): SlotQuery {
  const hours = weekdays.flatMap((weekday) => [
    { weekday, opensMin: 9 * 60, closesMin: 12 * 60 },
    { weekday, opensMin: 13 * 60, closesMin: 17 * 60 },
  ]);
  const schedules: ProviderSchedule[] = Array.from({ length: providers }, (_, p) => ({
    providerId: `provider-${String(p).padStart(3, "0")}`,
    hours,
    busy: [
      ...bookings(days, 40, durationMin, p),
      // One closure: an afternoon off.
      { start: wallClockToInstant(addDays(from, 3), 13 * 60, tz), end: wallClockToInstant(addDays(from, 3), 17 * 60, tz) },
    ],
  }));
  return {
    timeZone: tz,
    fromDate: from,
    toDate: addDays(from, days - 1),
    durationMin,
    nowMs: Date.parse("2027-03-01T00:00:00Z"),
    clinicHours: weekdays.map((weekday) => ({ weekday, opensMin: 9 * 60, closesMin: 17 * 60 })),
    clinicClosures: [],
    providers: schedules,
  };
}

function measure(name: string, query: SlotQuery, options: { seconds: number; cold?: boolean }): EngineRow {
  let slots = 0;
  for (let k = 0; k < 20; k++) slots = computeSlots(query).length;
  let ops = 0;
  let spent = 0;
  const deadline = performance.now() + options.seconds * 1000;
  while (performance.now() < deadline) {
    if (options.cold) clearTimeZoneCache();
    const t0 = performance.now();
    slots = computeSlots(query).length;
    spent += performance.now() - t0;
    ops++;
  }
  return { name, opsPerSec: Math.round((ops / spent) * 1000), msPerOp: Number((spent / ops).toFixed(3)), slots };
}

/** The slot-engine cases of the availability issue, measured for about `seconds` each. */
export function runEngineBench(seconds = 1.5): EngineRow[] {
  return [
    measure("reference (1 provider, 30 d, 30 min)", scenario(1, 30, 30), { seconds }),
    measure("reference, cold time-zone memo", scenario(1, 30, 30), { seconds, cold: true }),
    measure("union (5 providers, 30 d, 30 min)", scenario(5, 30, 30), { seconds }),
    measure("large (50 providers, 62 d, 15 min)", scenario(50, 62, 15), { seconds }),
  ];
}
