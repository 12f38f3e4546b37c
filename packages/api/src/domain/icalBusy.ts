import ICAL from "ical.js";
import { type Interval, normalize } from "./intervals.ts";
import { addDays, canonicalTimeZone, daysBetween, localDateOf, wallClockToInstant } from "./timezone.ts";

/**
 * Busy time from an iCalendar document (RFC 5545), as contract §18 "Busy time" reads it.
 *
 * ical.js parses the text and expands the recurrences (RRULE and RDATE through `Event.iterator`,
 * RECURRENCE-ID overrides through `Event.relateException`); this module decides what is busy, puts
 * every time in its zone and measures every instance. Where ical.js does not do what §18 wants:
 *
 * - Zones. ical.js knows only the document's VTIMEZONEs; a TZID it cannot find stays "floating"
 *   and is compared as if it were UTC, so an EXDATE or UNTIL written in UTC misses the instances
 *   of a `TZID=Europe/Berlin` series that has no VTIMEZONE. Before ical.js compares anything, every
 *   date-time gets its zone (`placeTimes`): an IANA TZID an `IanaZone` that answers through
 *   timezone.ts (Temporal, "compatible": a time in a spring-forward gap moves forward by the gap,
 *   an ambiguous one takes the earlier instant), a floating time or an unknown TZID the clinic's
 *   zone, a TZID that is not IANA the document's VTIMEZONE. ical.js then still expands in the
 *   event's wall clock (a weekly 09:00 stays 09:00 across DST) but compares true instants.
 * - Lengths. ical.js adds a duration to the wall clock. RFC 5545 §3.8.5.3 gives every instance
 *   DTEND's exact duration, or DURATION's nominal one (days on the wall clock, then exact time), and
 *   §18 reads all-day dates as whole days of the clinic's zone; ends are computed here (`Extent`).
 * - EXDATE, RDATE periods, and DTSTART in a series of RDATEs alone: see `prepareRecurrence`.
 */
/** A busy stretch, epoch milliseconds, half-open [start, end). */
export interface BusyInterval {
  start: number;
  end: number;
}

/** What to read from a calendar, and the limits that protect the reader. */
export interface BusyOptions {
  /** Only busy time overlapping [fromMs, toMs) is returned, clipped to it. */
  fromMs: number;
  toMs: number;
  /** The clinic's IANA zone: floating times and all-day dates are read in it. */
  timeZone: string;
  /** Events whose UID matches are not busy (the service's own written-back appointments). */
  ignoreUid?: ((uid: string) => boolean) | undefined;
  /** Most components (VEVENT + VFREEBUSY) read; more throws. Default 20,000. */
  maxEvents?: number | undefined;
  /** Most busy instances in the window, all events together; more throws. Default 100,000. */
  maxOccurrences?: number | undefined;
}

/**
 * The text cannot be read as busy time: not iCalendar, over a limit, or a value ical.js cannot
 * read. The message is short and never quotes the calendar (no titles, no locations).
 */
export class CalendarDataError extends Error {
  override readonly name = "CalendarDataError";
}

const SECOND = 1000;
const DAY = 86_400_000;
const defaultMaxEvents = 20_000;
const defaultMaxOccurrences = 100_000;
/**
 * Expansion steps (instances visited before the window or in it) allowed per allowed occurrence.
 * A step of ical.js costs ~15 µs, so this bounds what a feed of old sub-daily rules can cost.
 */
const stepsPerOccurrence = 2;
/** The properties whose date-times `placeTimes` puts in their zone. */
const datedProperties = ["dtstart", "dtend", "recurrence-id", "rdate", "exdate", "freebusy"];

/**
 * The busy intervals of an iCalendar document within [fromMs, toMs): sorted by start, overlapping
 * and adjacent ones merged. Throws `CalendarDataError` for text that is not iCalendar or goes over
 * a limit, and RangeError for an unknown `timeZone` or an infinite window (a caller's mistake,
 * not the calendar's).
 */
