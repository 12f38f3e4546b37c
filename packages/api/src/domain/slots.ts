import { type Interval, intersect, normalize } from "./intervals.ts";
import { type ZonedDay, dayInstant, dayLocalMinute, formatLocal, formatTimeOfDay, zonedDays } from "./timezone.ts";

/**
 * The slot engine (CONTRACT §6), pure: no I/O, the clock passed in. Listing availability and
 * booking both call `computeSlots`, so an offered slot is exactly a bookable slot.
 *
 * Rules, per local date of the range and per provider:
 * 1. windows = the provider's periods of that ISO weekday ∩ the clinic's, in minutes of day,
 *    then converted from clinic wall clock to instants in the clinic's zone for that date;
 * 2. slot starts every `durationMin` of real elapsed time from each window's start, and a slot
 *    must end within its window;
 * 3. a slot overlapping a clinic closure or the provider's busy time is dropped — busy time never
 *    shifts the grid;
 * 4. a slot starting at or before now is dropped;
 * 5. one entry per distinct (start, end) with every free provider, ids sorted; entries by start.
 */

const MINUTE = 60_000;

/** A weekly period in clinic wall-clock minutes of day, half-open; closesMin may be 1440. */
export interface WeeklyPeriod {
  weekday: number;
  opensMin: number;
  closesMin: number;
}

/** One candidate provider: weekly hours, and busy time (closures + booked appointments, epoch ms, any order). */
export interface ProviderSchedule {
  providerId: string;
  hours: readonly WeeklyPeriod[];
  busy: readonly Interval[];
}

/** Everything one computation needs; the caller loads it (see availability/compute.ts). */
export interface SlotQuery {
  /** The clinic's IANA zone: hours are wall clock there, dates are local dates there. */
  timeZone: string;
  /** Local dates YYYY-MM-DD, inclusive. */
  fromDate: string;
  toDate: string;
  /** A positive whole number of minutes. */
  durationMin: number;
  nowMs: number;
  clinicHours: readonly WeeklyPeriod[];
  clinicClosures: readonly Interval[];
  providers: readonly ProviderSchedule[];
}

/** One bookable slot: [start, end) in epoch ms, and who can take it. */
export interface Slot {
  start: number;
  end: number;
  /** Local start `YYYY-MM-DDTHH:MM` in the clinic's zone. */
  startLocal: string;
  /** Providers free for the slot, sorted. */
  providerIds: string[];
}

/**
 * Weekly periods grouped by ISO weekday: index 1 … 7 (index 0 stays empty), each normalized
 * (adjacent periods merge into one window, so the grid runs across them), clamped to 0 … 1440.
 * Periods with another weekday are ignored.
 */
export function weeklyWindows(periods: readonly WeeklyPeriod[]): Interval[][] {
  const days: Interval[][] = [[], [], [], [], [], [], [], []];
  for (const p of periods) {
    if (p.weekday < 1 || p.weekday > 7) continue;
    days[p.weekday]?.push({ start: Math.max(0, p.opensMin), end: Math.min(1440, p.closesMin) });
  }
  return days.map((d) => normalize(d));
}

/**
 * A provider's bookable windows per weekday (index 1 … 7), in minutes of day: their hours
 * intersected with the clinic's. The same every week, so it is computed once per query.
 */
export function effectiveWindows(clinicHours: readonly WeeklyPeriod[], providerHours: readonly WeeklyPeriod[]): Interval[][] {
  return intersectWeeks(weeklyWindows(clinicHours), weeklyWindows(providerHours));
}

function intersectWeeks(clinic: readonly Interval[][], provider: readonly Interval[][]): Interval[][] {
  return clinic.map((c, weekday) => intersect(c, provider[weekday] ?? []));
}

/** Per-provider state of one computation. */
interface Plan {
  id: string;
  windows: Interval[][];
  /** Busy time (own + clinic closures), normalized. */
  busy: Interval[];
  /** Index of the first busy interval that may still overlap a later slot. */
  cursor: number;
  /** Where the cursor is valid from; a window starting earlier rewinds it. */
  validFrom: number;
}

/**
 * Providers with identical windows on a weekday share one grid: each grid point is visited once
 * and checked against every member's busy time, so the usual case (providers working the
 * clinic's hours) needs no merging at all. Members are in id order.
 */
interface Group {
  windows: Interval[];
  plans: Plan[];
}

function planOf(provider: ProviderSchedule, clinic: readonly Interval[][], closures: readonly Interval[]): Plan {
  const busy = closures.length === 0 ? normalize(provider.busy) : normalize([...provider.busy, ...closures]);
  return { id: provider.providerId, windows: intersectWeeks(clinic, weeklyWindows(provider.hours)), busy, cursor: 0, validFrom: -Infinity };
}

/** Groups per weekday (index 1 … 7), in order of their first member; plans must be sorted by id. */
function groupsByWeekday(plans: readonly Plan[]): Group[][] {
  const week: Group[][] = [];
  for (let weekday = 0; weekday <= 7; weekday++) {
    const groups = new Map<string, Group>();
    for (const plan of plans) {
      const windows = plan.windows[weekday] ?? [];
      if (windows.length === 0) continue;
      const key = windows.map((w) => `${w.start}-${w.end}`).join(",");
      const group = groups.get(key);
      if (group) group.plans.push(plan);
      else groups.set(key, { windows, plans: [plan] });
    }
    week.push([...groups.values()]);
  }
  return week;
}

