import { Temporal } from "temporal-polyfill";

/**
 * Clinic wall-clock ↔ instant conversion. Conversions run for every window boundary of every date
 * of an availability query, so each (zone, date) is resolved once with Temporal and memoised:
 * on a day without an offset change every wall time is plain arithmetic; only on DST days does a
 * conversion go through Temporal (policy "compatible": a time in a spring-forward gap moves
 * forward, an ambiguous fall-back time takes the earlier instant).
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

interface DayInfo {
  /** Epoch ms of the date's 00:00 read as UTC. */
  utcMidnight: number;
  /** The zone's offset (ms) for the whole day, or null when it changes during the day. */
  offset: number | null;
}

const dayCache = new Map<string, DayInfo>();
const maxCachedDays = 20_000;

/** Empties the memo (benchmarks use it to measure the cold path). */
export function clearTimeZoneCache(): void {
  dayCache.clear();
}

/** True when the runtime knows the IANA zone. */
export function isValidTimeZone(tz: string): boolean {
  try {
    Temporal.Now.zonedDateTimeISO(tz);
    return true;
  } catch {
    return false;
  }
}

function parseDate(date: string): [number, number, number] {
  return [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
}

function utcMidnightOf(date: string): number {
  const [y, m, d] = parseDate(date);
  return Date.UTC(y, m - 1, d);
}

function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The date `n` days after `date` (YYYY-MM-DD). */
export function addDays(date: string, n: number): string {
  return formatDate(utcMidnightOf(date) + n * DAY);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((utcMidnightOf(to) - utcMidnightOf(from)) / DAY);
}

/** ISO weekday of a date: Monday 1 … Sunday 7. */
export function isoWeekday(date: string): number {
  const day = new Date(utcMidnightOf(date)).getUTCDay();
  return day === 0 ? 7 : day;
}

function startOfDayOffset(date: string, tz: string): number {
  const zoned = Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: tz });
  return zoned.offsetNanoseconds / 1_000_000;
}

function dayInfo(date: string, tz: string): DayInfo {
  const key = `${tz}|${date}`;
  const cached = dayCache.get(key);
  if (cached) return cached;
  const offsetStart = startOfDayOffset(date, tz);
  const offsetEnd = startOfDayOffset(addDays(date, 1), tz);
  const info: DayInfo = { utcMidnight: utcMidnightOf(date), offset: offsetStart === offsetEnd ? offsetStart : null };
  if (dayCache.size >= maxCachedDays) dayCache.clear();
  dayCache.set(key, info);
  return info;
}

/** The instant of a clinic wall-clock time; `minuteOfDay` 1440 is the next day's midnight. */
export function wallClockToInstant(date: string, minuteOfDay: number, tz: string): number {
  if (minuteOfDay >= 1440) return wallClockToInstant(addDays(date, Math.floor(minuteOfDay / 1440)), minuteOfDay % 1440, tz);
  const info = dayInfo(date, tz);
  if (info.offset !== null) return info.utcMidnight + minuteOfDay * MINUTE - info.offset;
  const [year, month, day] = parseDate(date);
  return Temporal.PlainDateTime.from({ year, month, day, hour: Math.floor(minuteOfDay / 60), minute: minuteOfDay % 60 }).toZonedDateTime(tz, {
    disambiguation: "compatible",
  }).epochMilliseconds;
}

/** True when the zone's offset is the same all day (no DST change on that date). */
export function isUniformDay(date: string, tz: string): boolean {
  return dayInfo(date, tz).offset !== null;
}

/** The local date (YYYY-MM-DD) of an instant in a zone. */
export function localDateOf(instantMs: number, tz: string): string {
  return Temporal.Instant.fromEpochMilliseconds(instantMs).toZonedDateTimeISO(tz).toPlainDate().toString();
}

/** The local date and time `YYYY-MM-DDTHH:MM` of an instant in a zone. */
export function formatLocal(instantMs: number, tz: string): string {
  return Temporal.Instant.fromEpochMilliseconds(instantMs).toZonedDateTimeISO(tz).toPlainDateTime().toString({ smallestUnit: "minute" });
}

/** `"HH:MM"` → minutes of day (`"24:00"` → 1440); null when malformed. */
export function parseTimeOfDay(text: string): number | null {
  const match = /^(\d\d):(\d\d)$/.exec(text);
  if (!match) return null;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  if (Number(match[2]) > 59 || minutes > 1440) return null;
  return minutes;
}

/** Minutes of day → `"HH:MM"` (1440 → `"24:00"`). */
export function formatTimeOfDay(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}