export function busyFromICalendar(text: string, options: BusyOptions): BusyInterval[] {
  const clinicZone = canonicalTimeZone(options.timeZone);
  if (clinicZone === undefined) throw new RangeError(`unknown time zone ${JSON.stringify(options.timeZone)}`);
  if (!Number.isFinite(options.fromMs) || !Number.isFinite(options.toMs))
    throw new RangeError("the window must be finite");
  const calendars = parseCalendars(text);
  const maxEvents = options.maxEvents ?? defaultMaxEvents;
  let events = 0;
  for (const calendar of calendars)
    events += calendar.getAllSubcomponents("vevent").length + calendar.getAllSubcomponents("vfreebusy").length;
  if (events > maxEvents) throw new CalendarDataError(`more than ${formatCount(maxEvents)} events`);
  if (!(options.toMs > options.fromMs)) return [];
  const reader = new BusyReader(clinicZone, options);
  try {
    for (const calendar of calendars) reader.read(calendar);
  } catch (error) {
    if (error instanceof CalendarDataError) throw error;
    // ical.js reads values lazily and reports a malformed one ("2026--T::", an impossible rule) as
    // a plain Error that quotes the data: answer a message without calendar content instead.
    throw new CalendarDataError("invalid calendar data");
  }
  return normalize(reader.busy);
}

/** The VCALENDAR components of the text; throws "not iCalendar" when there is none. */
function parseCalendars(text: string): ICAL.Component[] {
  let parsed: unknown;
  try {
    // ical.js fails on a byte-order mark, which some servers send.
    parsed = ICAL.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    throw new CalendarDataError("not iCalendar");
  }
  // One root component parses to its jCal array ["vcalendar", props, components], several to a list.
  const roots: unknown[] = Array.isArray(parsed) && typeof parsed[0] !== "string" ? parsed : [parsed];
  const calendars = roots.filter(isCalendarJCal).map((root) => new ICAL.Component(root));
  if (calendars.length === 0) throw new CalendarDataError("not iCalendar");
  return calendars;
}

function isCalendarJCal(value: unknown): value is unknown[] {
  return Array.isArray(value) && value[0] === "vcalendar";
}

/**
 * An IANA zone for ical.js whose offsets come from timezone.ts (Temporal). ical.js asks a zone
 * only for the UTC offset at a wall-clock time (`Time.toUnixTime`, `convertToZone`), so this one
 * method is all it takes for ical.js's comparisons to be Temporal's instants.
 */
class IanaZone extends ICAL.Timezone {
  constructor(readonly id: string) {
    super({ tzid: id });
  }

  /** Seconds east of UTC at the wall-clock time `time` of this zone. */
  override utcOffset(time: ICAL.Time): number {
    const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
    const instant = wallClockToInstant(dateOf(time), time.hour * 60 + time.minute, this.id) + time.second * SECOND;
    return (wall - instant) / SECOND;
  }
}

/**
 * How long each instance lasts: `days` moved on the wall clock (whole days of the clinic's zone
 * for an all-day instance), then `ms` of exact time. DTEND gives an exact length, DURATION a
 * nominal one (RFC 5545 §3.8.5.3): a one-day DURATION across a DST change is 23 or 25 hours.
 */
interface Extent {
  days: number;
  ms: number;
}

/** One read of one document: the window, the limits, the zones met, and the busy time found. */
class BusyReader {
  readonly busy: Interval[] = [];
  private readonly clinic: IanaZone;
  private readonly zones = new Map<string, IanaZone | null>();
  private readonly fromMs: number;
  private readonly toMs: number;
  private readonly ignoreUid: ((uid: string) => boolean) | undefined;
  private readonly maxOccurrences: number;
  private readonly maxSteps: number;
  private occurrences = 0;
  private steps = 0;

  constructor(clinicZone: string, options: BusyOptions) {
    this.clinic = new IanaZone(clinicZone);
    this.fromMs = options.fromMs;
    this.toMs = options.toMs;
    this.ignoreUid = options.ignoreUid;
    this.maxOccurrences = options.maxOccurrences ?? defaultMaxOccurrences;
    this.maxSteps = stepsPerOccurrence * this.maxOccurrences;
  }

