// The desk's day, without I/O: which day it opens on, and how a provider's column splits into
// blocks (appointments, closures, busy time from their own calendars, free and quiet cells).
// Times are clinic wall-clock minutes.
import { dateIn, instantAt, minutesOf, timeIn, weekdayOf } from "./time.ts";

export interface WeeklyHours {
  weekday: number;
  opens_at: string;
  closes_at: string;
}
export interface DateOverride {
  date: string;
  periods: { opens_at: string; closes_at: string }[];
}
export interface Span {
  starts_at: Date;
  ends_at: Date;
}

/** `date` + `days` (local dates, no zone involved). */
export function addDays(date: string, days: number): string {
  const [y = 1970, m = 1, d = 1] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** The clinic's opening periods on a date: its date override's, else its weekly hours of that weekday. */
export function clinicPeriods(
  date: string,
  hours: WeeklyHours[],
  overrides: DateOverride[],
): { opens: number; closes: number }[] {
  const override = overrides.find((o) => o.date === date);
  const periods = override ? override.periods : hours.filter((h) => h.weekday === weekdayOf(date));
  return periods.map((p) => ({ opens: minutesOf(p.opens_at), closes: minutesOf(p.closes_at) }));
}

export type DeskDayReason = "today" | "after-hours" | "closed-today" | "nothing-open";

/**
 * The day the desk opens on (docs/web.md): today in the clinic's zone while the clinic still has
 * opening time left today; after its last closing time, or on a day it is closed (no hours, a
 * closed override, or a clinic closure over every period), the next day it opens, looking two
 * weeks ahead. Before opening it is today: the morning's preparation is for today.
 */
export function deskDay(
  now: Date,
  timeZone: string,
  schedule: { hours: WeeklyHours[]; overrides: DateOverride[]; closures: Span[] },
): { date: string; reason: DeskDayReason; today: string } {
  const today = dateIn(now, timeZone);
  const todayHadHours = clinicPeriods(today, schedule.hours, schedule.overrides).length > 0;
  for (let i = 0; i < 14; i++) {
    const date = addDays(today, i);
    const open = clinicPeriods(date, schedule.hours, schedule.overrides).some((p) => {
      const start = instantAt(date, p.opens, timeZone);
      const end = instantAt(date, p.closes, timeZone);
      if (end <= now) return false;
      return !schedule.closures.some((c) => c.starts_at <= start && c.ends_at >= end);
    });
    if (open) {
      if (i === 0) return { date, reason: "today", today };
      return { date, reason: todayHadHours ? "after-hours" : "closed-today", today };
    }
  }
  return { date: today, reason: "nothing-open", today };
}

/** One cell of a provider's column, spanning `span` rows from row `row`. */
export type Block<A> =
  | { kind: "appointments"; row: number; span: number; appointments: A[] }
  | { kind: "closed"; row: number; span: number; scope: "clinic" | "provider"; label: string }
  | { kind: "external"; row: number; span: number; stale: boolean; periods: Span[] }
  | { kind: "free"; row: number; span: 1; start: Date }
  | { kind: "quiet"; row: number; span: 1; start: Date; working: boolean };

export interface ColumnInput<A> {
  date: string;
  timeZone: string;
  /** Row starts, in minutes since local midnight, `rowStep` apart. */
  rows: number[];
  rowStep: number;
  /** This provider's appointments that take up time. */
  appointments: A[];
  providerClosures: (Span & { reason: string | null })[];
  clinicClosures: (Span & { reason: string | null })[];
  /**
   * The provider's busy time from their own calendars (§18, `calendars.busy`): times only. A
   * `stale` interval is a calendar that has not synced for too long (it spans all time).
   */
  busy?: (Span & { stale: boolean })[];
  /** Starts (minutes) that V1 offers for this provider. */
  freeStarts: Set<number> | undefined;
  /** Whether the provider works at a minute (their weekly hours). */
  working: (minute: number) => boolean;
}

/**
 * Splits a provider's column into blocks: overlapping or touching-row appointments form one
 * block (so an appointment is drawn once, as tall as it lasts); a closure forms a block until an
 * appointment interrupts it; busy time from the provider's own calendars forms a block over the
 * rows it touches until an appointment or a closure interrupts it (stale and synced busy time
 * apart), and is never offered as free whatever `freeStarts` says; every other row is a free or
 * a quiet cell of its own.
 */
export function columnBlocks<A extends { start: Date; end: Date }>(input: ColumnInput<A>): Block<A>[] {
  const { date, timeZone, rows, rowStep } = input;
  const startOf = (r: number) => instantAt(date, rows[r] ?? 0, timeZone);
  const endOf = (r: number) => instantAt(date, (rows[r] ?? 0) + rowStep, timeZone);
  const appointmentsIn = (r: number) => input.appointments.filter((a) => a.start < endOf(r) && a.end > startOf(r));
  const overlaps = (c: Span, row: number) => c.starts_at < endOf(row) && c.ends_at > startOf(row);
  const closedAt = (row: number) =>
    input.clinicClosures.some((c) => overlaps(c, row)) || input.providerClosures.some((c) => overlaps(c, row));
  const busyIn = (row: number) => (input.busy ?? []).filter((b) => overlaps(b, row));
  const blocks: Block<A>[] = [];
  let r = 0;
  while (r < rows.length) {
    const here = appointmentsIn(r);
    if (here.length > 0) {
      const found = new Set(here);
      let span = 1;
      let until = Math.max(...here.map((a) => a.end.getTime()));
      while (r + span < rows.length && startOf(r + span).getTime() < until) {
        for (const a of appointmentsIn(r + span)) found.add(a);
        until = Math.max(until, ...[...found].map((a) => a.end.getTime()));
        span++;
      }
      blocks.push({ kind: "appointments", row: r, span, appointments: [...found].sort((a, b) => +a.start - +b.start) });
      r += span;
      continue;
    }
    const clinicClosure = input.clinicClosures.find((c) => overlaps(c, r));
    const closure = clinicClosure ?? input.providerClosures.find((c) => overlaps(c, r));
    if (closure) {
      let span = 1;
      while (r + span < rows.length && overlaps(closure, r + span) && appointmentsIn(r + span).length === 0) span++;
      const reason = closure.reason ?? "closed";
      blocks.push({
        kind: "closed",
        row: r,
        span,
        scope: clinicClosure ? "clinic" : "provider",
        label: clinicClosure ? `Clinic closed: ${reason}` : reason,
      });
      r += span;
      continue;
    }
    const external = busyIn(r);
    if (external.length > 0) {
      const stale = external.some((b) => b.stale);
      const periods = new Set(external);
      let span = 1;
      while (r + span < rows.length && appointmentsIn(r + span).length === 0 && !closedAt(r + span)) {
        const next = busyIn(r + span);
        if (next.length === 0 || next.some((b) => b.stale) !== stale) break;
        for (const b of next) periods.add(b);
        span++;
      }
      blocks.push({
        kind: "external",
        row: r,
        span,
        stale,
        periods: [...periods]
          .map((b) => ({ starts_at: b.starts_at, ends_at: b.ends_at }))
          .sort((a, b) => +a.starts_at - +b.starts_at),
      });
      r += span;
      continue;
    }
    const minute = rows[r] ?? 0;
    if (input.freeStarts?.has(minute)) blocks.push({ kind: "free", row: r, span: 1, start: startOf(r) });
    else blocks.push({ kind: "quiet", row: r, span: 1, start: startOf(r), working: input.working(minute) });
    r++;
  }
  return blocks;
}

/**
 * The times of busy periods on `date` in the clinic's zone, clipped to the day, each once:
 * "09:00–10:30, 14:00–24:00" (the desk shows these and nothing else of an event).
 */
export function busyTimes(periods: readonly Span[], date: string, timeZone: string): string {
  const dayStart = instantAt(date, 0, timeZone);
  const dayEnd = instantAt(addDays(date, 1), 0, timeZone);
  const shown = periods.map((p) => {
    const from = p.starts_at <= dayStart ? "00:00" : timeIn(p.starts_at, timeZone);
    const to = p.ends_at >= dayEnd ? "24:00" : timeIn(p.ends_at, timeZone);
    return `${from}–${to}`;
  });
  return [...new Set(shown)].join(", ");
}

/** What `seatsTaken` compares of an appointment: one group slot is one provider, service, start and end. */
export interface SeatHolder {
  provider_id: string;
  service_id: string;
  start: Date;
  end: Date;
}

/**
 * The seats taken in `a`'s group slot (CONTRACT §14: up to a service's `capacity` appointments
 * share one slot — same provider, same start and end): the appointments of `all` that share it,
 * `a` included. `all` should hold only appointments that take up time (not canceled ones).
 */
export function seatsTaken<A extends SeatHolder>(all: readonly A[], a: A): number {
  return all.filter(
    (b) =>
      b.provider_id === a.provider_id &&
      b.service_id === a.service_id &&
      b.start.getTime() === a.start.getTime() &&
      b.end.getTime() === a.end.getTime(),
  ).length;
}

/**
 * The rooms and equipment an appointment holds (CONTRACT §14 `resources`), as one line: their
 * names joined with ", " in the order the API gives them; "" when it holds none.
 */
export function resourceNames(resources: readonly { name: string }[] | undefined): string {
  return (resources ?? []).map((r) => r.name).join(", ");
}
