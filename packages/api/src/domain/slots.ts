import { type Interval, intersect, normalize, union } from "./intervals.ts";
import { addDays, formatLocal, formatTimeOfDay, isUniformDay, isoWeekday, wallClockToInstant } from "./timezone.ts";

/**
 * The slot engine (CONTRACT §6), pure: no I/O, the clock passed in. Listing availability and
 * booking both call `computeSlots`, so an offered slot is exactly a bookable slot.
 */

/** A weekly period in clinic wall-clock minutes of day, half-open; closesMin may be 1440. */
export interface WeeklyPeriod {
  weekday: number;
  opensMin: number;
  closesMin: number;
}

/** One candidate provider: weekly hours, and busy time (closures + booked appointments). */
export interface ProviderSchedule {
  providerId: string;
  hours: readonly WeeklyPeriod[];
  busy: readonly Interval[];
}

export interface SlotQuery {
  timeZone: string;
  /** Local dates YYYY-MM-DD, inclusive. */
  fromDate: string;
  toDate: string;
  durationMin: number;
  nowMs: number;
  clinicHours: readonly WeeklyPeriod[];
  clinicClosures: readonly Interval[];
  providers: readonly ProviderSchedule[];
}

export interface Slot {
  start: number;
  end: number;
  /** Local start `YYYY-MM-DDTHH:MM` in the clinic's zone. */
  startLocal: string;
  /** Providers free for the slot, sorted. */
  providerIds: string[];
}

/** Periods per ISO weekday (index 1..7), normalized, in minutes of day. */
function byWeekday(periods: readonly WeeklyPeriod[]): Interval[][] {
  const days: Interval[][] = [[], [], [], [], [], [], [], []];
  for (const p of periods) days[p.weekday]?.push({ start: p.opensMin, end: p.closesMin });
  return days.map((d) => normalize(d));
}

/**
 * A provider's bookable windows per weekday: their hours intersected with the clinic's, in
 * minutes of day. The same every week, so it is computed once per query, not per date.
 */
export function effectiveWindows(clinicHours: readonly WeeklyPeriod[], providerHours: readonly WeeklyPeriod[]): Interval[][] {
  const clinic = byWeekday(clinicHours);
  const provider = byWeekday(providerHours);
  return clinic.map((c, weekday) => intersect(c, provider[weekday] ?? []));
}

/**
 * All slots of the query: for each local date and provider, slot starts at `durationMin` steps
 * from each window's start that fit in the window, minus those overlapping busy time or a clinic
 * closure (busy time never shifts the grid), minus those not later than now; merged across
 * providers into one entry per start with every free provider.
 */
export function computeSlots(q: SlotQuery): Slot[] {
  const stepMs = q.durationMin * 60_000;
  const providers = [...q.providers].sort((a, b) => (a.providerId < b.providerId ? -1 : a.providerId > b.providerId ? 1 : 0));
  const clinicClosures = normalize(q.clinicClosures);
  const dates: { date: string; weekday: number; uniform: boolean }[] = [];
  let weekday = isoWeekday(q.fromDate);
  for (let date = q.fromDate; date <= q.toDate; date = addDays(date, 1)) {
    dates.push({ date, weekday, uniform: isUniformDay(date, q.timeZone) });
    weekday = weekday === 7 ? 1 : weekday + 1;
  }

  // One map across providers: a start seen again only gains a provider id, so the label and the
  // slot object are made once per distinct start, not once per provider.
  const merged = new Map<number, Slot>();
  const single: Slot[] = [];
  const isSingle = providers.length === 1;
  for (const provider of providers) {
    const windows = effectiveWindows(q.clinicHours, provider.hours);
    const busy = union(normalize(provider.busy), clinicClosures);
    let pointer = 0;
    for (const { date, weekday: wd, uniform } of dates) {
      for (const window of windows[wd] ?? []) {
        const windowStart = wallClockToInstant(date, window.start, q.timeZone);
        const windowEnd = wallClockToInstant(date, window.end, q.timeZone);
        let minute = window.start;
        for (let start = windowStart; start + stepMs <= windowEnd; start += stepMs, minute += q.durationMin) {
          if (start <= q.nowMs) continue;
          const end = start + stepMs;
          while (pointer < busy.length && (busy[pointer]?.end ?? Infinity) <= start) pointer++;
          const blocker = busy[pointer];
          if (blocker && blocker.start < end) continue;
          if (isSingle) {
            single.push({ start, end, startLocal: uniform ? `${date}T${formatTimeOfDay(minute)}` : formatLocal(start, q.timeZone), providerIds: [provider.providerId] });
            continue;
          }
          const existing = merged.get(start);
          if (existing) {
            existing.providerIds.push(provider.providerId);
            continue;
          }
          const startLocal = uniform ? `${date}T${formatTimeOfDay(minute)}` : formatLocal(start, q.timeZone);
          merged.set(start, { start, end, startLocal, providerIds: [provider.providerId] });
        }
      }
    }
  }

  if (isSingle) return single;
  return [...merged.values()].sort((a, b) => a.start - b.start);
}
