import fc from "fast-check";
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import { type Occurrence, type WeekdayCode, WEEKDAY_CODES, expandRrule, parseRrule } from "../../src/domain/rrule.ts";

// DST in both hemispheres, DST at midnight (Santiago), a half-hour offset without DST, and none.
const zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "UTC", "America/Santiago"];
const epoch = Temporal.PlainDate.from("1970-01-01");

/** The model works on whole days since 1970-01-01, a Thursday; Temporal only converts at the edges. */
const dayNumber = (date: string) => epoch.until(date, { largestUnit: "days" }).days;
const dateOf = (day: number) => epoch.add({ days: day }).toString();
const weekdayOf = (day: number) => ((((day + 3) % 7) + 7) % 7) + 1;
const codeOf = (day: number): WeekdayCode => WEEKDAY_CODES[weekdayOf(day) - 1] ?? "MO";
const isoOf = (code: WeekdayCode) => WEEKDAY_CODES.indexOf(code) + 1;

/** The reference instant: Temporal's own conversion of the wall time, disambiguation "compatible". */
function temporalInstant(date: string, minutes: number, tz: string): number {
  return Temporal.PlainDate.from(date)
    .toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 })
    .toZonedDateTime(tz, { disambiguation: "compatible" }).epochMilliseconds;
}

interface Case {
  tz: string;
  startDay: number;
  minutes: number;
  freq: "DAILY" | "WEEKLY";
  interval: number | undefined;
  /** Extra BYDAY weekdays besides the start's; undefined: no BYDAY part. */
  byDay: WeekdayCode[] | undefined;
  weekStart: WeekdayCode | undefined;
}

/** The weekdays the rule takes, straight from RFC 5545: BYDAY, else every day (DAILY) or the start's (WEEKLY). */
function weekdaysOf(c: Case): Set<number> {
  if (c.byDay) return new Set([weekdayOf(c.startDay), ...c.byDay.map(isoOf)]);
  return c.freq === "DAILY" ? new Set([1, 2, 3, 4, 5, 6, 7]) : new Set([weekdayOf(c.startDay)]);
}

/**
 * Brute force: walk day by day from the start and keep a day when it is in an INTERVAL-th step —
 * days since the start for DAILY, weeks since the week (from WKST) holding the start for WEEKLY —
 * and on a rule weekday; until `count` are kept or past `lastDay`.
 */
function bruteForce(c: Case, end: { count: number } | { lastDay: number }): number[] {
  const interval = c.interval ?? 1;
  const weekdays = weekdaysOf(c);
  const firstWeekDay = c.startDay - ((weekdayOf(c.startDay) - isoOf(c.weekStart ?? "MO") + 7) % 7);
  const kept: number[] = [];
  for (let day = c.startDay; ; day++) {
    if ("count" in end ? kept.length === end.count : day > end.lastDay) return kept;
    const step = c.freq === "DAILY" ? day - c.startDay : Math.floor((day - firstWeekDay) / 7);
    if (step % interval === 0 && weekdays.has(weekdayOf(day))) kept.push(day);
  }
}

/** The RRULE text of a case plus its end part, parts shuffled, names and values in random case. */
function textArb(c: Case, endPart: string): fc.Arbitrary<string> {
  const parts = [`FREQ=${c.freq}`, endPart];
  if (c.interval !== undefined) parts.push(`INTERVAL=${c.interval}`);
  if (c.byDay) parts.push(`BYDAY=${[...new Set([codeOf(c.startDay), ...c.byDay])].join(",")}`);
  if (c.weekStart) parts.push(`WKST=${c.weekStart}`);
  return fc
    .tuple(fc.shuffledSubarray(parts, { minLength: parts.length }), fc.boolean(), fc.boolean())
    .map(([shuffled, prefix, lower]) => {
      const text = `${prefix ? "RRULE:" : ""}${shuffled.join(";")}`;
      return lower ? text.toLowerCase() : text;
    });
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  tz: fc.constantFrom(...zones),
  startDay: fc.integer({ min: dayNumber("2025-01-01"), max: dayNumber("2027-12-31") }),
  // Any minute, often one near the DST changes (00:00 in Santiago, 02:00–03:00 elsewhere).
  minutes: fc.oneof(fc.integer({ min: 0, max: 1439 }), fc.constantFrom(0, 30, 60, 90, 120, 150, 180, 1410)),
  freq: fc.constantFrom("DAILY" as const, "WEEKLY" as const),
  interval: fc.option(fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 52 })), { nil: undefined }),
  byDay: fc.option(fc.subarray([...WEEKDAY_CODES]), { nil: undefined }),
  weekStart: fc.option(fc.constantFrom(...WEEKDAY_CODES), { nil: undefined }),
});

