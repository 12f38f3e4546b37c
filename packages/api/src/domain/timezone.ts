import { Temporal } from "temporal-polyfill";

/**
 * Clinic wall-clock ↔ instant conversion.
 *
 * Conversions run for every window boundary of every date of an availability query, and a
 * Temporal conversion through the polyfill costs tens of microseconds, so Temporal is asked only
 * for the zone's *offset periods* (a known offset and the instant of the next transition). From
 * those, a date is resolved once into a `ZonedDay` — its offset, or the single transition that
 * falls inside it — and every wall time of that date is plain arithmetic that reproduces
 * Temporal's `disambiguation: "compatible"` exactly: a wall time in a spring-forward gap moves
 * forward by the gap, an ambiguous fall-back time takes the earlier instant. A date near two
 * transitions (no current zone has one) goes through Temporal for every conversion.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/**
 * The instants the wall times of one date can map to: UTC offsets lie within −12:00 … +14:00,
 * so wall times of a date fall in [00:00 − 14 h, 24:00 + 12 h] read as UTC; one more hour each
 * side covers a gap's shift.
 */
const REACH_BEFORE = 15 * HOUR;
const REACH_AFTER = DAY + 13 * HOUR;

/** A date of a zone, resolved for arithmetic conversions (see `zonedDay`). */
export interface ZonedDay {
  /** The date, YYYY-MM-DD. */
  readonly date: string;
  readonly timeZone: string;
  /** Epoch ms of the date's 00:00 read as UTC. */
  readonly utcMidnight: number;
  /** ISO weekday, Monday 1 … Sunday 7. */
  readonly weekday: number;
  /** Offset (ms) before `transition`. */
  readonly offsetBefore: number;
  /** The one offset transition that can affect this date's wall times; +Infinity when none. */
  readonly transition: number;
  /** Offset (ms) from `transition` on. */
  readonly offsetAfter: number;
  /** True when the zone changes offset more than once near this date: convert through Temporal. */
  readonly exact: boolean;
}

/** A stretch of time with one offset: [from, until). */
interface OffsetPeriod {
  from: number;
  until: number;
  offset: number;
}

// Both memos are bounded: cleared wholesale when full, which costs one Temporal round per zone.
// Days are keyed by zone, then by the date's UTC midnight: a number key needs no string building.
const maxCachedDays = 4096;
const maxCachedZones = 512;
const maxPeriodsPerZone = 64;
const dayCache = new Map<string, Map<number, ZonedDay>>();
let cachedDays = 0;
const periodCache = new Map<string, OffsetPeriod[]>();

/** Empties the memos (benchmarks use it to measure the cold path; tests to exercise it). */
export function clearTimeZoneCache(): void {
  clearDays();
  periodCache.clear();
}

/**
 * The canonical spelling of an IANA zone name ("europe/berlin" → "Europe/Berlin"), or undefined
 * when the runtime does not know it as a named zone. UTC-offset identifiers such as "+05:30" are
 * refused: they have no DST rules, so a clinic configured with one would silently keep the wrong
 * offset half the year.
 */
export function canonicalTimeZone(tz: string): string | undefined {
  if (tz.length === 0 || tz.length > 64 || /^[+\-\u2212]/.test(tz)) return undefined;
  try {
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(tz).timeZoneId;
  } catch {
    return undefined;
  }
}

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch ms of a date's 00:00 read as UTC; throws RangeError on text that is not a real date. */
function utcMidnightOf(date: string): number {
  const match = datePattern.exec(date);
  if (match) {
    const year = Number(match[1]);
    const month = Number(match[2]);
    const day = Number(match[3]);
    const ms = Date.UTC(year, month - 1, day);
    // Date.UTC rolls 2027-02-30 over to March; a real date survives the round trip.
    if (month >= 1 && month <= 12 && day >= 1 && new Date(ms).getUTCDate() === day) return ms;
  }
  throw new RangeError(`not a date YYYY-MM-DD: ${JSON.stringify(date)}`);
}

function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The date `n` days after `date` (YYYY-MM-DD); `n` may be negative. */
export function addDays(date: string, n: number): string {
  return formatDate(utcMidnightOf(date) + n * DAY);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((utcMidnightOf(to) - utcMidnightOf(from)) / DAY);
}

function weekdayOfUtcMidnight(ms: number): number {
  const day = new Date(ms).getUTCDay();
  return day === 0 ? 7 : day;
}

/** ISO weekday of a date: Monday 1 … Sunday 7. */
export function isoWeekday(date: string): number {
  return weekdayOfUtcMidnight(utcMidnightOf(date));
}

/** The offset period of `tz` that contains `instant`, from the memo or through Temporal. */
function periodAt(instant: number, tz: string): OffsetPeriod {
  const known = periodCache.get(tz);
  if (known) for (const p of known) if (p.from <= instant && instant < p.until) return p;
  // Throws RangeError for an unknown zone, before anything is memoised.
  const zoned = Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(tz);
  const next = zoned.getTimeZoneTransition("next");
  const until = next ? next.epochMilliseconds : Infinity;
  let periods = known;
  if (periods) {
    // A known period ending at the same transition is the same period, reached from an earlier
    // instant: extend it back rather than keep two entries (asking Temporal for the previous
    // transition instead can cost a millisecond in zones without DST).
    for (const p of periods) {
      if (p.until === until) {
        p.from = instant;
        return p;
      }
    }
    if (periods.length >= maxPeriodsPerZone) periods.length = 0;
  } else {
    if (periodCache.size >= maxCachedZones) periodCache.clear();
    periods = [];
    periodCache.set(tz, periods);
  }
  const period: OffsetPeriod = { from: instant, until, offset: zoned.offsetNanoseconds / 1_000_000 };
  periods.push(period);
  return period;
}

