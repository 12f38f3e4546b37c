// Clinic wall-clock helpers (no I/O). Dates are `YYYY-MM-DD` strings and times of day are minutes
// after midnight, both in the clinic's zone; only `todayIn` and `offsetMinutesAt` look at instants.
import { Temporal } from "temporal-polyfill";

const DAY_MS = 86_400_000;

function utcMidnight(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
}

/** The date `n` days after `date`. Calendar arithmetic, so DST never shifts it. */
export function addDays(date: string, n: number): string {
  return new Date(utcMidnight(date) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((utcMidnight(to) - utcMidnight(from)) / DAY_MS);
}

/** ISO weekday of a date: Monday 1 … Sunday 7. */
export function isoWeekday(date: string): number {
  const day = new Date(utcMidnight(date)).getUTCDay();
  return day === 0 ? 7 : day;
}

/** `YYYY-MM-DD` from calendar components. */
export function dateOf(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The clinic's current date. */
export function todayIn(now: Date, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timeZone).toPlainDate().toString();
}

/** The zone's UTC offset at `now`, in minutes (what chrono-node takes as its reference zone). */
export function offsetMinutesAt(now: Date, timeZone: string): number {
  return Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timeZone).offsetNanoseconds / 60_000_000_000;
}

/** Splits an API `start_local` (`YYYY-MM-DDTHH:MM`) into its date and minutes of day. */
export function splitLocal(local: string): { date: string; minutes: number } {
  return { date: local.slice(0, 10), minutes: Number(local.slice(11, 13)) * 60 + Number(local.slice(14, 16)) };
}

/** Wall-clock `YYYY-MM-DDTHH:MM` of an instant in the zone. */
export function localOf(instant: Date, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timeZone).toPlainDateTime().toString().slice(0, 16);
}

const weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
const monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** `Tue 31 Mar 2026`, the way dates are shown to a patient. */
export function formatDate(date: string): string {
  const weekday = weekdayNames[isoWeekday(date) - 1] ?? "";
  const month = monthNames[Number(date.slice(5, 7)) - 1] ?? "";
  return `${weekday} ${String(Number(date.slice(8, 10)))} ${month} ${date.slice(0, 4)}`;
}

/** `Tue 31 Mar 2026 15:00` from a `YYYY-MM-DDTHH:MM` wall-clock time. */
export function formatLocal(local: string): string {
  return `${formatDate(local.slice(0, 10))} ${local.slice(11, 16)}`;
}

/** `HH:MM` of minutes after midnight. */
export function formatMinutes(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}