  read(calendar: ICAL.Component): void {
    for (const freeBusy of calendar.getAllSubcomponents("vfreebusy")) this.readFreeBusy(freeBusy);
    // A series is its master VEVENT and its overrides (same UID, with a RECURRENCE-ID); an event
    // without UID is a series of its own.
    const series = new Map<string, { masters: ICAL.Component[]; overrides: ICAL.Component[] }>();
    for (const event of calendar.getAllSubcomponents("vevent")) {
      const uid = event.getFirstPropertyValue("uid");
      const named = typeof uid === "string" && uid !== "";
      if (named && this.ignoreUid?.(uid) === true) continue;
      const key = named ? `uid:${uid}` : `event:${series.size}`;
      let group = series.get(key);
      if (!group) {
        group = { masters: [], overrides: [] };
        series.set(key, group);
      }
      (event.hasProperty("recurrence-id") ? group.overrides : group.masters).push(event);
    }
    for (const { masters, overrides } of series.values()) this.readSeries(masters, overrides);
  }

  /** FREEBUSY periods of any FBTYPE but FREE (BUSY when absent); start/end or start/duration. */
  private readFreeBusy(component: ICAL.Component): void {
    this.placeTimes(component);
    for (const property of component.getAllProperties("freebusy")) {
      const type = property.getFirstParameter("fbtype");
      if (typeof type === "string" && type.trim().toUpperCase() === "FREE") continue;
      const values: unknown[] = property.getValues();
      for (const period of values) {
        if (!(period instanceof ICAL.Period)) continue;
        this.step();
        this.add(this.instance(period.start, this.periodExtent(period)));
      }
    }
  }

  private readSeries(masters: ICAL.Component[], overrides: ICAL.Component[]): void {
    for (const component of masters) this.placeTimes(component);
    for (const component of overrides) this.placeTimes(component);
    // A cancelled master cancels the whole series (STATUS is the event's overall status,
    // RFC 5545 §3.8.1.11), whatever its overrides still say.
    if (masters.some((master) => textOf(master, "status") === "CANCELLED")) return;
    const replaced = new Set<ICAL.Component>();
    for (const master of masters) this.expand(master, overrides, replaced);
    // An override that replaced no instance the expansion visited (one moved into the window from
    // beyond its end or from before a skipped stretch, an orphan whose master the feed left out, or
    // one naming an instance the series does not have) is still an event: read on its own.
    for (const override of overrides) if (!replaced.has(override)) this.readSingle(override);
  }

  /** The instances of a master VEVENT in the window; those an override replaces go through it. */
  private expand(master: ICAL.Component, overrides: readonly ICAL.Component[], replaced: Set<ICAL.Component>): void {
    const start = timeOf(master, "dtstart");
    if (!start) return; // no start, no time to block
    const busy = isBusy(master);
    if (!busy && overrides.length === 0) return;
    if (overrides.length === 0 && !master.hasProperty("rrule") && !master.hasProperty("rdate")) {
      this.readSingle(master); // a single event: nothing to expand
      return;
    }
    const extent = this.extentOf(master, start);
    const { periods, isExcluded } = this.prepareRecurrence(master, start);
    // Exceptions given explicitly: with none, ical.js relates every RECURRENCE-ID of the calendar,
    // whatever its UID.
    const event = new ICAL.Event(master, { exceptions: [] });
    for (const override of overrides) {
      const property = override.getFirstProperty("recurrence-id");
      const id = property?.getFirstValue();
      if (!property || !(id instanceof ICAL.Time)) continue;
      // RANGE=THISANDFUTURE is read as this instance only: ical.js would shift the later instances
      // on the wall clock with the override's zone, which this module does not try to reproduce.
      property.removeParameter("range");
      // ical.js finds an override by its RECURRENCE-ID text in the instance's zone or in UTC: the
      // UTC form matches whichever zone the override was written in.
      if (!id.isDate) property.setValue(id.convertToZone(ICAL.Timezone.utcTimezone));
      event.relateException(override);
    }
    // ical.js yields instances in order of their start; a day past the window covers the few
    // sub-daily instances a spring-forward gap moves ahead of the next ones.
    const stopMs = this.toMs + DAY;
    const expansion = event.iterator(this.fastForward(master, start, extent));
    for (;;) {
      // Typed as always a time; ical.js answers undefined once the series is over.
      const occurrence: unknown = expansion.next();
      if (!(occurrence instanceof ICAL.Time)) break;
      this.step();
      const startMs = this.instantOf(occurrence);
      if (startMs >= stopMs) break;
      if (isExcluded(occurrence, startMs)) continue;
      if (overrides.length > 0) {
        // ical.js's typings leave `item` unresolved (an import without its .js extension).
        const item: unknown = event.getOccurrenceDetails(occurrence).item;
        if (item instanceof ICAL.Event && item !== event) {
          replaced.add(item.component);
          this.readSingle(item.component);
          continue;
        }
      }
      if (busy) this.add(this.instance(occurrence, periods.get(startMs) ?? extent));
    }
  }

