import { Temporal } from "temporal-polyfill";
import { addDays, isoWeekday, wallClockToInstant } from "./timezone.ts";

/**
 * Recurrence rules of appointment series (CONTRACT §14), pure: the RFC 5545 RRULE subset
 * `FREQ=DAILY|WEEKLY`, `INTERVAL`, `BYDAY`, `WKST` and exactly one of `COUNT` or `UNTIL`.
 *
 * `parseRrule` turns the text into an `Rrule` or names the part that is wrong; `expandRrule` lists
 * a series' occurrences: local dates by the RFC's rules, each at the start's wall-clock time in the
 * clinic's zone (timezone.ts, Temporal's "compatible" disambiguation), so "every Tuesday at 9"
 * stays at 9 across DST changes.
 */

/** RRULE weekday codes in ISO order: the ISO weekday (Monday 1 … Sunday 7) is index + 1. */
export const WEEKDAY_CODES = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;
export type WeekdayCode = (typeof WEEKDAY_CODES)[number];

export type Frequency = "DAILY" | "WEEKLY";

/** The most occurrences a COUNT may ask for. */
export const MAX_COUNT = 104;
/** The largest INTERVAL. */
export const MAX_INTERVAL = 52;
/** UNTIL lies at most this many calendar years after the start. */
export const MAX_UNTIL_YEARS = 2;

/** How a series ends: after `count` occurrences, through a local date, or at a UTC instant (both inclusive). */
export type RruleEnd =
  { kind: "count"; count: number } | { kind: "untilDate"; date: string } | { kind: "untilInstant"; ms: number };

/** A parsed recurrence rule. */
export interface Rrule {
  freq: Frequency;
  /** 1 … MAX_INTERVAL; 1 when absent. */
  interval: number;
  /** The BYDAY weekdays in ISO order; empty when BYDAY is absent. */
  byDay: readonly WeekdayCode[];
  /** The day a week starts on (WKST); MO when absent. Matters for WEEKLY with INTERVAL > 1. */
  weekStart: WeekdayCode;
  end: RruleEnd;
}

/** A rule that cannot be used: `part` is the RRULE part at fault (`FREQ`, `BYDAY`, …) or `rrule` for the text as a whole. */
export interface RruleError {
  ok: false;
  part: string;
  message: string;
}

/** A series' first occurrence: a local date and wall-clock minutes after midnight (0 … 1439). */
export interface SeriesStart {
  date: string;
  minutes: number;
}

/** One occurrence: its local date and the instant (epoch ms) of the start's wall-clock time on it. */
export interface Occurrence {
  date: string;
  startMs: number;
}

export type ParseRruleResult = { ok: true; rule: Rrule } | RruleError;
export type ExpandRruleResult = { ok: true; occurrences: Occurrence[] } | RruleError;

const supportedParts = new Set(["FREQ", "INTERVAL", "BYDAY", "WKST", "COUNT", "UNTIL"]);
const unsupportedParts = new Set([
  "BYMONTH",
  "BYMONTHDAY",
  "BYSETPOS",
  "BYHOUR",
  "BYMINUTE",
  "BYSECOND",
  "BYYEARDAY",
  "BYWEEKNO",
]);
const otherFrequencies = new Set(["SECONDLY", "MINUTELY", "HOURLY", "MONTHLY", "YEARLY"]);
const namePattern = /^[A-Z][A-Z0-9-]*$/;
const untilPattern = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/;

function fail(part: string, message: string): RruleError {
  return { ok: false, part, message };
}

/** Echoes client text in a message without letting a long value take it over. */
function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function isWeekdayCode(text: string): text is WeekdayCode {
  return (WEEKDAY_CODES as readonly string[]).includes(text);
}

function isoWeekdayOf(code: WeekdayCode): number {
  return WEEKDAY_CODES.indexOf(code) + 1;
}

function codeOf(isoDay: number): WeekdayCode {
  return WEEKDAY_CODES[(isoDay - 1) % 7] ?? "MO";
}