function resolveDay(utcMidnight: number, tz: string): ZonedDay {
  const first = periodAt(utcMidnight - REACH_BEFORE, tz);
  const horizon = utcMidnight + REACH_AFTER;
  let transition = Infinity;
  let offsetAfter = first.offset;
  let exact = false;
  if (first.until <= horizon) {
    const second = periodAt(first.until, tz);
    transition = first.until;
    offsetAfter = second.offset;
    exact = second.until <= horizon;
  }
  return {
    date: formatDate(utcMidnight),
    timeZone: tz,
    utcMidnight,
    weekday: weekdayOfUtcMidnight(utcMidnight),
    offsetBefore: first.offset,
    transition,
    offsetAfter,
    exact,
  };
}

function dayAt(utcMidnight: number, tz: string): ZonedDay {
  let days = dayCache.get(tz);
  const cached = days?.get(utcMidnight);
  if (cached) return cached;
  // Resolve before touching the memo: an unknown zone throws here and leaves nothing behind.
  const day = resolveDay(utcMidnight, tz);
  if (cachedDays >= maxCachedDays) clearDays();
  days = dayCache.get(tz);
  if (!days) {
    days = new Map();
    dayCache.set(tz, days);
  }
  days.set(utcMidnight, day);
  cachedDays++;
  return day;
}

function clearDays(): void {
  dayCache.clear();
  cachedDays = 0;
}

/**
 * A date of a zone, resolved once (memoised per zone and date) so that `dayInstant` and
 * `dayLocalMinute` are arithmetic. Throws RangeError for a malformed date or unknown zone.
 */
export function zonedDay(date: string, tz: string): ZonedDay {
  return dayAt(utcMidnightOf(date), tz);
}

/** Every date from `fromDate` to `toDate` inclusive, resolved as by `zonedDay`; empty when `toDate` is earlier. */
export function zonedDays(fromDate: string, toDate: string, tz: string): ZonedDay[] {
  const last = utcMidnightOf(toDate);
  const out: ZonedDay[] = [];
  for (let m = utcMidnightOf(fromDate); m <= last; m += DAY) out.push(dayAt(m, tz));
  return out;
}

/**
 * The instant of wall-clock `minuteOfDay` (0 … 1440, 1440 = the next day's midnight) on a
 * resolved day, with Temporal's "compatible" disambiguation.
 */
export function dayInstant(day: ZonedDay, minuteOfDay: number): number {
  const wall = day.utcMidnight + minuteOfDay * MINUTE;
  if (day.exact) return exactInstant(wall, day.timeZone);
  // Valid under the offset before the transition: the answer, and for a fall-back time that
  // occurs twice it is the earlier occurrence.
  const early = wall - day.offsetBefore;
  if (early < day.transition) return early;
  // Else valid under the offset after it; if neither reading is valid the time is in a
  // spring-forward gap, and the earlier offset's reading is exactly "moved forward by the gap".
  const late = wall - day.offsetAfter;
  return late >= day.transition ? late : early;
}

function exactInstant(wall: number, tz: string): number {
  const t = new Date(wall);
  return Temporal.PlainDateTime.from({
    year: t.getUTCFullYear(),
    month: t.getUTCMonth() + 1,
    day: t.getUTCDate(),
    hour: t.getUTCHours(),
    minute: t.getUTCMinutes(),
    second: t.getUTCSeconds(),
    millisecond: t.getUTCMilliseconds(),
  }).toZonedDateTime(tz, { disambiguation: "compatible" }).epochMilliseconds;
}

/**
 * The wall-clock minute of day (0 … 1439) of `instant` on `day`, or null when the instant is not
 * on that date or not on a whole minute of local time (then ask `formatLocal`).
 */
export function dayLocalMinute(day: ZonedDay, instant: number): number | null {
  if (day.exact) return null;
  const local = instant + (instant < day.transition ? day.offsetBefore : day.offsetAfter) - day.utcMidnight;
  if (local < 0 || local >= DAY || local % MINUTE !== 0) return null;
  return local / MINUTE;
}

/** The instant of a clinic wall-clock time; `minuteOfDay` 1440 is the next day's midnight. */
export function wallClockToInstant(date: string, minuteOfDay: number, tz: string): number {
  if (minuteOfDay < 0 || minuteOfDay > 1440) {
    // Outside the day a ZonedDay was resolved for: carry whole days into the date.
    const days = Math.floor(minuteOfDay / 1440);
    return wallClockToInstant(addDays(date, days), minuteOfDay - days * 1440, tz);
  }
  return dayInstant(zonedDay(date, tz), minuteOfDay);
}

/** The zone's offset (ms) at an instant. */
function offsetAt(instantMs: number, tz: string): number {
  return periodAt(instantMs, tz).offset;
}

/** The local date (YYYY-MM-DD) of an instant in a zone. */
export function localDateOf(instantMs: number, tz: string): string {
  return formatDate(instantMs + offsetAt(instantMs, tz));
}

/** The local date and time `YYYY-MM-DDTHH:MM` of an instant in a zone (seconds truncated). */
export function formatLocal(instantMs: number, tz: string): string {
  return new Date(instantMs + offsetAt(instantMs, tz)).toISOString().slice(0, 16);
}

function label(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

let labels: string[] | undefined;

/** Minutes of day → `"HH:MM"` (1440 → `"24:00"`); the labels of 0 … 1440 are built once and shared. */
export function formatTimeOfDay(minutes: number): string {
  labels ??= Array.from({ length: 1441 }, (_, m) => label(m));
  return labels[minutes] ?? label(minutes);
}