  /** A VEVENT alone, with its own times: an override, or one whose series could not place it. */
  private readSingle(component: ICAL.Component): void {
    const start = timeOf(component, "dtstart");
    if (start && isBusy(component)) this.add(this.instance(start, this.extentOf(component, start)));
  }

  /**
   * Readies a master's recurrence for ical.js: UNTIL in a form ical.js compares right with the
   * instances, RDATE periods as their starts, EXDATE taken out. Returns the periods' extents, by
   * start instant, and the test that applies the EXDATEs.
   */
  private prepareRecurrence(
    master: ICAL.Component,
    start: ICAL.Time,
  ): { periods: Map<number, Extent>; isExcluded: (occurrence: ICAL.Time, startMs: number) => boolean } {
    for (const property of master.getAllProperties("rrule")) {
      const rule = property.getFirstValue();
      if (rule instanceof ICAL.Recur && rule.until) rule.until = this.untilFor(rule.until, start);
    }
    // ical.js would yield an RDATE period as an instance that is not a time; an RDATE period is an
    // instance of its own length (RFC 5545 §3.8.5.2), so ical.js gets its start and this its extent.
    const periods = new Map<number, Extent>();
    for (const property of master.getAllProperties("rdate")) {
      const values: unknown[] = property.getValues();
      if (!values.some((value) => value instanceof ICAL.Period)) continue;
      property.setValues(
        values.map((value) => {
          if (!(value instanceof ICAL.Period)) return value;
          periods.set(this.instantOf(value.start), this.periodExtent(value));
          return value.start;
        }),
      );
    }
    // DTSTART is the first instance of any recurrence set (RFC 5545 §3.8.5.3); ical.js yields it
    // through the RRULE's iterator, so a series of RDATEs alone would lose it.
    if (master.hasProperty("rdate") && !master.hasProperty("rrule"))
      master.addPropertyWithValue("rdate", start.clone());
    // ical.js moves its EXDATE cursor at most once per instance, so an EXDATE that matches no
    // instance (a duplicate, or one left from an older rule) makes it keep the instance the next
    // EXDATE names. EXDATEs are matched here instead: a date-time by instant, a date by the
    // instance's date (ical.js's reading of a DATE EXDATE on a timed series).
    const instants = new Set<number>();
    const dates = new Set<string>();
    for (const property of master.getAllProperties("exdate")) {
      const values: unknown[] = property.getValues();
      for (const value of values) {
        if (!(value instanceof ICAL.Time)) continue;
        if (value.isDate || start.isDate) dates.add(dateOf(value));
        else instants.add(this.instantOf(value));
      }
    }
    master.removeAllProperties("exdate");
    const isExcluded = (occurrence: ICAL.Time, startMs: number) =>
      dates.has(dateOf(occurrence)) || (!occurrence.isDate && instants.has(startMs));
    return { periods, isExcluded };
  }