function expandText(c: Case, text: string): Occurrence[] {
  const parsed = parseRrule(text);
  if (!parsed.ok) throw new Error(`${text}: ${parsed.part}: ${parsed.message}`);
  const result = expandRrule(parsed.rule, { date: dateOf(c.startDay), minutes: c.minutes }, c.tz);
  if (!result.ok) throw new Error(`${text}: ${result.part}: ${result.message}`);
  return result.occurrences;
}

/** What every expansion satisfies, whatever its end. */
function checkOccurrences(c: Case, occurrences: Occurrence[], expectedDays: number[]): void {
  const weekdays = weekdaysOf(c);
  expect(occurrences[0]?.date).toBe(dateOf(c.startDay));
  occurrences.forEach((o, k) => {
    const previous = occurrences[k - 1];
    if (previous) {
      expect(o.date > previous.date).toBe(true);
      expect(o.startMs).toBeGreaterThan(previous.startMs);
    }
    expect(weekdays.has(Temporal.PlainDate.from(o.date).dayOfWeek)).toBe(true);
    expect(o.startMs).toBe(temporalInstant(o.date, c.minutes, c.tz));
  });
  expect(occurrences.map((o) => o.date)).toEqual(expectedDays.map(dateOf));
}

const startOf = (c: { startDay: number; minutes: number; tz: string }) =>
  temporalInstant(dateOf(c.startDay), c.minutes, c.tz);
const latestUntil = (c: { startDay: number; minutes: number; tz: string }) =>
  temporalInstant(Temporal.PlainDate.from(dateOf(c.startDay)).add({ years: 2 }).toString(), c.minutes, c.tz);

describe("expandRrule agrees with RFC 5545 and Temporal", () => {
  it("COUNT: that many occurrences, increasing, on the rule's weekdays, at Temporal's instants, as a day-by-day walk finds", () => {
    fc.assert(
      fc.property(
        caseArb.chain((c) =>
          fc
            .integer({ min: 1, max: 104 })
            .chain((count) => fc.tuple(fc.constant(c), fc.constant(count), textArb(c, `COUNT=${count}`))),
        ),
        ([c, count, text]) => {
          const occurrences = expandText(c, text);
          expect(occurrences).toHaveLength(count);
          checkOccurrences(c, occurrences, bruteForce(c, { count }));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("UNTIL as a date: every occurrence through that local date", () => {
    fc.assert(
      fc.property(
        caseArb.chain((c) =>
          fc.integer({ min: 0, max: 730 }).chain((days) => {
            const lastDay = c.startDay + days;
            const until = dateOf(lastDay).replaceAll("-", "");
            return fc.tuple(fc.constant(c), fc.constant(lastDay), textArb(c, `UNTIL=${until}`));
          }),
        ),
        ([c, lastDay, text]) => {
          checkOccurrences(c, expandText(c, text), bruteForce(c, { lastDay }));
        },
      ),
      { numRuns: 100 },
    );
  });

  it("UNTIL as a UTC date-time: every occurrence starting at or before it", () => {
    fc.assert(
      fc.property(
        caseArb.chain((c) =>
          // Up to the module's limit: the start's wall-clock time two calendar years on (which a DST
          // offset between the two dates puts up to an hour away from "the same UTC time").
          fc.integer({ min: 0, max: Math.floor((latestUntil(c) - startOf(c)) / 1000) }).chain((seconds) => {
            const untilMs = startOf(c) + seconds * 1000;
            const until = new Date(untilMs).toISOString().replace(/[-:]|\.\d{3}/g, "");
            return fc.tuple(fc.constant(c), fc.constant(untilMs), textArb(c, `UNTIL=${until}`));
          }),
        ),
        ([c, untilMs, text]) => {
          const expected = bruteForce(c, { lastDay: c.startDay + 731 }).filter(
            (day) => temporalInstant(dateOf(day), c.minutes, c.tz) <= untilMs,
          );
          checkOccurrences(c, expandText(c, text), expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("refuses, naming BYDAY, a BYDAY without the start's weekday", () => {
    fc.assert(
      fc.property(caseArb, fc.subarray([...WEEKDAY_CODES], { minLength: 1 }), (c, byDay) => {
        fc.pre(!byDay.includes(codeOf(c.startDay)));
        const parsed = parseRrule(`FREQ=${c.freq};BYDAY=${byDay.join(",")};COUNT=5`);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const result = expandRrule(parsed.rule, { date: dateOf(c.startDay), minutes: c.minutes }, c.tz);
        expect(result.ok ? "ok" : result.part).toBe("BYDAY");
      }),
      { numRuns: 200 },
    );
  });
});
