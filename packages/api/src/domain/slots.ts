import { dayLoadKey, localDayLoad } from "./dayLoad.ts";
import { type Interval, intersect, normalize, subtract } from "./intervals.ts";
import {
  type ZonedDay,
  addDays,
  dayInstant,
  dayLocalMinute,
  formatLocal,
  formatTimeOfDay,
  localDateOf,
  zonedDay,
  zonedDays,
} from "./timezone.ts";

/**
 * The slot engine (docs/availability.md#how-a-slot-is-computed), pure: no I/O, the clock passed
 * in. Listing availability, booking and rescheduling (`computeSlots`) and explaining why a start
 * is not bookable (`explainStart`) share the same windows, grid and busy sets, so an offered slot
 * is exactly a bookable one and a start is explained as bookable exactly when it is offered.
 *
 * Rules, per local date of the range and per approved provider, in this order:
 * 1. windows = the provider's periods of that date ∩ the clinic's, in minutes of day: a date
 *    override of an owner replaces that owner's weekly periods of the weekday; then converted from
 *    clinic wall clock to instants in the clinic's zone for that date;
 * 2. slot starts every `stepMin` (default `durationMin`) of real elapsed time from each window's
 *    start, and a slot [s, e) must end within its window;
 * 3. a slot overlapping a clinic closure or the provider's closures is dropped, and one whose
 *    buffered range [s − bufferBefore, e + bufferAfter) overlaps a booking's occupied range (the
 *    booking with its own buffers) — busy time never shifts the grid;
 * 4. a slot starting at or before now, or before now + notice, is dropped, and so is every slot on
 *    a local date after today + horizon;
 * 4a. a provider with a daily limit (CONTRACT §8 v1.4) offers nothing on a local date on which they
 *    already have that many appointments that occupy time (`dayLoad`, else counted from their
 *    bookings by `localDayLoad`);
 * 5. one entry per distinct (start, end) with every free provider, ids sorted; entries by start.
 *
 * A service that needs resources (§14, docs/resources.md): a slot is offered only when every
 * required kind has a resource free for the slot's occupied range (`freeResourcesAt`).
 *
 * A group service (capacity > 1, §14, docs/group-sessions.md): the seats of one of its slots are
 * bookings of that service with exactly the slot's start and end. They block every other slot like
 * any booking, but not their own slot while it has a seat left; such a slot carries `remaining`,
 * the seats left over its providers.
 */

const MINUTE = 60_000;

/** A weekly period in clinic wall-clock minutes of day, half-open; closesMin may be 1440. */
export interface WeeklyPeriod {
  weekday: number;
  opensMin: number;
  closesMin: number;
}

/** A period of one date, in clinic wall-clock minutes of day. */
export interface DayPeriod {
  opensMin: number;
  closesMin: number;
}

/** A date override: on `date`, these periods (possibly none: closed) replace the weekly ones. */
export interface DateOverride {
  date: string;
  periods: readonly DayPeriod[];
}

/** A booked appointment as it occupies its provider: [start, end) widened by its own buffers. */
export interface Booking {
  id: string;
  /** The booking's service: a seat of a group session when it is the queried group service. */
  serviceId?: string;
  /** The provider's time taken in another clinic (a shared provider, §14): shown without its id. */
  elsewhere?: boolean;
  /**
   * Busy time from the provider's own calendar (§18, with `elsewhere`): `busy` an event or a free/busy
   * period, `stale` a calendar that could not be read for too long (it spans all time).
   */
  external?: "busy" | "stale";
  start: number;
  end: number;
  bufferBeforeMin: number;
  bufferAfterMin: number;
}

/** One candidate provider: weekly hours, date overrides, closures and bookings (epoch ms, any order). */
export interface ProviderSchedule {
  providerId: string;
  /** Only approved providers offer slots (default true). */
  approved?: boolean;
  hours: readonly WeeklyPeriod[];
  overrides?: readonly DateOverride[];
  /** The provider's closures: a slot [s, e) overlapping one is dropped. */
  closures?: readonly Interval[];
  bookings?: readonly Booking[];
  /** The provider's daily limit (§8 v1.4): appointments per clinic-local date; null or absent: none. */
  maxDailyAppointments?: number | null;
}

/** The service's booking rules (docs/availability.md). */
export interface SlotRules {
  /** A positive whole number of minutes. */
  durationMin: number;
  /** Distance between slot starts; null or absent = durationMin. */
  stepMin?: number | null;
  bufferBeforeMin?: number;
  bufferAfterMin?: number;
  /** Slots starting before now + notice are not offered. */
  noticeMin?: number;
  /** Slots on a local date after today + horizon are not offered; null or absent = no limit. */
  horizonDays?: number | null;
  /** Seats of a slot (a group session when > 1; default 1). */
  capacity?: number;
  /** The queried service: its bookings at a slot's exact time are that slot's seats. */
  serviceId?: string;
}