  /** UNTIL as ical.js must compare it with the instances of a series starting at `start`. */
  private untilFor(until: ICAL.Time, start: ICAL.Time): ICAL.Time {
    if (start.isDate) {
      if (until.isDate) return until;
      // All-day instances are dates: the UNTIL instant's date in the clinic's zone.
      const [year, month, day] = localDateOf(this.instantOf(until), this.clinic.id).split("-").map(Number);
      return new ICAL.Time({ year, month, day, isDate: true }, ICAL.Timezone.localTimezone);
    }
    // A date UNTIL on a timed series (invalid, but written) keeps that whole day.
    if (until.isDate)
      return new ICAL.Time(
        { year: until.year, month: until.month, day: until.day, hour: 23, minute: 59, second: 59, isDate: false },
        start.zone,
      );
    // UTC as RFC 5545 §3.3.10 wants it for a zoned DTSTART; otherwise DTSTART's own wall clock.
    if (until.zone !== ICAL.Timezone.utcTimezone) until.zone = start.zone;
    return until;
  }

  /**
   * A later DTSTART for ical.js when a DAILY or WEEKLY series without COUNT began long before the
   * window, so that reading this year's instances of a daily event from 2005 does not step through
   * twenty years of them. The start moves by whole periods of the rule (INTERVAL days or weeks) on
   * the wall clock, so the rule yields the same instances after it. Only the first period after
   * the moved start may differ (the moved start counts as an instance whatever BYDAY says, a first
   * week is cut short): that period, plus an instance's length, stays before the window. RDATE and
   * EXDATE are absolute times; overrides of skipped instances are read on their own.
   */
  private fastForward(master: ICAL.Component, start: ICAL.Time, extent: Extent): ICAL.Time | undefined {
    const rules = master.getAllProperties("rrule");
    const rule = rules.length === 1 ? rules[0]?.getFirstValue() : undefined;
    if (!(rule instanceof ICAL.Recur) || typeof rule.count === "number") return undefined;
    const periodDays = rule.interval * (rule.freq === "DAILY" ? 1 : rule.freq === "WEEKLY" ? 7 : 0);
    if (!(periodDays >= 1)) return undefined;
    // Any zone's wall clock is within a day of UTC's date.
    const windowDate = new Date(this.fromMs - DAY).toISOString().slice(0, 10);
    const spanDays = extent.days + Math.ceil(extent.ms / DAY) + 1;
    const periods = Math.floor((daysBetween(dateOf(start), windowDate) - spanDays - periodDays) / periodDays);
    if (periods < 1) return undefined;
    const moved = start.clone();
    moved.adjust(periods * periodDays, 0, 0, 0);
    return moved;
  }

  /** The extent of a component's instances: from DTEND, else DURATION, else none (a day if all-day). */
  private extentOf(component: ICAL.Component, start: ICAL.Time): Extent {
    const end = timeOf(component, "dtend");
    if (end) {
      if (start.isDate) return { days: daysBetween(dateOf(start), dateOf(end)), ms: 0 };
      return { days: 0, ms: this.instantOf(end) - this.instantOf(start) };
    }
    const duration = component.getFirstPropertyValue("duration");
    if (duration instanceof ICAL.Duration) {
      const nominal = durationExtent(duration);
      return start.isDate ? { days: nominal.days + Math.ceil(nominal.ms / DAY), ms: 0 } : nominal;
    }
    return { days: start.isDate ? 1 : 0, ms: 0 };
  }

  /** A period's extent: to its end (exact), or its duration (nominal). */
  private periodExtent(period: ICAL.Period): Extent {
    // Both typed as always present; ical.js sets exactly one of them.
    const { end, duration }: { end: unknown; duration: unknown } = period;
    if (end instanceof ICAL.Time) return { days: 0, ms: this.instantOf(end) - this.instantOf(period.start) };
    return duration instanceof ICAL.Duration ? durationExtent(duration) : { days: 0, ms: 0 };
  }

  /** The interval of one instance starting at `start`. */
  private instance(start: ICAL.Time, extent: Extent): Interval {
    if (start.isDate) {
      // The clinic's local days, from the first date's start to the end date's start: DST-correct
      // (a 23-hour day is 23 hours). An all-day instance blocks at least its own day.
      const first = dateOf(start);
      return { start: this.midnight(first), end: this.midnight(addDays(first, Math.max(1, extent.days))) };
    }
    const startMs = this.instantOf(start);
    if (extent.days === 0) return { start: startMs, end: startMs + extent.ms };
    const later = start.clone();
    later.adjust(extent.days, 0, 0, 0);
    return { start: startMs, end: this.instantOf(later) + extent.ms };
  }

