// The pure parts of the work-hours area (docs/web.md "Work hours"): whose hours a page shows, the
// weekdays in words, a day's periods in order, and a date override's hours as typed.
import type { RouterOutputs } from "@clinic/client";

export type WorkHour = RouterOutputs["workHours"]["listClinic"]["work_hours"][number];
export type Closure = RouterOutputs["closures"]["listClinic"]["closures"][number];
export type DateOverride = RouterOutputs["dateOverrides"]["listClinic"]["date_overrides"][number];

/** Whose hours: the clinic's, or one provider's (by user id). */
export type HoursOwner = { kind: "clinic" } | { kind: "provider"; userId: string; name: string };

/** ISO weekdays, Monday = 1 … Sunday = 7 (CONTRACT §1). */
export const weekdays = [1, 2, 3, 4, 5, 6, 7] as const;

export const weekdayNames: Readonly<Record<number, string>> = {
  1: "Monday",
  2: "Tuesday",
  3: "Wednesday",
  4: "Thursday",
  5: "Friday",
  6: "Saturday",
  7: "Sunday",
};

export const weekdayName = (weekday: number) => weekdayNames[weekday] ?? `Day ${String(weekday)}`;

/** "09:00–12:00". */
export const periodText = (p: { opens_at: string; closes_at: string }) => `${p.opens_at}–${p.closes_at}`;

/** A day's periods, in opening order (the API lists them so; kept when a list arrives in another order). */
export function periodsOf(hours: readonly WorkHour[], weekday: number): WorkHour[] {
  return hours.filter((h) => h.weekday === weekday).sort((a, b) => a.opens_at.localeCompare(b.opens_at));
}

/** A week in words: "Monday 09:00–12:00, 14:00–18:00" per open day, "closed" for the others. */
export function dayText(hours: readonly WorkHour[], weekday: number): string {
  const periods = periodsOf(hours, weekday);
  return periods.length === 0 ? "Closed" : periods.map(periodText).join(", ");
}

const periodPattern = /^(\d{1,2}:\d\d)\s*(?:-|–|—|to)\s*(\d{1,2}:\d\d)$/;
const padded = (time: string) => (time.length === 4 ? `0${time}` : time);

/**
 * A date override's hours as typed: "09:00–12:00, 14:00–18:00" (commas or semicolons between
 * periods; "-", "–" or "to" within one); empty = closed all day. Only the shape is checked here:
 * whether a time exists, a period closes after it opens, or two overlap is the server's to say.
 */
export function parsePeriods(text: string): { periods: { opens_at: string; closes_at: string }[] } | { error: string } {
  const parts = text
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const periods: { opens_at: string; closes_at: string }[] = [];
  for (const part of parts) {
    const match = periodPattern.exec(part);
    if (!match?.[1] || !match[2])
      return { error: `“${part}” is not a period: write it as 09:00–12:00, periods separated by commas.` };
    periods.push({ opens_at: padded(match[1]), closes_at: padded(match[2]) });
  }
  return { periods };
}

/** The typed text of an override's periods, as the form shows it again. */
export const periodsText = (periods: readonly { opens_at: string; closes_at: string }[]) =>
  periods.map(periodText).join(", ");

/** "HH:MM" with a zero in front when typed without ("9:00" → "09:00"); anything else as typed. */
export const timeTyped = (text: string) => {
  const trimmed = text.trim();
  return /^\d:\d\d$/.test(trimmed) ? `0${trimmed}` : trimmed;
};
