import { addDays, daysBetween, localDateOf } from "../../domain/timezone.ts";
import { validationFailed } from "../../errors.ts";

/** Longest range of one availability query: 62 local dates. */
export const maxRangeDays = 61;

/**
 * The dates availability is computed for: what a range reaches (the next midnight, plus the widest
 * UTC offsets) stays in year 9999.
 */
const firstSupportedDate = "1900-01-01";
const lastSupportedDate = "9999-12-29";

function assertSupported(path: "from" | "to", date: string): void {
  if (date < firstSupportedDate || date > lastSupportedDate)
    throw validationFailed(path, `must be a date from ${firstSupportedDate} to ${lastSupportedDate}`);
}

/**
 * The inclusive local date range of a query: default today … today+6 in the clinic's zone (a
 * default end is cut at the last supported date); at most 62 dates, `to` not before `from`.
 */
export function resolveDateRange(
  from: string | undefined,
  to: string | undefined,
  timeZone: string,
  now: Date,
): { fromDate: string; toDate: string } {
  if (from !== undefined) assertSupported("from", from);
  if (to !== undefined) assertSupported("to", to);
  const fromDate =
    from ??
    (to
      ? daysBetween(firstSupportedDate, to) >= 6
        ? addDays(to, -6)
        : firstSupportedDate
      : localDateOf(now.getTime(), timeZone));
  const toDate = to ?? (daysBetween(fromDate, lastSupportedDate) >= 6 ? addDays(fromDate, 6) : lastSupportedDate);
  const span = daysBetween(fromDate, toDate);
  if (span < 0) throw validationFailed("to", "must not be before from");
  if (span > maxRangeDays) throw validationFailed("to", `the range may cover at most ${maxRangeDays + 1} dates`);
  return { fromDate, toDate };
}