  /** Adds the part of an interval in the window, counting it against the occurrence limit. */
  private add(interval: Interval): void {
    const start = Math.max(interval.start, this.fromMs);
    const end = Math.min(interval.end, this.toMs);
    if (!(end > start)) return;
    if (++this.occurrences > this.maxOccurrences)
      throw new CalendarDataError(`more than ${formatCount(this.maxOccurrences)} occurrences`);
    this.busy.push({ start, end });
  }

  /** Counts one expansion step against the work limit. */
  private step(): void {
    if (++this.steps > this.maxSteps) throw new CalendarDataError("recurrences too costly to expand");
  }

  /** Gives every date-time of a component the zone it is meant in (see the module comment). */
  private placeTimes(component: ICAL.Component): void {
    for (const name of datedProperties) {
      for (const property of component.getAllProperties(name)) {
        const values: unknown[] = property.getValues();
        for (const value of values) {
          if (value instanceof ICAL.Time) this.place(value, property);
          else if (value instanceof ICAL.Period) {
            this.place(value.start, property);
            const end: unknown = value.end;
            if (end instanceof ICAL.Time) this.place(end, property);
          }
        }
      }
    }
  }

  private place(time: ICAL.Time, property: ICAL.Property): void {
    // A date is a day of the clinic's zone (see `instance`); "Z" is UTC. Nothing has asked these
    // times for an instant yet, so ical.js has no cached one to go stale.
    if (time.isDate || time.zone === ICAL.Timezone.utcTimezone) return;
    const tzid: unknown = property.getFirstParameter("tzid");
    if (typeof tzid === "string" && tzid !== "") {
      const zone = this.zoneNamed(tzid);
      if (zone) {
        time.zone = zone;
        return;
      }
      // Not IANA: ical.js has placed it in the document's VTIMEZONE, or found none and left it floating.
      if (time.zone !== ICAL.Timezone.localTimezone) return;
    }
    time.zone = this.clinic;
  }

  /** The IANA zone a TZID names, if it names one. */
  private zoneNamed(tzid: string): IanaZone | undefined {
    let zone = this.zones.get(tzid);
    if (zone === undefined) {
      const id = canonicalTimeZone(tzid);
      zone = id === undefined ? null : id === this.clinic.id ? this.clinic : new IanaZone(id);
      this.zones.set(tzid, zone);
    }
    return zone ?? undefined;
  }

  /** Epoch ms of a placed time; a date is its start in the clinic's zone. */
  private instantOf(time: ICAL.Time): number {
    return time.isDate ? this.midnight(dateOf(time)) : time.toUnixTime() * SECOND;
  }

  private midnight(date: string): number {
    return wallClockToInstant(date, 0, this.clinic.id);
  }
}

function timeOf(component: ICAL.Component, name: string): ICAL.Time | undefined {
  const value = component.getFirstPropertyValue(name);
  return value instanceof ICAL.Time ? value : undefined;
}

function textOf(component: ICAL.Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  return typeof value === "string" ? value.trim().toUpperCase() : "";
}

/** Busy unless TRANSP:TRANSPARENT or STATUS:CANCELLED. */
function isBusy(component: ICAL.Component): boolean {
  return textOf(component, "transp") !== "TRANSPARENT" && textOf(component, "status") !== "CANCELLED";
}

/** A DURATION's nominal days and exact rest; a negative one lasts nothing. */
function durationExtent(duration: ICAL.Duration): Extent {
  if (duration.isNegative) return { days: 0, ms: 0 };
  return {
    days: duration.weeks * 7 + duration.days,
    ms: ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * SECOND,
  };
}

/** The date YYYY-MM-DD of a time's wall clock. */
function dateOf(time: ICAL.Time): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`;
}

function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}
