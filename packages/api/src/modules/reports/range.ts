// The local date range of a report (CONTRACT §20) and the keys of its days, weeks and months.
import { addDays, dayInstant, daysBetween, isoWeekday, zonedDay } from "../../domain/timezone.ts";
import { validationFailed } from "../../errors.ts";
import type { ReportGrouping } from "./view.ts";

/** A report covers at most 366 local dates (a leap year). */
export const maxReportDates = 366;

const firstSupportedDate = "1900-01-01";
const lastSupportedDate = "9999-12-30";

/** The inclusive local dates of a report and the instants they span: [from's midnight, the midnight after to). */
export interface ReportRange {
  fromDate: string;
  toDate: string;
  from: Date;
  to: Date;
}

/** Checks and resolves `from`/`to` (clinic-local dates, inclusive) in the clinic's zone. */
export function resolveReportRange(fromDate: string, toDate: string, timeZone: string): ReportRange {
  for (const [path, date] of [
    ["from", fromDate],
    ["to", toDate],
  ] as const) {
    if (date < firstSupportedDate || date > lastSupportedDate)
      throw validationFailed(path, `must be a date from ${firstSupportedDate} to ${lastSupportedDate}`);
  }
  const span = daysBetween(fromDate, toDate);
  if (span < 0) throw validationFailed("to", "must not be before from");
  if (span >= maxReportDates) throw validationFailed("to", `a report covers at most ${maxReportDates} dates`);
  return {
    fromDate,
    toDate,
    from: new Date(dayInstant(zonedDay(fromDate, timeZone), 0)),
    to: new Date(dayInstant(zonedDay(toDate, timeZone), 1440)),
  };
}

/** The key of a local date in a time grouping: the date, its week's Monday, or its month's first day. */
export function timeKeyOf(date: string, grouping: Extract<ReportGrouping, "day" | "week" | "month">): string {
  if (grouping === "day") return date;
  if (grouping === "week") return addDays(date, 1 - isoWeekday(date));
  return `${date.slice(0, 7)}-01`;
}

/** The label of a time key: the date, the ISO week (`2026-W13`), or the month (`2026-03`). */
export function timeLabelOf(key: string, grouping: Extract<ReportGrouping, "day" | "week" | "month">): string {
  if (grouping === "day") return key;
  if (grouping === "month") return key.slice(0, 7);
  // The ISO week's year is its Thursday's.
  const thursday = addDays(key, 3);
  const year = thursday.slice(0, 4);
  const week = Math.floor(daysBetween(`${year}-01-01`, thursday) / 7) + 1;
  return `${year}-W${String(week).padStart(2, "0")}`;
}

/** Every key of a time grouping that a date of the range has, in order. */
export function timeKeysOf(range: ReportRange, grouping: Extract<ReportGrouping, "day" | "week" | "month">): string[] {
  const keys: string[] = [];
  for (let date = range.fromDate; date <= range.toDate; date = addDays(date, 1)) {
    const key = timeKeyOf(date, grouping);
    if (keys[keys.length - 1] !== key) keys.push(key);
  }
  return keys;
}
