// busyFromICalendar against an independent walk: random DAILY/WEEKLY series starting near the DST
// changes of Berlin and New York, expanded by stepping local dates with Temporal (no ical.js) and
// converting each local start with Temporal's "compatible" disambiguation.
import fc from "fast-check";
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import { busyFromICalendar } from "../../src/domain/icalBusy.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;
const zones = ["Europe/Berlin", "America/New_York"] as const;
type Zone = (typeof zones)[number];
const CODES = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;
type Code = (typeof CODES)[number];

/** The days each zone changes offset, 2026–2027: a series starts up to three weeks before or one after. */
const transitions: Record<Zone, string[]> = {
  "Europe/Berlin": ["2026-03-29", "2026-10-25", "2027-03-28", "2027-10-31"],
  "America/New_York": ["2026-03-08", "2026-11-01", "2027-03-14", "2027-11-07"],
};

/** How an instance's length is written: DURATION in minutes, DTEND on the wall clock, or days + minutes. */
type Length =
  | { kind: "minutes"; minutes: number }
  | { kind: "dtend"; minutes: number }
  | { kind: "days"; days: number; minutes: number };

interface Case {
  tz: Zone;
  /** Floating DTSTART read in the clinic's zone (= tz), or TZID=tz with the clinic elsewhere. */
  floating: boolean;
  startDate: string;
  /** Wall-clock minute of day; often in or next to the 01:00–03:00 hours the changes touch. */
  minutes: number;
  freq: "DAILY" | "WEEKLY";
  interval: number;
  /** BYDAY weekdays besides the start's own; undefined: no BYDAY part. */
  byDay: Code[] | undefined;
  end: { kind: "count"; count: number } | { kind: "until"; afterStartMin: number };
  length: Length;
  /** Indices (mod the number of instances) of instances to exclude, each written local or UTC. */
  exdates: { index: number; utc: boolean }[];
  /** The window: from the first start plus this many minutes (may be negative), this many minutes long. */
  window: { offsetMin: number; lengthMin: number };
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    tz: fc.constantFrom(...zones),
    floating: fc.boolean(),
    transition: fc.nat({ max: 3 }),
    shiftDays: fc.integer({ min: -21, max: 7 }),
    minutes: fc.oneof(
      fc.integer({ min: 0, max: 1439 }),
      fc.constantFrom(0, 30, 59, 60, 90, 119, 120, 150, 179, 180, 210, 1410),
    ),
    freq: fc.constantFrom("DAILY" as const, "WEEKLY" as const),
    interval: fc.integer({ min: 1, max: 3 }),
    byDay: fc.option(fc.subarray([...CODES]), { nil: undefined }),
    end: fc.oneof(
      fc.record({ kind: fc.constant("count" as const), count: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ kind: fc.constant("until" as const), afterStartMin: fc.integer({ min: 0, max: 120 * 24 * 60 }) }),
    ),
    length: fc.oneof(
      fc.record({ kind: fc.constant("minutes" as const), minutes: fc.integer({ min: 0, max: 600 }) }),
      fc.record({ kind: fc.constant("dtend" as const), minutes: fc.integer({ min: 0, max: 600 }) }),
      fc.record({
        kind: fc.constant("days" as const),
        days: fc.integer({ min: 1, max: 3 }),
        minutes: fc.integer({ min: 0, max: 180 }),
      }),
    ),
    exdates: fc.array(fc.record({ index: fc.nat(), utc: fc.boolean() }), { maxLength: 4 }),
    window: fc.record({
      offsetMin: fc.integer({ min: -3 * 24 * 60, max: 60 * 24 * 60 }),
      lengthMin: fc.integer({ min: 60, max: 90 * 24 * 60 }),
    }),
  })
  .map(({ transition, shiftDays, ...c }) => ({
    ...c,
    startDate: Temporal.PlainDate.from(transitions[c.tz][transition] ?? "2026-03-29")
      .add({ days: shiftDays })
      .toString(),
  }));

const wallOf = (date: Temporal.PlainDate, minutes: number) =>
  date.toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
const instantOf = (wall: Temporal.PlainDateTime, tz: string) =>
  wall.toZonedDateTime(tz, { disambiguation: "compatible" }).epochMilliseconds;
const icalLocal = (wall: Temporal.PlainDateTime) => wall.toString().replace(/[-:]/g, "").slice(0, 15);
const icalUtc = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, "");
const weekdayCode = (date: Temporal.PlainDate): Code => CODES[date.dayOfWeek - 1] ?? "MO";

interface Instance {
  /** The local date the rule gives it. */
  date: Temporal.PlainDate;
  /** Its start: the date at the series' wall-clock time, read by Temporal ("compatible"). */
  ms: number;
}

/** The series' instances before EXDATE, straight from RFC 5545 (weeks start on Monday). */
function instances(c: Case): Instance[] {
  const start = Temporal.PlainDate.from(c.startDate);
  const weekdays = new Set<Code>(
    c.byDay ? [weekdayCode(start), ...c.byDay] : c.freq === "WEEKLY" ? [weekdayCode(start)] : CODES,
  );
  const firstMonday = start.subtract({ days: start.dayOfWeek - 1 });
  const untilMs = c.end.kind === "until" ? instantOf(wallOf(start, c.minutes), c.tz) + c.end.afterStartMin * MINUTE : 0;
  const found: Instance[] = [];
  for (let k = 0; k < 2000; k++) {
    const date = start.add({ days: k });
    const step = c.freq === "DAILY" ? k : Math.floor(firstMonday.until(date).days / 7);
    if (step % c.interval !== 0 || !weekdays.has(weekdayCode(date))) continue;
    const ms = instantOf(wallOf(date, c.minutes), c.tz);
    if (c.end.kind === "count" ? found.length === c.end.count : ms > untilMs) break;
    found.push({ date, ms });
  }
  return found;
}

