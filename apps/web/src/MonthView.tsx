import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { client, messageOf } from "./api.ts";
import { addDays } from "./deskDay.ts";
import { type Locale, longDateIn, monthName, strings, weekdayNames } from "./i18n.ts";
import { weekdayOf } from "./time.ts";

/** "YYYY-MM" of a "YYYY-MM-DD". */
export const monthOf = (date: string) => date.slice(0, 7);

/** The month after (or, with -1, before) a "YYYY-MM". */
export function shiftMonth(month: string, by: number): string {
  const [y = 1970, m = 1] = month.split("-").map(Number);
  const at = new Date(Date.UTC(y, m - 1 + by, 1));
  return `${String(at.getUTCFullYear())}-${String(at.getUTCMonth() + 1).padStart(2, "0")}`;
}

/** The dates of a month, "YYYY-MM-01" … its last. */
export function datesOf(month: string): string[] {
  const out: string[] = [];
  for (let date = `${month}-01`; monthOf(date) === month; date = addDays(date, 1)) out.push(date);
  return out;
}

/** The weeks of a month, Monday first, as rows of dates (undefined = a day of another month). */
function weeksOf(month: string): (string | undefined)[][] {
  const dates = datesOf(month);
  const first = dates[0] ?? `${month}-01`;
  const cells: (string | undefined)[] = [...Array.from({ length: weekdayOf(first) - 1 }, () => undefined), ...dates];
  while (cells.length % 7 !== 0) cells.push(undefined);
  const weeks: (string | undefined)[][] = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));
  return weeks;
}

/** The free times of a month per local date (O3 over the month, from today on). */
export function useMonthSlots(props: {
  clinicId: string;
  serviceId: string;
  providerId?: string | undefined;
  month: string;
  today: string;
}) {
  const dates = datesOf(props.month);
  const last = dates[dates.length - 1] ?? `${props.month}-28`;
  const from = `${props.month}-01` < props.today ? props.today : `${props.month}-01`;
  return useQuery({
    queryKey: ["slots", props.clinicId, props.serviceId, "month", props.month, props.providerId ?? "", from],
    enabled: from <= last,
    queryFn: async () => {
      const answer = await client.onlineBooking.availability.query({
        clinic_id: props.clinicId,
        service_id: props.serviceId,
        from,
        to: last,
        ...(props.providerId ? { provider_id: props.providerId } : {}),
      });
      const perDate = new Map<string, number>();
      for (const slot of answer.slots) {
        const date = slot.start_local.slice(0, 10);
        perDate.set(date, (perDate.get(date) ?? 0) + 1);
      }
      return perDate;
    },
  });
}

/**
 * A month as a calendar: the days with free times are marked (a dot and bold, and "3 free times"
 * in the button's name, so colour is never the only signal) and can be chosen; the others are
 * shown but disabled. Previous/next move by a month, never before the current one.
 */
export function MonthView(props: {
  clinicId: string;
  serviceId: string;
  providerId?: string | undefined;
  month: string;
  today: string;
  selected: string;
  locale?: Locale;
  onMonth: (month: string) => void;
  onSelect: (date: string) => void;
}) {
  const locale = props.locale ?? "en";
  const t = strings[locale];
  const month = useMonthSlots(props);
  const names = weekdayNames(locale);
  const perDate = month.data;
  const headingId = useId();
  const anyFree = perDate !== undefined && [...perDate.values()].some((n) => n > 0);
  return (
    <div className="month" data-testid="month-view">
      <div className="month-nav">
        <button
          type="button"
          className="secondary"
          disabled={props.month <= monthOf(props.today)}
          onClick={() => {
            props.onMonth(shiftMonth(props.month, -1));
          }}
        >
          <span aria-hidden="true">‹ </span>
          {t.previousMonth}
        </button>
        <h3 id={headingId} aria-live="polite">
          {monthName(locale, props.month)}
        </h3>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            props.onMonth(shiftMonth(props.month, 1));
          }}
        >
          {t.nextMonth}
          <span aria-hidden="true"> ›</span>
        </button>
      </div>
      <table className="month-grid" aria-labelledby={headingId}>
        <thead>
          <tr>
            {names.map((n) => (
              <th key={n.long} scope="col">
                <abbr title={n.long}>{n.short}</abbr>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeksOf(props.month).map((week) => (
            <tr key={week.find((d) => d !== undefined) ?? "empty"}>
              {week.map((date, i) => {
                if (!date) return <td key={`blank-${String(i)}`} />;
                const free = perDate?.get(date) ?? 0;
                const long = longDateIn(locale, date);
                return (
                  <td key={date}>
                    <button
                      type="button"
                      className={free > 0 ? "day has-times" : "day"}
                      data-date={date}
                      aria-pressed={props.selected === date}
                      aria-label={free > 0 ? t.dayFree(long, free) : perDate ? t.dayFull(long) : long}
                      disabled={free === 0}
                      onClick={() => {
                        props.onSelect(date);
                      }}
                    >
                      {Number(date.slice(8))}
                      {free > 0 && (
                        <span className="dot" aria-hidden="true">
                          •
                        </span>
                      )}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint">
        <span className="dot" aria-hidden="true">
          •
        </span>{" "}
        {t.legendFree}
      </p>
      {month.isPending && month.fetchStatus !== "idle" && <p role="status">{t.loadingMonth}</p>}
      {month.isError && <p role="alert">{messageOf(month.error)}</p>}
      {perDate && !anyFree && <p>{t.monthEmpty}</p>}
    </div>
  );
}
