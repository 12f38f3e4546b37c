// The reports page's arithmetic, without I/O (CONTRACT §20; docs/web.md "Reports page"): the default
// range, the range's validation, the week columns, the provider × week matrix the chart and its
// table share, and how a figure is written.
import { addDays } from "./deskDay.ts";
import { weekdayOf } from "./time.ts";

/** The figures of an RP1 row that the page shows (a subset of the row, so both JSON and tests fit). */
export interface ReportRow {
  key: string;
  label: string;
  available_minutes: number;
  booked_minutes: number;
  utilization: number | null;
  completed: number;
  no_show: number;
  no_show_rate: number | null;
}

/** The longest range RP1 and RP2 answer: `from` and `to` inclusive, at most this many days (§20). */
export const maxRangeDays = 366;

/** How many weeks the page opens on. */
export const defaultWeeks = 8;

/** The Monday of the week of a local date (weeks start on Monday, §20). */
export const mondayOf = (date: string): string => addDays(date, 1 - weekdayOf(date));

/** Whole days from `from` to `to` (0 when equal; negative when reversed). */
export function daysFrom(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * The range the page opens on: the last `defaultWeeks` full weeks (Monday–Sunday) before the week
 * of `today` (the clinic's date), so every column is a whole week that has already happened.
 */
export function defaultRange(today: string): { from: string; to: string } {
  const thisMonday = mondayOf(today);
  return { from: addDays(thisMonday, -7 * defaultWeeks), to: addDays(thisMonday, -1) };
}

/** A real calendar date written YYYY-MM-DD (not 2026-02-30, which `Date.parse` would roll over). */
function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const at = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === value;
}

/** What is wrong with a range, in words a person can act on, tied to the field to fix; undefined when it is fine. */
export function rangeProblem(from: string, to: string): { field: "from" | "to"; message: string } | undefined {
  if (!isDate(from)) return { field: "from", message: "Enter the first day of the report." };
  if (!isDate(to)) return { field: "to", message: "Enter the last day of the report." };
  const days = daysFrom(from, to) + 1;
  if (days < 1) return { field: "to", message: "The last day is before the first day: choose a later last day." };
  if (days > maxRangeDays)
    return {
      field: "to",
      message: `A report covers at most ${String(maxRangeDays)} days; this range has ${String(days)}. Choose a shorter range.`,
    };
  return undefined;
}

/** The Mondays of the weeks that `from`–`to` touches: the keys of RP1's `group_by=week` rows. */
export function weeksOf(from: string, to: string): string[] {
  const weeks: string[] = [];
  for (let monday = mondayOf(from); monday <= to; monday = addDays(monday, 7)) weeks.push(monday);
  return weeks;
}

/** A week's column heading: "23 Nov" (the year when the range spans two), from its Monday. */
export function weekLabel(monday: string, withYear = false): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: "UTC",
    day: "numeric",
    month: "short",
    ...(withYear ? { year: "numeric" } : {}),
  }).format(new Date(`${monday}T12:00:00Z`));
}

/** A date written out for a sentence: "23 November 2026". */
export function dayLabel(date: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "long", year: "numeric" }).format(
    new Date(`${date}T12:00:00Z`),
  );
}

const percentFormat = new Intl.NumberFormat("en-GB", { style: "percent", maximumFractionDigits: 1 });

/** A ratio as the tables write it: 0.4567 → "45.7%"; null stays null (the caller says why). */
export const percent = (ratio: number | null): string | null => (ratio === null ? null : percentFormat.format(ratio));

/** Minutes as hours for a table: 150 → "2.5 h". */
export const hours = (minutes: number): string =>
  `${new Intl.NumberFormat("en-GB", { maximumFractionDigits: 1 }).format(minutes / 60)} h`;

/** The week a row of `group_by=week` belongs to (its key is the week's first day; tolerate a clipped one). */
const weekOfRow = (row: Pick<ReportRow, "key">) => mondayOf(row.key);

/** One line of the utilization matrix: a provider (or the whole clinic) across the weeks. */
export interface MatrixLine {
  key: string;
  label: string;
  /** Utilization per week, in the order of `weeks`; null: nothing was available that week. */
  weeks: (number | null)[];
  /** Over the whole range. */
  total: number | null;
}

/**
 * The provider × week matrix: one line per provider, in the order of RP1's `group_by=provider`
 * rows (their whole-range utilization is the total), each filled from that provider's
 * `group_by=week` rows; a week without a row is one with nothing available (null).
 */
export function utilizationMatrix(
  weeks: readonly string[],
  providers: readonly ReportRow[],
  weeklyByProvider: ReadonlyMap<string, readonly ReportRow[]>,
): MatrixLine[] {
  return providers.map((provider) => {
    const byWeek = new Map((weeklyByProvider.get(provider.key) ?? []).map((row) => [weekOfRow(row), row]));
    return {
      key: provider.key,
      label: provider.label,
      weeks: weeks.map((week) => byWeek.get(week)?.utilization ?? null),
      total: provider.utilization,
    };
  });
}

/**
 * The clinic's line, from RP1's clinic-wide `group_by=week` rows: each week as the API gives it;
 * the whole range as booked ÷ available summed over the weeks (the weeks partition the range).
 */
export function clinicLine(weeks: readonly string[], weekly: readonly ReportRow[], label: string): MatrixLine {
  const byWeek = new Map(weekly.map((row) => [weekOfRow(row), row]));
  const available = weekly.reduce((sum, row) => sum + row.available_minutes, 0);
  const booked = weekly.reduce((sum, row) => sum + row.booked_minutes, 0);
  return {
    key: "all",
    label,
    weeks: weeks.map((week) => byWeek.get(week)?.utilization ?? null),
    total: available > 0 ? booked / available : null,
  };
}

/** A week of the no-show table: the counts and the rate (null when nothing was completed or missed). */
export interface NoShowWeek {
  week: string;
  completed: number;
  no_show: number;
  rate: number | null;
}

/** The no-show rate per week from RP1's clinic-wide `group_by=week` rows, with the whole range's. */
export function noShowWeeks(
  weeks: readonly string[],
  weekly: readonly ReportRow[],
): { weeks: NoShowWeek[]; total: NoShowWeek } {
  const byWeek = new Map(weekly.map((row) => [weekOfRow(row), row]));
  const lines = weeks.map((week) => {
    const row = byWeek.get(week);
    return { week, completed: row?.completed ?? 0, no_show: row?.no_show ?? 0, rate: row?.no_show_rate ?? null };
  });
  const completed = lines.reduce((sum, w) => sum + w.completed, 0);
  const noShow = lines.reduce((sum, w) => sum + w.no_show, 0);
  return {
    weeks: lines,
    total: {
      week: "total",
      completed,
      no_show: noShow,
      rate: completed + noShow > 0 ? noShow / (completed + noShow) : null,
    },
  };
}

/** The file name of a download: `utilization-by-week_2026-09-28_2026-11-22.csv`. */
export const csvFileName = (what: string, from: string, to: string) => `${what}_${from}_${to}.csv`;