/** The first index whose busy interval ends after `instant`. */
function firstEndingAfter(busy: readonly Interval[], instant: number): number {
  let lo = 0;
  let hi = busy.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((busy[mid]?.end ?? Infinity) <= instant) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedUnique(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort(compareIds);
}

/**
 * Restores order and uniqueness of one date's slots. Only needed on the rare dates where a
 * window edge in a spring-forward gap maps past the next window's start, or where groups
 * interleave.
 */
function sortAndMerge(out: Slot[], from: number): void {
  const day = out.splice(from).sort((a, b) => a.start - b.start || a.end - b.end);
  for (const slot of day) {
    const last = out.length > from ? out[out.length - 1] : undefined;
    if (last && last.start === slot.start && last.end === slot.end) last.providerIds = sortedUnique([...last.providerIds, ...slot.providerIds]);
    else out.push(slot);
  }
}

function labelOf(day: ZonedDay, start: number, wallMinute: number): string {
  // Off a transition the grid's wall-clock minute is the local time; near one, read it back.
  const minute = day.transition === Infinity ? wallMinute : dayLocalMinute(day, start);
  return minute === null ? formatLocal(start, day.timeZone) : `${day.date}T${formatTimeOfDay(minute)}`;
}

/**
 * All bookable slots of the query (rules above), ordered by start then end. Throws RangeError for
 * a duration that is not a positive whole number of minutes, a malformed date or an unknown zone.
 */
export function computeSlots(q: SlotQuery): Slot[] {
  const duration = q.durationMin;
  if (!Number.isInteger(duration) || duration <= 0) throw new RangeError(`durationMin must be a positive whole number: ${duration}`);
  const step = duration * MINUTE;
  const days = zonedDays(q.fromDate, q.toDate, q.timeZone);
  const clinic = weeklyWindows(q.clinicHours);
  const closures = normalize(q.clinicClosures);
  // Sorted once here so that every slot's providerIds come out sorted by construction.
  const plans = [...q.providers]
    .sort((a, b) => compareIds(a.providerId, b.providerId))
    .map((p) => planOf(p, clinic, closures))
    .filter((p) => p.windows.some((w) => w.length > 0));
  const out: Slot[] = [];
  if (plans.length === 0 || days.length === 0) return out;
  const week = groupsByWeekday(plans);
  // Only for dates with several groups. Keyed by start minus the date's UTC midnight: small
  // integers, which a Map hashes fastest.
  const byStart = new Map<number, Slot>();
  const mergedSlots: Slot[] = [];
  const now = q.nowMs;

  for (const day of days) {
    const groups = week[day.weekday];
    if (!groups || groups.length === 0) continue;
    const merging = groups.length > 1;
    const dayFrom = out.length;
    let ordered = true;
    let lastStart = -Infinity;
    for (const { windows, plans: members } of groups) {
      for (const window of windows) {
        const windowStart = dayInstant(day, window.start);
        const windowEnd = dayInstant(day, window.end);
        // Jump over grid points at or before now instead of visiting them.
        const skipped = windowStart <= now ? Math.floor((now - windowStart) / step) + 1 : 0;
        let start = windowStart + skipped * step;
        let minute = window.start + skipped * duration;
        if (start + step > windowEnd) continue;
        for (const plan of members) {
          if (start < plan.validFrom) plan.cursor = firstEndingAfter(plan.busy, start);
        }
        for (; start + step <= windowEnd; start += step, minute += duration) {
          const end = start + step;
          let ids: string[] | undefined;
          for (const plan of members) {
            const busy = plan.busy;
            let cursor = plan.cursor;
            let blocker = busy[cursor];
            while (blocker && blocker.end <= start) blocker = busy[++cursor];
            plan.cursor = cursor;
            // Busy intervals are disjoint and sorted: only the first one ending after start can overlap.
            if (blocker && blocker.start < end) continue;
            if (ids) ids.push(plan.id);
            else ids = [plan.id];
          }
          if (!ids) continue;
          if (merging) {
            const key = start - day.utcMidnight;
            const existing = byStart.get(key);
            if (existing) {
              for (const id of ids) existing.providerIds.push(id);
              mergedSlots.push(existing);
              continue;
            }
            const slot: Slot = { start, end, startLocal: labelOf(day, start, minute), providerIds: ids };
            byStart.set(key, slot);
            out.push(slot);
          } else {
            out.push({ start, end, startLocal: labelOf(day, start, minute), providerIds: ids });
          }
          if (start <= lastStart) ordered = false;
          lastStart = start;
        }
        for (const plan of members) plan.validFrom = start;
      }
    }
    if (merging) {
      byStart.clear();
      // Ids from several groups were appended group by group: restore id order.
      for (const slot of mergedSlots) slot.providerIds = sortedUnique(slot.providerIds);
      mergedSlots.length = 0;
    }
    if (!ordered) sortAndMerge(out, dayFrom);
  }
  return out;
}