/**
 * An instance's end: DTEND gives every instance the first one's exact length; DURATION adds its
 * days to the instance's written wall-clock time, then its minutes as exact time (RFC 5545 §3.8.5.3).
 */
function endOf(c: Case, { date, ms }: Instance): number {
  const first = wallOf(Temporal.PlainDate.from(c.startDate), c.minutes);
  switch (c.length.kind) {
    case "minutes":
      return ms + c.length.minutes * MINUTE;
    case "dtend":
      return ms + instantOf(first.add({ minutes: c.length.minutes }), c.tz) - instantOf(first, c.tz);
    case "days":
      return instantOf(wallOf(date, c.minutes).add({ days: c.length.days }), c.tz) + c.length.minutes * MINUTE;
  }
}

/** The busy set of the case in [fromMs, toMs): instances not excluded, clipped, merged. */
function expectedBusy(c: Case, all: Instance[], fromMs: number, toMs: number) {
  const excluded = new Set(c.exdates.map(({ index }) => all[index % all.length]));
  return merge(
    all
      .filter((instance) => !excluded.has(instance))
      .map((instance) => ({ start: Math.max(instance.ms, fromMs), end: Math.min(endOf(c, instance), toMs) }))
      .filter((i) => i.end > i.start),
  );
}

function merge(intervals: { start: number; end: number }[]): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const i of [...intervals].sort((a, b) => a.start - b.start)) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

function document(c: Case, all: Instance[]): string {
  const start = Temporal.PlainDate.from(c.startDate);
  const first = wallOf(start, c.minutes);
  const zoned = c.floating ? "" : `;TZID=${c.tz}`;
  const parts = [`FREQ=${c.freq}`, `INTERVAL=${c.interval}`];
  if (c.byDay) parts.push(`BYDAY=${[...new Set([weekdayCode(start), ...c.byDay])].join(",")}`);
  parts.push(
    c.end.kind === "count"
      ? `COUNT=${c.end.count}`
      : `UNTIL=${icalUtc(instantOf(first, c.tz) + c.end.afterStartMin * MINUTE)}`,
  );
  const lines = [
    "BEGIN:VEVENT",
    "UID:series@example.com",
    `DTSTART${zoned}:${icalLocal(first)}`,
    `RRULE:${parts.join(";")}`,
  ];
  if (c.length.kind === "minutes") lines.push(`DURATION:PT${c.length.minutes}M`);
  if (c.length.kind === "dtend") lines.push(`DTEND${zoned}:${icalLocal(first.add({ minutes: c.length.minutes }))}`);
  if (c.length.kind === "days") lines.push(`DURATION:P${c.length.days}DT${c.length.minutes}M`);
  for (const { index, utc } of c.exdates) {
    const instance = all[index % all.length];
    if (!instance) continue;
    // In UTC, the instant; locally, the written wall-clock time (a time in a gap stays as written).
    lines.push(
      utc ? `EXDATE:${icalUtc(instance.ms)}` : `EXDATE${zoned}:${icalLocal(wallOf(instance.date, c.minutes))}`,
    );
  }
  lines.push("END:VEVENT");
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//busy//EN", ...lines, "END:VCALENDAR", ""].join("\r\n");
}

/** The clinic's zone: the series' own for floating times, else another, to show it is not used. */
const clinicZoneOf = (c: Case) => (c.floating ? c.tz : c.tz === "Europe/Berlin" ? "America/New_York" : "Europe/Berlin");

describe("busyFromICalendar agrees with a Temporal walk of the series", () => {
  it("for DAILY/WEEKLY series near DST changes, with COUNT or UNTIL, EXDATEs and any length", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const all = instances(c);
        const fromMs = (all[0]?.ms ?? 0) + c.window.offsetMin * MINUTE;
        const toMs = fromMs + c.window.lengthMin * MINUTE;
        const actual = busyFromICalendar(document(c, all), { fromMs, toMs, timeZone: clinicZoneOf(c) });
        expect(actual).toEqual(expectedBusy(c, all, fromMs, toMs));
      }),
      { numRuns: 200 },
    );
  });

  it("for windows long after the start, which the expansion reaches by skipping whole periods", () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 100, max: 1500 }), (c, daysLater) => {
        // No COUNT (it needs every instance from the start); the EXDATEs fall anywhere.
        const open: Case = { ...c, end: { kind: "until", afterStartMin: (daysLater + 60) * 24 * 60 } };
        const all = instances(open);
        const fromMs = (all[0]?.ms ?? 0) + daysLater * DAY + c.window.offsetMin * MINUTE;
        const toMs = fromMs + Math.min(c.window.lengthMin, 30 * 24 * 60) * MINUTE;
        const actual = busyFromICalendar(document(open, all), { fromMs, toMs, timeZone: clinicZoneOf(open) });
        expect(actual).toEqual(expectedBusy(open, all, fromMs, toMs));
      }),
      { numRuns: 100 },
    );
  });
});