/**
 * A time a resource is taken: a booking's occupied range, or a closure. `seat` says the booking is
 * a seat of a group session (its service and exact time): seats of one session share resources.
 */
export interface ResourceBusy extends Interval {
  seat?: { serviceId: string; providerId: string; start: number; end: number };
}

/** A room or piece of equipment of a required kind, active, with the times it is taken (§14). */
export interface ResourceSchedule {
  id: string;
  name: string;
  kind: string;
  busy: readonly ResourceBusy[];
}

/** Everything one computation needs; the caller loads it (see modules/availability/compute.ts). */
export interface SlotQuery extends SlotRules {
  /** The clinic's IANA zone: hours are wall clock there, dates are local dates there. */
  timeZone: string;
  /** Local dates YYYY-MM-DD, inclusive. */
  fromDate: string;
  toDate: string;
  nowMs: number;
  clinicHours: readonly WeeklyPeriod[];
  clinicOverrides?: readonly DateOverride[];
  clinicClosures: readonly Interval[];
  providers: readonly ProviderSchedule[];
  /** Kinds of resources each booking needs one of (§14); absent or empty: none. */
  requiredKinds?: readonly string[];
  /** The clinic's active resources of those kinds. */
  resources?: readonly ResourceSchedule[];
  /**
   * Appointments per provider and local date (keys `dayLoadKey`), as the read counted them in SQL
   * (`day_load`; a booking's read sees only the slot's own time, so it cannot count them from
   * `bookings`); a missing key is 0. Absent: counted from the providers' bookings (`localDayLoad`),
   * which then must hold every booking of the dates asked about.
   */
  dayLoad?: ReadonlyMap<string, number>;
}

/**
 * The local dates on which each provider with a daily limit has reached it (rule 4a): provider id →
 * dates. Providers without a limit are absent; nothing is counted when no provider has one.
 */
export function fullDates(q: Pick<SlotQuery, "providers" | "timeZone" | "dayLoad">): Map<string, Set<string>> {
  const full = new Map<string, Set<string>>();
  const limits = new Map<string, number>();
  for (const p of q.providers) if (p.maxDailyAppointments != null) limits.set(p.providerId, p.maxDailyAppointments);
  if (limits.size === 0) return full;
  const load = q.dayLoad ?? localDayLoad(q.providers, q.timeZone);
  for (const [key, count] of load) {
    const bar = key.indexOf("|");
    const limit = limits.get(key.slice(0, bar));
    if (limit === undefined || count < limit) continue;
    let dates = full.get(key.slice(0, bar));
    if (!dates) full.set(key.slice(0, bar), (dates = new Set()));
    dates.add(key.slice(bar + 1));
  }
  return full;
}

/**
 * The resources of each required kind free for a booking at [start, end) of the queried service:
 * free for its occupied range (widened by the service's buffers), neither closed nor taken, except
 * by seats of this very group session (the session of `providerId`: without one, no session's
 * resources are free); by name, then id. A kind without any is in `missing`.
 */
export function freeResourcesAt(
  q: Pick<SlotQuery, "requiredKinds" | "resources" | "bufferBeforeMin" | "bufferAfterMin" | "capacity" | "serviceId">,
  start: number,
  end: number,
  providerId?: string,
): { free: Map<string, ResourceSchedule[]>; missing: string[] } {
  const free = new Map<string, ResourceSchedule[]>();
  const missing: string[] = [];
  const kinds = q.requiredKinds ?? [];
  if (kinds.length === 0) return { free, missing };
  const from = start - (q.bufferBeforeMin ?? 0) * MINUTE;
  const to = end + (q.bufferAfterMin ?? 0) * MINUTE;
  const grouped = (q.capacity ?? 1) > 1;
  const takenFor = (b: ResourceBusy) =>
    b.start < to &&
    from < b.end &&
    !(
      grouped &&
      b.seat &&
      b.seat.providerId === providerId &&
      b.seat.serviceId === q.serviceId &&
      b.seat.start === start &&
      b.seat.end === end
    );
  for (const kind of kinds) {
    const list = (q.resources ?? [])
      .filter((r) => r.kind === kind && !r.busy.some(takenFor))
      .sort((a, b) => compareIds(a.name, b.name) || compareIds(a.id, b.id));
    if (list.length === 0) missing.push(kind);
    free.set(kind, list);
  }
  return { free, missing };
}

