// openTime (the available time of reports, CONTRACT §20, docs/reports.md#available-minutes) is the
// slot engine's: for a one-minute service on a one-minute grid, computeSlots offers a provider
// exactly the minutes openTime says are open, on random schedules across Europe/Berlin's DST weeks
// (hours, overrides of either owner, closures, time taken elsewhere).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type DateOverride,
  type SlotQuery,
  type WeeklyPeriod,
  computeSlots,
  openTime,
} from "../../src/domain/slots.ts";
import { addDays, localDateOf } from "../../src/domain/timezone.ts";

const MINUTE = 60_000;
const zone = "Europe/Berlin";

/** A period of a day, often a long one, sometimes around the 02:00–03:00 of a DST change. */
const period = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 720 }), fc.integer({ min: 60, max: 1440 }))
    .map(([opens, length]) => ({ opensMin: opens, closesMin: Math.min(1440, opens + length) })),
  fc
    .tuple(fc.integer({ min: 90, max: 170 }), fc.integer({ min: 1, max: 120 }))
    .map(([opens, length]) => ({ opensMin: opens, closesMin: opens + length })),
);
const weekly = fc.array(
  fc.tuple(fc.integer({ min: 1, max: 7 }), period).map(([weekday, p]): WeeklyPeriod => ({ weekday, ...p })),
  { minLength: 3, maxLength: 10 },
);
/** A week with a DST change in Berlin (spring forward, fall back) or an ordinary one. */
const week = fc.constantFrom("2026-03-23", "2026-10-19", "2026-06-08");
const busy = (from: number) =>
  fc.array(
    fc
      .tuple(fc.integer({ min: 0, max: 7 * 1440 }), fc.integer({ min: 1, max: 600 }))
      .map(([start, length]) => ({ start: from + start * MINUTE, end: from + (start + length) * MINUTE })),
    { maxLength: 4 },
  );
const overrides = (monday: string) =>
  fc.array(
    fc
      .tuple(fc.integer({ min: 0, max: 6 }), fc.array(period, { maxLength: 2 }))
      .map(([d, periods]): DateOverride => ({ date: addDays(monday, d), periods })),
    { maxLength: 2 },
  );

describe("openTime is what computeSlots offers", () => {
  it("a one-minute service is offered exactly the open minutes of each provider and date", () => {
    fc.assert(
      fc.property(
        week.chain((monday) => {
          const from = Date.parse(`${addDays(monday, -1)}T22:00:00Z`);
          return fc.record({
            monday: fc.constant(monday),
            clinicHours: weekly,
            clinicOverrides: overrides(monday).map((list) => [...new Map(list.map((o) => [o.date, o])).values()]),
            clinicClosures: busy(from),
            providers: fc.array(
              fc.record({
                hours: weekly,
                overrides: overrides(monday).map((list) => [...new Map(list.map((o) => [o.date, o])).values()]),
                closures: busy(from),
                elsewhere: busy(from),
              }),
              { minLength: 1, maxLength: 2 },
            ),
          });
        }),
        (w) => {
          const q: SlotQuery = {
            timeZone: zone,
            fromDate: w.monday,
            toDate: addDays(w.monday, 6),
            durationMin: 1,
            stepMin: 1,
            nowMs: 0,
            clinicHours: w.clinicHours,
            clinicOverrides: w.clinicOverrides,
            clinicClosures: w.clinicClosures,
            providers: w.providers.map((p, i) => ({
              providerId: `p${String(i)}`,
              hours: p.hours,
              overrides: p.overrides,
              closures: p.closures,
              bookings: p.elsewhere.map((e) => ({
                id: "",
                elsewhere: true,
                ...e,
                bufferBeforeMin: 0,
                bufferAfterMin: 0,
              })),
            })),
          };
          const offered = new Map<string, number>();
          for (const slot of computeSlots(q)) {
            const date = localDateOf(slot.start, zone);
            for (const id of slot.providerIds) offered.set(`${id}|${date}`, (offered.get(`${id}|${date}`) ?? 0) + 1);
          }
          const open = new Map<string, number>();
          for (const o of openTime(q)) {
            const minutes = o.intervals.reduce((sum, i) => sum + (i.end - i.start) / MINUTE, 0);
            open.set(`${o.providerId}|${o.date}`, minutes);
          }
          expect(open).toEqual(offered);
        },
      ),
      { numRuns: 150 },
    );
  });
});