/** A whole number of at most three digits within [min, max], or undefined. */
function smallInteger(text: string, min: number, max: number): number | undefined {
  if (!/^\d{1,3}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

/**
 * Parses an RRULE (an optional leading `RRULE:`, then `NAME=VALUE` parts joined by `;`). Names and
 * enumerated values are case-insensitive, as RFC 5545 §2.1 has them. Each error names the part at
 * fault; `rrule` when the text as a whole is malformed.
 */
export function parseRrule(text: string): ParseRruleResult {
  const body = text.trim().replace(/^RRULE:/i, "");
  if (body === "") return fail("rrule", "the RRULE is empty");
  const values = new Map<string, string>();
  for (const item of body.split(";")) {
    const eq = item.indexOf("=");
    const name = item.slice(0, eq).toUpperCase();
    if (eq < 0 || !namePattern.test(name)) {
      return fail("rrule", `${quote(item)} is not a NAME=VALUE part; parts are separated by ";"`);
    }
    if (unsupportedParts.has(name)) {
      return fail(name, `${name} is not supported: a series takes FREQ, INTERVAL, BYDAY, WKST and COUNT or UNTIL`);
    }
    if (!supportedParts.has(name)) return fail(name.slice(0, 40), `${quote(name)} is not an RRULE part`);
    if (values.has(name)) return fail(name, `${name} is given more than once`);
    values.set(name, item.slice(eq + 1).toUpperCase());
  }

  const freqText = values.get("FREQ");
  if (freqText === undefined) return fail("FREQ", "FREQ is required: DAILY or WEEKLY");
  if (freqText !== "DAILY" && freqText !== "WEEKLY") {
    const what = otherFrequencies.has(freqText)
      ? `FREQ=${freqText} is not supported`
      : `FREQ ${quote(freqText)} is unknown`;
    return fail("FREQ", `${what}: only DAILY and WEEKLY are supported`);
  }

  let interval = 1;
  const intervalText = values.get("INTERVAL");
  if (intervalText !== undefined) {
    const n = smallInteger(intervalText, 1, MAX_INTERVAL);
    if (n === undefined) return fail("INTERVAL", `INTERVAL must be a whole number from 1 to ${MAX_INTERVAL}`);
    interval = n;
  }

  const byDayText = values.get("BYDAY");
  const byDay = byDayText === undefined ? [] : parseByDay(byDayText);
  if (!Array.isArray(byDay)) return byDay;

  let weekStart: WeekdayCode = "MO";
  const wkstText = values.get("WKST");
  if (wkstText !== undefined) {
    if (!isWeekdayCode(wkstText)) return fail("WKST", `WKST must be one of ${WEEKDAY_CODES.join(", ")}`);
    weekStart = wkstText;
  }

  const countText = values.get("COUNT");
  const untilText = values.get("UNTIL");
  if ((countText === undefined) === (untilText === undefined)) {
    const found = countText === undefined ? "neither is given" : "both are given";
    return fail("COUNT", `exactly one of COUNT or UNTIL is required: ${found}`);
  }
  let end: RruleEnd;
  if (countText !== undefined) {
    const count = smallInteger(countText, 1, MAX_COUNT);
    if (count === undefined) return fail("COUNT", `COUNT must be a whole number from 1 to ${MAX_COUNT}`);
    end = { kind: "count", count };
  } else {
    const until = parseUntil(untilText ?? "");
    if ("ok" in until) return until;
    end = until;
  }

  return { ok: true, rule: { freq: freqText, interval, byDay, weekStart, end } };
}

/** BYDAY: distinct weekday codes without ordinals, returned in ISO order. */
function parseByDay(text: string): WeekdayCode[] | RruleError {
  const days = new Set<WeekdayCode>();
  for (const item of text.split(",")) {
    if (/^[+-]?\d+[A-Z]{2}$/.test(item)) {
      return fail("BYDAY", `BYDAY ${quote(item)} has an ordinal: a series takes plain weekdays (MO, TU, …)`);
    }
    if (!isWeekdayCode(item)) {
      return fail("BYDAY", `BYDAY ${quote(item)} is not a weekday: use ${WEEKDAY_CODES.join(", ")}`);
    }
    if (days.has(item)) return fail("BYDAY", `BYDAY lists ${item} twice`);
    days.add(item);
  }
  return WEEKDAY_CODES.filter((code) => days.has(code));
}

/** UNTIL: a date `YYYYMMDD` or a UTC date-time `YYYYMMDDTHHMMSSZ`; a floating local time is refused. */
function parseUntil(text: string): RruleEnd | RruleError {
  const formats = "a date YYYYMMDD or a UTC date-time YYYYMMDDTHHMMSSZ";
  const match = untilPattern.exec(text);
  if (!match) return fail("UNTIL", `UNTIL ${quote(text)} must be ${formats}`);
  const [, y = "", mo = "", d = "", h = "00", mi = "00", s = "00", zulu] = match;
  const hasTime = match[4] !== undefined;
  if (hasTime && zulu !== "Z") {
    return fail("UNTIL", `UNTIL ${quote(text)} is a local time without a zone: end it with Z (UTC), or give a date`);
  }
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // Date.UTC rolls 20270230 over to March and 25:00 into the next day: a real value survives the trip.
  if (new Date(ms).toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${s}`) {
    return fail("UNTIL", `UNTIL ${quote(text)} is not a real ${formats}`);
  }
  return hasTime ? { kind: "untilInstant", ms } : { kind: "untilDate", date: `${y}-${mo}-${d}` };
}

/**
 * The occurrences of a series starting at `start` (a local date and wall-clock minutes in
 * `timeZone`), in date order, the start first. DAILY: every INTERVAL-th day from the start's date;
 * WEEKLY: every INTERVAL-th week, counted from the week (beginning on WKST) that holds the start,
 * on the BYDAY weekdays (the start's weekday when absent); BYDAY limits DAILY too. COUNT gives
 * exactly that many; UNTIL every occurrence up to it (a date: through that local date; an instant:
 * starting at or before it). Each occurrence is its date at the start's wall-clock time in the zone
 * (a time in a spring-forward gap moves forward, a repeated fall-back time takes the earlier instant).
 *
 * Refuses (part `BYDAY`) a BYDAY that leaves out the start's weekday — the start is the first
 * occurrence (RFC 5545: DTSTART synchronized with the rule) — and (part `UNTIL`) an UNTIL before
 * the start or more than MAX_UNTIL_YEARS calendar years after it. Throws RangeError, like
 * timezone.ts, for a malformed date, minutes outside 0 … 1439 or an unknown zone.
 */
export function expandRrule(rule: Rrule, start: SeriesStart, timeZone: string): ExpandRruleResult {
  if (!Number.isInteger(start.minutes) || start.minutes < 0 || start.minutes >= 1440) {
    throw new RangeError(`start minutes must be a whole number 0 … 1439: ${start.minutes}`);
  }
  const startWeekday = isoWeekday(start.date);
  // Without BYDAY, DAILY takes every weekday and WEEKLY the start's (RFC 5545: from DTSTART).
  const weekdays = new Set(
    rule.byDay.length > 0
      ? rule.byDay.map(isoWeekdayOf)
      : rule.freq === "DAILY"
        ? [1, 2, 3, 4, 5, 6, 7]
        : [startWeekday],
  );
  if (!weekdays.has(startWeekday)) {
    const code = codeOf(startWeekday);
    return fail("BYDAY", `BYDAY must include the start's weekday ${code}: the start is the series' first occurrence`);
  }

  const at = (date: string) => wallClockToInstant(date, start.minutes, timeZone);
  const startMs = at(start.date);
  const latestDate = Temporal.PlainDate.from(start.date).add({ years: MAX_UNTIL_YEARS }).toString();
  let count = Infinity;
  let lastDate = latestDate;
  let lastMs = Infinity;
  const { end } = rule;
  if (end.kind === "count") {
    count = end.count;
  } else if (end.kind === "untilDate") {
    if (end.date < start.date) return fail("UNTIL", `UNTIL ${end.date} is before the start ${start.date}`);
    if (end.date > latestDate) return fail("UNTIL", tooLate(end.date, latestDate));
    lastDate = end.date;
  } else {
    const latestMs = at(latestDate);
    const until = new Date(end.ms).toISOString();
    if (end.ms < startMs) return fail("UNTIL", `UNTIL ${until} is before the start ${new Date(startMs).toISOString()}`);
    if (end.ms > latestMs) return fail("UNTIL", tooLate(until, new Date(latestMs).toISOString()));
    lastMs = end.ms;
  }

  const occurrences: Occurrence[] = [];
  for (const date of candidateDates(rule, start.date, startWeekday, weekdays)) {
    // COUNT has no date limit (52-week intervals run for decades); UNTIL is checked above.
    if (occurrences.length >= count || (end.kind !== "count" && date > lastDate)) break;
    const startMsOfDate = at(date);
    if (startMsOfDate > lastMs) break;
    occurrences.push({ date, startMs: startMsOfDate });
  }
  return { ok: true, occurrences };
}

function tooLate(until: string, latest: string): string {
  return `UNTIL ${until} is more than ${MAX_UNTIL_YEARS} years after the start: the latest is ${latest}`;
}

/**
 * The rule's dates from the start on, in order, without end. They never run dry: the start's
 * weekday is in `weekdays` and comes back every INTERVAL-th week, or every 7 × INTERVAL days.
 */
function candidateDates(
  rule: Rrule,
  startDate: string,
  startWeekday: number,
  weekdays: ReadonlySet<number>,
): Generator<string> {
  if (rule.freq === "DAILY") return dailyDates(startDate, rule.interval, weekdays);
  const weekStart = addDays(startDate, -((startWeekday - isoWeekdayOf(rule.weekStart) + 7) % 7));
  return weeklyDates(weekStart, startDate, rule.interval, weekdays);
}

function* dailyDates(startDate: string, interval: number, weekdays: ReadonlySet<number>): Generator<string> {
  for (let n = 0; ; n += interval) {
    const date = addDays(startDate, n);
    if (weekdays.has(isoWeekday(date))) yield date;
  }
}

/** Dates of every INTERVAL-th week from the one beginning `weekStart`, none before `startDate`. */
function* weeklyDates(
  weekStart: string,
  startDate: string,
  interval: number,
  weekdays: ReadonlySet<number>,
): Generator<string> {
  for (let week = 0; ; week += interval) {
    for (let day = 0; day < 7; day++) {
      const date = addDays(weekStart, week * 7 + day);
      if (date >= startDate && weekdays.has(isoWeekday(date))) yield date;
    }
  }
}
