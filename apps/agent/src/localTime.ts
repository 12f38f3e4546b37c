// Clinic wall-clock helpers (no I/O), on Temporal. Dates are `YYYY-MM-DD` strings and times of day
// are minutes after midnight, both in the clinic's zone; only `todayIn`, `offsetMinutesAt`,
// `instantAt` and `localOf` look at instants.
import { Temporal } from "temporal-polyfill";

const plainDate = (date: string) => Temporal.PlainDate.from(date);
const zoned = (instant: Date, timeZone: string) =>
  Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timeZone);

/** The date `n` days after `date`. Calendar arithmetic, so DST never shifts it. */
export function addDays(date: string, n: number): string {
  return plainDate(date).add({ days: n }).toString();
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return plainDate(from).until(plainDate(to), { largestUnit: "days" }).days;
}

/** ISO weekday of a date: Monday 1 … Sunday 7. */
export function isoWeekday(date: string): number {
  return plainDate(date).dayOfWeek;
}

/** `YYYY-MM-DD` from calendar components (out-of-range days are clamped to the month). */
export function dateOf(year: number, month: number, day: number): string {
  return Temporal.PlainDate.from({ year, month, day }).toString();
}

/** The clinic's current date. */
export function todayIn(now: Date, timeZone: string): string {
  return zoned(now, timeZone).toPlainDate().toString();
}

/** The zone's UTC offset at `now`, in minutes (what chrono-node takes as its reference zone). */
export function offsetMinutesAt(now: Date, timeZone: string): number {
  return zoned(now, timeZone).offsetNanoseconds / 60_000_000_000;
}

/** Splits an API `start_local` (`YYYY-MM-DDTHH:MM`) into its date and minutes of day. */
export function splitLocal(local: string): { date: string; minutes: number } {
  const at = Temporal.PlainDateTime.from(local);
  return { date: at.toPlainDate().toString(), minutes: at.hour * 60 + at.minute };
}

/**
 * The instant of a clinic date's wall-clock time (minutes after midnight) in the zone: a time in a
 * spring-forward gap moves forward, a repeated fall-back time takes the earlier instant (like the API).
 */
export function instantAt(date: string, minutes: number, timeZone: string): Date {
  const zonedAt = plainDate(date)
    .toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 })
    .toZonedDateTime(timeZone, { disambiguation: "compatible" });
  return new Date(zonedAt.epochMilliseconds);
}

/** Wall-clock `YYYY-MM-DDTHH:MM` of an instant in the zone. */
export function localOf(instant: Date, timeZone: string): string {
  return zoned(instant, timeZone).toPlainDateTime().toString({ smallestUnit: "minute" });
}

// Fixed English names rather than toLocaleString: ICU versions differ ("Sep" / "Sept").
const weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
const monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** `Tue 31 Mar 2026`, the way dates are shown to a patient. */
export function formatDate(date: string): string {
  const d = plainDate(date);
  return `${weekdayNames[d.dayOfWeek - 1] ?? ""} ${String(d.day)} ${monthNames[d.month - 1] ?? ""} ${String(d.year)}`;
}

/** `Tue 31 Mar 2026 15:00` from a `YYYY-MM-DDTHH:MM` wall-clock time. */
export function formatLocal(local: string): string {
  const { date, minutes } = splitLocal(local);
  return `${formatDate(date)} ${formatMinutes(minutes)}`;
}

/** `HH:MM` of minutes after midnight (1440 is `24:00`, the end of a day). */
export function formatMinutes(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}