/** One bookable slot: [start, end) in epoch ms, and who can take it. */
export interface Slot {
  start: number;
  end: number;
  /** Local start `YYYY-MM-DDTHH:MM` in the clinic's zone. */
  startLocal: string;
  /** Providers free for the slot, sorted. */
  providerIds: string[];
  /** A group service's slot: the seats left over its providers (absent for capacity 1). */
  remaining?: number;
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

/** One date's periods as a normalized window list in minutes of day (as `weeklyWindows` does for a weekday). */
function dayWindows(periods: readonly DayPeriod[]): Interval[] {
  return normalize(periods.map((p) => ({ start: Math.max(0, p.opensMin), end: Math.min(1440, p.closesMin) })));
}

/**
 * A provider's bookable windows per weekday (index 1 … 7), in minutes of day: their hours
 * intersected with the clinic's. The same every week, so it is computed once per query.
 */
export function effectiveWindows(
  clinicHours: readonly WeeklyPeriod[],
  providerHours: readonly WeeklyPeriod[],
): Interval[][] {
  return intersectWeeks(weeklyWindows(clinicHours), weeklyWindows(providerHours));
}

function intersectWeeks(clinic: readonly Interval[][], provider: readonly Interval[][]): Interval[][] {
  return clinic.map((c, weekday) => intersect(c, provider[weekday] ?? []));
}

const overridesByDate = (overrides: readonly DateOverride[] | undefined) =>
  new Map((overrides ?? []).map((o) => [o.date, dayWindows(o.periods)]));

/** The rules of a query with their defaults, as the engine uses them. */
interface Resolved {
  durationMs: number;
  stepMs: number;
  stepMin: number;
  bufferBeforeMs: number;
  bufferAfterMs: number;
  /** The earliest start offered: later than now, and not before now + notice. */
  minStart: number;
  /** The last local date offered, or null. */
  lastDate: string | null;
  capacity: number;
  serviceId: string | undefined;
}

function resolveRules(q: Pick<SlotQuery, keyof SlotRules | "nowMs" | "timeZone">): Resolved {
  const duration = q.durationMin;
  if (!Number.isInteger(duration) || duration <= 0)
    throw new RangeError(`durationMin must be a positive whole number: ${duration}`);
  const stepMin = q.stepMin ?? duration;
  if (!Number.isInteger(stepMin) || stepMin <= 0)
    throw new RangeError(`stepMin must be a positive whole number: ${stepMin}`);
  const noticeMs = (q.noticeMin ?? 0) * MINUTE;
  return {
    durationMs: duration * MINUTE,
    stepMs: stepMin * MINUTE,
    stepMin,
    bufferBeforeMs: (q.bufferBeforeMin ?? 0) * MINUTE,
    bufferAfterMs: (q.bufferAfterMin ?? 0) * MINUTE,
    minStart: Math.max(q.nowMs + 1, q.nowMs + noticeMs),
    lastDate: q.horizonDays == null ? null : addDays(localDateOf(q.nowMs, q.timeZone), q.horizonDays),
    capacity: q.capacity ?? 1,
    serviceId: q.serviceId,
  };
}

/**
 * What a booking blocks for a slot of the queried service: the slot [s, e) must not overlap it.
 * [s − S.before, e + S.after) overlaps [b.start − b.before, b.end + b.after) exactly when [s, e)
 * overlaps [b.start − b.before − S.after, b.end + b.after + S.before).
 */
function blockedBy(booking: Booking, rules: Resolved): Interval {
  return {
    start: booking.start - booking.bufferBeforeMin * MINUTE - rules.bufferAfterMs,
    end: booking.end + booking.bufferAfterMin * MINUTE + rules.bufferBeforeMs,
  };
}

/** Per-provider state of one computation. */
interface Plan {
  id: string;
  /** Weekly windows in minutes (provider ∩ clinic), index 1 … 7. */
  windows: Interval[][];
  /** The provider's own weekly windows, for dates with a clinic override. */
  ownWeekly: Interval[][];
  overrides: Map<string, Interval[]>;
  /** Busy time (closures, clinic closures, bookings as blocked for this service), normalized. */
  busy: Interval[];
  /** Index of the first busy interval that may still overlap a later slot. */
  cursor: number;
  /** Where the cursor is valid from; a window starting earlier rewinds it. */
  validFrom: number;
  /**
   * A group service: its sessions with a seat left, by start: their end, seats taken, and the busy
   * time without that session's own seats (what else its slot must be free of).
   */
  sessions: Map<number, { end: number; taken: number; besides: Interval[] }> | null;
}

/**
 * The seats of a group service's sessions among a provider's bookings, by start: bookings of the
 * queried service, counted per exact (start, end). Empty for capacity 1.
 */
function sessionsOf(
  bookings: readonly Booking[],
  rules: Resolved,
): Map<number, { end: number; taken: number; ids: string[] }> {
  const sessions = new Map<number, { end: number; taken: number; ids: string[] }>();
  if (rules.capacity <= 1 || rules.serviceId === undefined) return sessions;
  for (const b of bookings) {
    // Time taken in another clinic is never a seat here.
    if (b.elsewhere || b.serviceId !== rules.serviceId || b.end - b.start !== rules.durationMs) continue;
    const session = sessions.get(b.start);
    if (session) {
      session.taken++;
      session.ids.push(b.id);
    } else sessions.set(b.start, { end: b.end, taken: 1, ids: [b.id] });
  }
  return sessions;
}

/**
 * The seats taken of the open session of a group slot [start, end) when nothing else blocks the
 * slot; null when there is no such session or something else does.
 */
function seatsTaken(plan: Plan, start: number, end: number): number | null {
  const session = plan.sessions?.get(start);
  if (!session || session.end !== end) return null;
  const other = session.besides[firstEndingAfter(session.besides, start)];
  return other && other.start < end ? null : session.taken;
}

function planOf(
  provider: ProviderSchedule,
  clinic: readonly Interval[][],
  closures: readonly Interval[],
  rules: Resolved,
): Plan {
  const bookings = provider.bookings ?? [];
  const own = [...(provider.closures ?? []), ...closures];
  const blocked = [...own, ...bookings.map((b) => blockedBy(b, rules))];
  const ownWeekly = weeklyWindows(provider.hours);
  const open = [...sessionsOf(bookings, rules)].filter(([, s]) => s.taken < rules.capacity);
  const besidesOf = (seats: readonly string[]) =>
    normalize([...own, ...bookings.filter((b) => !seats.includes(b.id)).map((b) => blockedBy(b, rules))]);
  return {
    sessions:
      open.length > 0
        ? new Map(open.map(([start, s]) => [start, { end: s.end, taken: s.taken, besides: besidesOf(s.ids) }]))
        : null,
    id: provider.providerId,
    windows: intersectWeeks(clinic, ownWeekly),
    ownWeekly,
    overrides: overridesByDate(provider.overrides),
    busy: normalize(blocked),
    cursor: 0,
    validFrom: -Infinity,
  };
}

/** The windows (minutes) of a plan on one date: overrides of either owner replace weekly periods. */
function windowsOn(
  plan: Plan,
  date: string,
  weekday: number,
  clinicOverride: Interval[] | undefined,
  clinic: readonly Interval[][],
): Interval[] {
  const own = plan.overrides.get(date);
  if (!own && !clinicOverride) return plan.windows[weekday] ?? [];
  return intersect(clinicOverride ?? clinic[weekday] ?? [], own ?? plan.ownWeekly[weekday] ?? []);
}

/**
 * Providers with identical windows on a date share one grid: each grid point is visited once and
 * checked against every member's busy time, so the usual case (providers working the clinic's
 * hours) needs no merging at all. Members are in id order.
 */
interface Group {
  windows: Interval[];
  plans: Plan[];
}

function groupPlans(plans: readonly Plan[], windowsOf: (plan: Plan) => Interval[]): Group[] {
  const groups = new Map<string, Group>();
  for (const plan of plans) {
    const windows = windowsOf(plan);
    if (windows.length === 0) continue;
    const key = windows.map((w) => `${w.start}-${w.end}`).join(",");
    const group = groups.get(key);
    if (group) group.plans.push(plan);
    else groups.set(key, { windows, plans: [plan] });
  }
  return [...groups.values()];
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
function sortAndMerge(out: Slot[], from: number, seatsByProvider: Map<Slot, Map<string, number>>): void {
  const day = out.splice(from).sort((a, b) => a.start - b.start || a.end - b.end);
  for (const slot of day) {
    const last = out.length > from ? out[out.length - 1] : undefined;
    if (last && last.start === slot.start && last.end === slot.end) {
      const seats = seatsByProvider.get(slot);
      if (seats) addSeats(seatsByProvider, last, [...seats.keys()], [...seats.values()]);
      last.providerIds = sortedUnique([...last.providerIds, ...slot.providerIds]);
    } else out.push(slot);
  }
}

/**
 * Adds providers' seats left to a group slot that already holds some: the same provider twice
 * (two windows of a date meeting in a spring-forward gap) counts once.
 */
function addSeats(
  seatsByProvider: Map<Slot, Map<string, number>>,
  slot: Slot,
  ids: readonly string[],
  left: readonly number[],
) {
  let seats = seatsByProvider.get(slot);
  if (!seats) {
    seats = new Map();
    seatsByProvider.set(slot, seats);
  }
  ids.forEach((id, i) => {
    if (seats.has(id)) return;
    const n = left[i] ?? 0;
    seats.set(id, n);
    slot.remaining = (slot.remaining ?? 0) + n;
  });
}

function labelOf(day: ZonedDay, start: number, wallMinute: number): string {
  // Off a transition the grid's wall-clock minute is the local time; near one, read it back.
  const minute = day.transition === Infinity ? wallMinute : dayLocalMinute(day, start);
  return minute === null ? formatLocal(start, day.timeZone) : `${day.date}T${formatTimeOfDay(minute)}`;
}

/**
 * All bookable slots of the query (rules above), ordered by start then end. Throws RangeError for
 * a duration or step that is not a positive whole number of minutes, a malformed date or an
 * unknown zone.
 */
export function computeSlots(q: SlotQuery): Slot[] {
  const rules = resolveRules(q);
  const { durationMs: duration, stepMs: step, stepMin, minStart, capacity } = rules;
  const grouped = capacity > 1;
  const needsResources = (q.requiredKinds ?? []).length > 0;
  /** A group service's slots: each provider's seats left, so a provider met twice counts once. */
  const seatsByProvider = new Map<Slot, Map<string, number>>();
  const days = zonedDays(q.fromDate, q.toDate, q.timeZone);
  const clinic = weeklyWindows(q.clinicHours);
  const clinicOverrides = overridesByDate(q.clinicOverrides);
  const closures = normalize(q.clinicClosures);
  // Sorted once here so that every slot's providerIds come out sorted by construction.
  const plans = q.providers
    .filter((p) => p.approved !== false)
    .sort((a, b) => compareIds(a.providerId, b.providerId))
    .map((p) => planOf(p, clinic, closures, rules))
    .filter((p) => p.overrides.size > 0 || clinicOverrides.size > 0 || p.windows.some((w) => w.length > 0));
  const out: Slot[] = [];
  if (plans.length === 0 || days.length === 0) return out;
  const anyOverride = clinicOverrides.size > 0 || plans.some((p) => p.overrides.size > 0);
  // Rule 4a: a provider's dates at their daily limit offer nothing of theirs.
  const full = fullDates(q);
  const fullOn = (plan: Plan, date: string) => full.get(plan.id)?.has(date) === true;
  const weekly: Group[][] = [];
  for (let weekday = 0; weekday <= 7; weekday++) weekly.push(groupPlans(plans, (plan) => plan.windows[weekday] ?? []));
  // Only for dates with several groups. Keyed by start minus the date's UTC midnight: small
  // integers, which a Map hashes fastest.
  const byStart = new Map<number, Slot>();
  const mergedSlots: Slot[] = [];

  for (const day of days) {
    if (rules.lastDate !== null && day.date > rules.lastDate) break;
    const clinicOverride = clinicOverrides.get(day.date);
    const anyFull = full.size > 0 && plans.some((p) => fullOn(p, day.date));
    const groups =
      anyFull || (anyOverride && (clinicOverride || plans.some((p) => p.overrides.has(day.date))))
        ? groupPlans(plans, (plan) =>
            fullOn(plan, day.date) ? [] : windowsOn(plan, day.date, day.weekday, clinicOverride, clinic),
          )
        : weekly[day.weekday];
    if (!groups || groups.length === 0) continue;
    const merging = groups.length > 1;
    const dayFrom = out.length;
    let ordered = true;
    let lastStart = -Infinity;
    for (const { windows, plans: members } of groups) {
      for (const window of windows) {
        const windowStart = dayInstant(day, window.start);
        const windowEnd = dayInstant(day, window.end);
        // Jump over grid points before the earliest start instead of visiting them.
        const skipped = windowStart < minStart ? Math.ceil((minStart - windowStart) / step) : 0;
        let start = windowStart + skipped * step;
        let minute = window.start + skipped * stepMin;
        if (start + duration > windowEnd) continue;
        for (const plan of members) {
          if (start < plan.validFrom) plan.cursor = firstEndingAfter(plan.busy, start);
        }
        for (; start + duration <= windowEnd; start += step, minute += stepMin) {
          const end = start + duration;
          let ids: string[] | undefined;
          let remaining = 0;
          const seatsLeft: number[] | null = grouped ? [] : null;
          for (const plan of members) {
            const busy = plan.busy;
            let cursor = plan.cursor;
            let blocker = busy[cursor];
            while (blocker && blocker.end <= start) blocker = busy[++cursor];
            plan.cursor = cursor;
            // Busy intervals are disjoint and sorted: only the first one ending after start can overlap.
            let taken = 0;
            if (blocker && blocker.start < end) {
              // A group session's own slot, with a seat left, is free of everything but itself.
              const seats = plan.sessions ? seatsTaken(plan, start, end) : null;
              if (seats === null) continue;
              taken = seats;
            }
            // A group slot's resources depend on the provider (their session's are theirs only).
            if (grouped && needsResources && freeResourcesAt(q, start, end, plan.id).missing.length > 0) continue;
            remaining += capacity - taken;
            if (seatsLeft) seatsLeft.push(capacity - taken);
            if (ids) ids.push(plan.id);
            else ids = [plan.id];
          }
          if (!ids) continue;
          if (!grouped && needsResources && freeResourcesAt(q, start, end).missing.length > 0) continue;
          if (merging) {
            const key = start - day.utcMidnight;
            const existing = byStart.get(key);
            if (existing) {
              for (const id of ids) existing.providerIds.push(id);
              if (seatsLeft) addSeats(seatsByProvider, existing, ids, seatsLeft);
              mergedSlots.push(existing);
              continue;
            }
            const slot: Slot = { start, end, startLocal: labelOf(day, start, minute), providerIds: ids };
            if (seatsLeft) {
              slot.remaining = remaining;
              seatsByProvider.set(slot, new Map(ids.map((id, i) => [id, seatsLeft[i] ?? 0])));
            }
            byStart.set(key, slot);
            out.push(slot);
          } else {
            const slot: Slot = { start, end, startLocal: labelOf(day, start, minute), providerIds: ids };
            if (seatsLeft) {
              slot.remaining = remaining;
              seatsByProvider.set(slot, new Map(ids.map((id, i) => [id, seatsLeft[i] ?? 0])));
            }
            out.push(slot);
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
    if (!ordered) sortAndMerge(out, dayFrom, seatsByProvider);
    seatsByProvider.clear();
  }
  return out;
}

/** A provider's open time on one local date (epoch ms, normalized). */
export interface OpenTime {
  providerId: string;
  /** The clinic-local date YYYY-MM-DD. */
  date: string;
  intervals: Interval[];
}

/**
 * The time each approved provider is open on each local date of the query, whatever the service
 * (the available time of CONTRACT §20, docs/reports.md): the windows `computeSlots` lays its grid
 * on (rule 1: the provider's periods ∩ the clinic's, date overrides replacing weekly periods,
 * converted in the clinic's zone, so a 23-hour day has at most 23 hours), minus clinic closures,
 * the provider's closures and their bookings as they occupy time (rule 3, with the bookings' own
 * buffers and no service's). The same plans and windows as `computeSlots`, so the two cannot
 * disagree on what is open. The service rules of the query (duration, step, buffers, notice,
 * horizon, resources) and the clock play no part. Dates without open time are left out.
 */
export function openTime(q: Omit<SlotQuery, "nowMs" | keyof SlotRules>): OpenTime[] {
  const rules = resolveRules({ durationMin: 1, nowMs: 0, timeZone: q.timeZone });
  const days = zonedDays(q.fromDate, q.toDate, q.timeZone);
  const clinic = weeklyWindows(q.clinicHours);
  const clinicOverrides = overridesByDate(q.clinicOverrides);
  const closures = normalize(q.clinicClosures);
  const out: OpenTime[] = [];
  for (const provider of q.providers) {
    if (provider.approved === false) continue;
    const plan = planOf(provider, clinic, closures, rules);
    for (const day of days) {
      const minutes = windowsOn(plan, day.date, day.weekday, clinicOverrides.get(day.date), clinic);
      if (minutes.length === 0) continue;
      // A window edge in a spring-forward gap moves forward: normalize drops what becomes empty.
      const windows = normalize(minutes.map((w) => ({ start: dayInstant(day, w.start), end: dayInstant(day, w.end) })));
      const first = windows[0];
      const last = windows[windows.length - 1];
      if (!first || !last) continue;
      // Only the busy time of this date: busy intervals are sorted and disjoint.
      const from = firstEndingAfter(plan.busy, first.start);
      let to = from;
      while (to < plan.busy.length && (plan.busy[to]?.start ?? Infinity) < last.end) to++;
      const intervals = subtract(windows, plan.busy.slice(from, to));
      if (intervals.length > 0) out.push({ providerId: provider.providerId, date: day.date, intervals });
    }
  }
  return out;
}

/**
 * The slots of `computeSlots` over the same query without time rules (now −∞, no notice, no
 * horizon) that the time rules keep at `nowMs`: what a cached answer offers now. Equal to
 * `computeSlots` with the rules (a property test holds it), so a cache can store answers that do
 * not age.
 */
export function offeredAt(
  slots: readonly Slot[],
  rules: Pick<SlotRules, "noticeMin" | "horizonDays">,
  nowMs: number,
  timeZone: string,
): Slot[] {
  const { from, to } = offeredRange(slots, rules, nowMs, timeZone);
  return slots.slice(from, to);
}

/**
 * The same as `offeredAt`, as the index range [from, to) of the slots it keeps: slots come by
 * start, the notice cuts a prefix and the horizon (a local date, which never decreases with the
 * start) a suffix. Two binary searches, so a cached answer is cut without looking at every slot.
 */
export function offeredRange(
  slots: readonly Slot[],
  rules: Pick<SlotRules, "noticeMin" | "horizonDays">,
  nowMs: number,
  timeZone: string,
): { from: number; to: number } {
  const { minStart, lastDate } = resolveRules({ durationMin: 1, ...rules, nowMs, timeZone });
  const firstWhere = (beyond: (slot: Slot) => boolean) => {
    let low = 0;
    let high = slots.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const slot = slots[mid];
      if (slot && beyond(slot)) high = mid;
      else low = mid + 1;
    }
    return low;
  };
  const from = firstWhere((s) => s.start >= minStart);
  const to = lastDate === null ? slots.length : firstWhere((s) => s.startLocal.slice(0, 10) > lastDate);
  return { from, to: Math.max(from, to) };
}

/** Why a start is not bookable for a provider, in the order the rules apply (docs/availability.md#why-no-slot). */
export const reasonCodes = [
  "IN_PAST",
  "MIN_NOTICE",
  "BEYOND_HORIZON",
  "PROVIDER_NOT_APPROVED",
  "CLINIC_HOURS",
  "PROVIDER_HOURS",
  "OFF_GRID",
  "CLINIC_CLOSURE",
  "PROVIDER_CLOSURE",
  "BOOKED",
  "BUFFER",
  "DAILY_LIMIT",
  "RESOURCE_UNAVAILABLE",
  "EXTERNAL_BUSY",
  "CALENDAR_STALE",
] as const;
export type ReasonCode = (typeof reasonCodes)[number];

/** One rule that removes a start, with what it refers to. */
export interface Reason {
  code: ReasonCode;
  /** The closure or booking that removes it (as given: a closure keeps its other properties). */
  interval?: Interval;
  /** The booking that overlaps it (BOOKED, BUFFER); absent for time taken in another clinic. */
  bookingId?: string;
  /** BOOKED: the provider's time is taken in another of their clinics. */
  elsewhere?: boolean;
  /** RESOURCE_UNAVAILABLE: the kind of which no resource is free. */
  kind?: string;
  /** CLINIC_HOURS, PROVIDER_HOURS: that owner's windows of the date, in minutes of day. */
  windows?: Interval[];
  /** OFF_GRID: the grid starts before and after it in the window that holds it. */
  nearest?: { before: number; after: number };
  /** DAILY_LIMIT: the provider's limit and the appointments they have that local date. */
  limit?: { max: number; count: number };
}

export interface StartExplanation {
  start: number;
  end: number;
  /** The start's local date in the clinic's zone. */
  date: string;
  providers: { providerId: string; reasons: Reason[] }[];
}

const overlapping = <T extends Interval>(list: readonly T[], slot: Interval): T[] =>
  list.filter((i) => i.start < slot.end && slot.start < i.end);
const containedIn = (windows: readonly Interval[], slot: Interval) =>
  windows.find((w) => w.start <= slot.start && slot.end <= w.end);

/**
 * Every rule that removes the slot starting at `startMs` for each provider of the query (approved
 * or not), evaluated on the same windows, grid and busy sets as `computeSlots`: a provider's
 * reasons are empty exactly when `computeSlots` over the start's date offers that start to them.
 */
export function explainStart(q: SlotQuery, startMs: number): StartExplanation {
  const rules = resolveRules(q);
  const slot = { start: startMs, end: startMs + rules.durationMs };
  const date = localDateOf(startMs, q.timeZone);
  const day = zonedDay(date, q.timeZone);
  const toInstants = (minutes: readonly Interval[]) =>
    minutes.map((w) => ({ start: dayInstant(day, w.start), end: dayInstant(day, w.end) }));
  const clinic = weeklyWindows(q.clinicHours);
  const clinicOverride = overridesByDate(q.clinicOverrides).get(date);
  const clinicMinutes = clinicOverride ?? clinic[day.weekday] ?? [];
  const clinicWindows = toInstants(clinicMinutes);
  const clinicClosures = overlapping(q.clinicClosures, slot);
  const general: Reason[] = [];
  if (startMs <= q.nowMs) general.push({ code: "IN_PAST" });
  if ((q.noticeMin ?? 0) > 0 && startMs < q.nowMs + (q.noticeMin ?? 0) * MINUTE) general.push({ code: "MIN_NOTICE" });
  if (rules.lastDate !== null && date > rules.lastDate) general.push({ code: "BEYOND_HORIZON" });
  const resourceReasonsFor = (providerId: string): Reason[] =>
    freeResourcesAt(q, slot.start, slot.end, providerId).missing.map((kind) => ({
      code: "RESOURCE_UNAVAILABLE",
      kind,
    }));
  const providers = [...q.providers].sort((a, b) => compareIds(a.providerId, b.providerId));
  const full = fullDates(q);
  const load = full.size > 0 ? (q.dayLoad ?? localDayLoad(q.providers, q.timeZone)) : undefined;
  return {
    start: slot.start,
    end: slot.end,
    date,
    providers: providers.map((provider) => {
      const plan = planOf(provider, clinic, [], rules);
      const reasons: Reason[] = [...general];
      if (provider.approved === false) reasons.push({ code: "PROVIDER_NOT_APPROVED" });
      const ownOverride = plan.overrides.get(date);
      const providerMinutes = ownOverride ?? plan.ownWeekly[day.weekday] ?? [];
      if (!containedIn(clinicWindows, slot)) reasons.push({ code: "CLINIC_HOURS", windows: clinicMinutes });
      if (!containedIn(toInstants(providerMinutes), slot))
        reasons.push({ code: "PROVIDER_HOURS", windows: providerMinutes });
      const effective = toInstants(windowsOn(plan, date, day.weekday, clinicOverride, clinic)).filter(
        (w) => w.start <= slot.start && slot.end <= w.end,
      );
      const [holding] = effective;
      if (holding && !effective.some((w) => (slot.start - w.start) % rules.stepMs === 0)) {
        const before = holding.start + Math.floor((slot.start - holding.start) / rules.stepMs) * rules.stepMs;
        reasons.push({ code: "OFF_GRID", nearest: { before, after: before + rules.stepMs } });
      }
      for (const interval of clinicClosures) reasons.push({ code: "CLINIC_CLOSURE", interval });
      for (const interval of overlapping(provider.closures ?? [], slot))
        reasons.push({ code: "PROVIDER_CLOSURE", interval });
      // A group session of this very slot with a seat left takes the booking (§14): its seats are no reason.
      const open = [...sessionsOf(provider.bookings ?? [], rules)].find(
        ([start, s]) => start === slot.start && s.end === slot.end && s.taken < rules.capacity,
      );
      const seats = new Set(open ? open[1].ids : []);
      const bookings = [...(provider.bookings ?? [])].filter((b) => !seats.has(b.id)).sort((a, b) => a.start - b.start);
      // The provider's own calendar (§18): never the event's details, which the service does not keep.
      const external = (code: "EXTERNAL_BUSY" | "CALENDAR_STALE") =>
        bookings.some(
          (b) =>
            b.external !== undefined && (b.external === "stale") === (code === "CALENDAR_STALE") && overlapsBlocked(b),
        );
      const overlapsBlocked = (b: Booking) => {
        const blocked = blockedBy(b, rules);
        return blocked.start < slot.end && slot.start < blocked.end;
      };
      if (external("CALENDAR_STALE")) reasons.push({ code: "CALENDAR_STALE" });
      if (external("EXTERNAL_BUSY")) reasons.push({ code: "EXTERNAL_BUSY" });
      for (const booking of bookings) {
        if (booking.external) continue;
        if (booking.start < slot.end && slot.start < booking.end)
          reasons.push(
            booking.elsewhere
              ? { code: "BOOKED", interval: { start: booking.start, end: booking.end }, elsewhere: true }
              : { code: "BOOKED", interval: { start: booking.start, end: booking.end }, bookingId: booking.id },
          );
      }
      for (const booking of bookings) {
        if (booking.external) continue;
        const direct = booking.start < slot.end && slot.start < booking.end;
        const blocked = blockedBy(booking, rules);
        if (!direct && blocked.start < slot.end && slot.start < blocked.end)
          reasons.push(
            booking.elsewhere
              ? { code: "BUFFER", interval: { start: booking.start, end: booking.end }, elsewhere: true }
              : { code: "BUFFER", interval: { start: booking.start, end: booking.end }, bookingId: booking.id },
          );
      }
      const max = provider.maxDailyAppointments;
      if (max != null && full.get(provider.providerId)?.has(date) === true)
        reasons.push({
          code: "DAILY_LIMIT",
          limit: { max, count: load?.get(dayLoadKey(provider.providerId, date)) ?? max },
        });
      reasons.push(...resourceReasonsFor(provider.providerId));
      return { providerId: provider.providerId, reasons };
    }),
  };
}
