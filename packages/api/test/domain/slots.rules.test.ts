// The booking rules of the slot engine (slot step, buffers, notice, horizon, date overrides) and
// the explanation of a start, against minute-by-minute and Temporal models.
import fc from "fast-check";
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import { type Interval, normalize } from "../../src/domain/intervals.ts";
import {
  type Booking,
  type DateOverride,
  type ProviderSchedule,
  type SlotQuery,
  type WeeklyPeriod,
  computeSlots,
  explainStart,
  offeredAt,
} from "../../src/domain/slots.ts";
import { addDays, isoWeekday } from "../../src/domain/timezone.ts";

const MINUTE = 60_000;
const H = (h: number, m = 0) => h * 60 + m;
const monday = "2027-03-15";
const at = (text: string) => Date.parse(text);
const weekdays = (opens: number, closes: number, days = [1, 2, 3, 4, 5]): WeeklyPeriod[] =>
  days.map((weekday) => ({ weekday, opensMin: opens, closesMin: closes }));
const base = (overrides: Partial<SlotQuery>): SlotQuery => ({
  timeZone: "UTC",
  fromDate: monday,
  toDate: monday,
  durationMin: 30,
  nowMs: 0,
  clinicHours: weekdays(H(9), H(17)),
  clinicClosures: [],
  providers: [{ providerId: "p1", hours: weekdays(H(9), H(17)) }],
  ...overrides,
});
const locals = (q: SlotQuery) => computeSlots(q).map((s) => s.startLocal.slice(11));
const booking = (id: string, start: string, end: string, before = 0, after = 0): Booking => ({
  id,
  start: at(start),
  end: at(end),
  bufferBeforeMin: before,
  bufferAfterMin: after,
});
const reasonsOf = (q: SlotQuery, start: string, provider = "p1") =>
  explainStart(q, at(start))
    .providers.find((p) => p.providerId === provider)
    ?.reasons.map((r) => r.code);

describe("slot step", () => {
  it("starts slots every step minutes from each window's start; each slot still fits", () => {
    const q = base({
      durationMin: 60,
      stepMin: 15,
      clinicHours: weekdays(H(9), H(11)),
      providers: [{ providerId: "p1", hours: weekdays(H(9), H(11)) }],
    });
    expect(locals(q)).toEqual(["09:00", "09:15", "09:30", "09:45", "10:00"]);
    expect(reasonsOf(q, "2027-03-15T09:20:00Z")).toEqual(["OFF_GRID"]);
    expect(reasonsOf(q, "2027-03-15T10:15:00Z")).toEqual(["CLINIC_HOURS", "PROVIDER_HOURS"]);
  });
});

describe("buffers", () => {
  it("keeps a slot's buffered range clear of bookings' buffered ranges, and lets buffers reach outside the hours", () => {
    // The service needs 10 minutes before and 5 after; the booking 11:00-11:30 has 15 after.
    const q = base({
      durationMin: 30,
      bufferBeforeMin: 10,
      bufferAfterMin: 5,
      providers: [
        {
          providerId: "p1",
          hours: weekdays(H(9), H(17)),
          bookings: [booking("b1", "2027-03-15T11:00:00Z", "2027-03-15T11:30:00Z", 0, 15)],
        },
      ],
    });
    const offered = locals(q);
    // 10:30 ends 11:00 + 5 after = 11:05 > 11:00: out. 11:30 starts - 10 = 11:20 < 11:45: out. 12:00 - 10 = 11:50 ≥ 11:45: in.
    expect(offered).toContain("10:00");
    expect(offered).not.toContain("10:30");
    expect(offered).not.toContain("11:00");
    expect(offered).not.toContain("11:30");
    expect(offered).toContain("12:00");
    // 09:00 is offered though its buffer starts at 08:50, before opening.
    expect(offered[0]).toBe("09:00");
    expect(reasonsOf(q, "2027-03-15T10:30:00Z")).toEqual(["BUFFER"]);
    expect(reasonsOf(q, "2027-03-15T11:00:00Z")).toEqual(["BOOKED"]);
    expect(explainStart(q, at("2027-03-15T11:00:00Z")).providers[0]?.reasons[0]?.bookingId).toBe("b1");
  });
});

describe("notice and horizon", () => {
  it("offers no slot before now + notice, nor on a date after today + horizon", () => {
    const now = at("2027-03-15T08:00:00Z");
    const q = base({ nowMs: now, toDate: "2027-03-19", noticeMin: 120, horizonDays: 2 });
    const slots = computeSlots(q);
    expect(slots[0]?.startLocal).toBe("2027-03-15T10:00");
    expect(slots.at(-1)?.startLocal).toBe("2027-03-17T16:30");
    expect(reasonsOf(q, "2027-03-15T09:30:00Z")).toEqual(["MIN_NOTICE"]);
    expect(reasonsOf(q, "2027-03-15T07:30:00Z")).toEqual(["IN_PAST", "MIN_NOTICE", "CLINIC_HOURS", "PROVIDER_HOURS"]);
    expect(reasonsOf(q, "2027-03-18T09:00:00Z")).toEqual(["BEYOND_HORIZON"]);
  });
});

describe("date overrides", () => {
  it("opens the clinic on a Saturday with a clinic override, for providers working Saturdays", () => {
    const saturday = "2027-03-20";
    const q = base({
      fromDate: saturday,
      toDate: "2027-03-21",
      clinicOverrides: [{ date: saturday, periods: [{ opensMin: H(9), closesMin: H(11) }] }],
      providers: [
        { providerId: "p1", hours: weekdays(H(8), H(12), [6]) },
        { providerId: "p2", hours: weekdays(H(9), H(17)) },
      ],
    });
    expect(computeSlots(q).map((s) => [s.startLocal.slice(11), s.providerIds])).toEqual([
      ["09:00", ["p1"]],
      ["09:30", ["p1"]],
      ["10:00", ["p1"]],
      ["10:30", ["p1"]],
    ]);
    expect(reasonsOf(q, "2027-03-20T09:00:00Z", "p2")).toEqual(["PROVIDER_HOURS"]);
  });

  it("closes a day with an empty override and shortens one with periods; each owner's override replaces only its own hours", () => {
    const q = base({
      toDate: "2027-03-17",
      clinicOverrides: [{ date: "2027-03-16", periods: [] }],
      providers: [
        {
          providerId: "p1",
          hours: weekdays(H(9), H(17)),
          overrides: [{ date: "2027-03-17", periods: [{ opensMin: H(13), closesMin: H(18) }] }],
        },
      ],
    });
    const byDate = (date: string) =>
      computeSlots(q)
        .filter((s) => s.startLocal.startsWith(date))
        .map((s) => s.startLocal.slice(11));
    expect(byDate("2027-03-15")).toHaveLength(16);
    expect(byDate("2027-03-16")).toEqual([]);
    // The provider's 13:00-18:00 meets the clinic's weekly 09:00-17:00.
    expect(byDate("2027-03-17")[0]).toBe("13:00");
    expect(byDate("2027-03-17").at(-1)).toBe("16:30");
    expect(reasonsOf(q, "2027-03-16T09:00:00Z")).toEqual(["CLINIC_HOURS"]);
    expect(reasonsOf(q, "2027-03-17T17:00:00Z")).toEqual(["CLINIC_HOURS"]);
    expect(reasonsOf(q, "2027-03-17T10:00:00Z")).toEqual(["PROVIDER_HOURS"]);
  });
});

describe("explanations", () => {
  it("names every rule in order, closures and bookings with what they are, non-approved providers too", () => {
    const q = base({
      clinicClosures: [{ start: at("2027-03-15T09:00:00Z"), end: at("2027-03-15T10:00:00Z") }],
      providers: [
        {
          providerId: "p1",
          hours: weekdays(H(9), H(17)),
          closures: [{ start: at("2027-03-15T09:15:00Z"), end: at("2027-03-15T09:45:00Z") }],
          bookings: [booking("b", "2027-03-15T09:00:00Z", "2027-03-15T09:30:00Z")],
        },
        { providerId: "p2", approved: false, hours: weekdays(H(9), H(17)) },
      ],
    });
    const explanation = explainStart(q, at("2027-03-15T09:00:00Z"));
    expect(explanation.providers.map((p) => [p.providerId, p.reasons.map((r) => r.code)])).toEqual([
      ["p1", ["CLINIC_CLOSURE", "PROVIDER_CLOSURE", "BOOKED"]],
      ["p2", ["PROVIDER_NOT_APPROVED", "CLINIC_CLOSURE"]],
    ]);
    // A non-approved provider never offers slots.
    expect(computeSlots({ ...q, clinicClosures: [] }).every((s) => !s.providerIds.includes("p2"))).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties: a minute-by-minute model with every rule, and explanation ⇔ listing.

const DAYS = 4;
const DAY_START = Date.parse(`${monday}T00:00:00Z`);
const SPAN = DAYS * 1440;
const dates = Array.from({ length: DAYS }, (_, d) => addDays(monday, d));

const periodArb = fc
  .tuple(fc.integer({ min: 1, max: DAYS }), fc.integer({ min: 0, max: 1430 }), fc.integer({ min: 1, max: 600 }))
  .map(([weekday, o, len]): WeeklyPeriod => ({ weekday, opensMin: o, closesMin: Math.min(1440, o + len) }));
const overrideArb = fc
  .tuple(
    fc.integer({ min: 0, max: DAYS - 1 }),
    fc.array(fc.tuple(fc.integer({ min: 0, max: 1430 }), fc.integer({ min: 1, max: 400 })), { maxLength: 2 }),
  )
  .map(([d, periods]): DateOverride => ({
    date: dates[d] ?? monday,
    periods: periods.map(([o, len]) => ({ opensMin: o, closesMin: Math.min(1440, o + len) })),
  }));
const intervalArb = fc
  .tuple(fc.integer({ min: -120, max: SPAN }), fc.integer({ min: 1, max: 240 }))
  .map(([s, len]): Interval => ({ start: DAY_START + s * MINUTE, end: DAY_START + (s + len) * MINUTE }));
const bookingArb = fc
  .tuple(intervalArb, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), fc.uuid())
  .map(([i, before, after, id]): Booking => ({
    id,
    start: i.start,
    end: i.end,
    bufferBeforeMin: before,
    bufferAfterMin: after,
  }));
const uniqueByDate = (overrides: DateOverride[]) => [...new Map(overrides.map((o) => [o.date, o])).values()];

const queryArb = fc
  .record({
    clinic: fc.array(periodArb, { minLength: 1, maxLength: 6 }),
    clinicOverrides: fc.array(overrideArb, { maxLength: 2 }),
    providers: fc.array(
      fc.record({
        hours: fc.array(periodArb, { maxLength: 6 }),
        overrides: fc.array(overrideArb, { maxLength: 2 }),
        closures: fc.array(intervalArb, { maxLength: 3 }),
        bookings: fc.array(bookingArb, { maxLength: 6 }),
        approved: fc.boolean(),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    closures: fc.array(intervalArb, { maxLength: 2 }),
    duration: fc.integer({ min: 5, max: 180 }),
    step: fc.option(fc.integer({ min: 5, max: 120 }), { nil: null }),
    before: fc.integer({ min: 0, max: 45 }),
    after: fc.integer({ min: 0, max: 45 }),
    nowMin: fc.integer({ min: -1, max: SPAN }),
    notice: fc.integer({ min: 0, max: 600 }),
    horizon: fc.option(fc.integer({ min: 0, max: DAYS }), { nil: null }),
  })
  .map((r): SlotQuery => ({
    timeZone: "UTC",
    fromDate: monday,
    toDate: dates[DAYS - 1] ?? monday,
    durationMin: r.duration,
    stepMin: r.step,
    bufferBeforeMin: r.before,
    bufferAfterMin: r.after,
    noticeMin: r.notice,
    horizonDays: r.horizon,
    nowMs: DAY_START + r.nowMin * MINUTE,
    clinicHours: r.clinic,
    clinicOverrides: uniqueByDate(r.clinicOverrides),
    clinicClosures: r.closures,
    providers: r.providers.map((p, k) => ({
      providerId: `p${String(k)}`,
      hours: p.hours,
      overrides: uniqueByDate(p.overrides),
      closures: p.closures,
      bookings: p.bookings,
      approved: p.approved,
    })),
  }));

/** Minute by minute, in UTC: open minutes per date, grid per window, every rule checked literally. */
function minuteModel(q: SlotQuery): Map<number, string[]> {
  const minuteSet = (periods: readonly { opensMin: number; closesMin: number }[]) => {
    const open = new Array<boolean>(1440).fill(false);
    for (const p of periods) for (let m = p.opensMin; m < p.closesMin; m++) open[m] = true;
    return open;
  };
  const openOn = (weekly: readonly WeeklyPeriod[], overrides: readonly DateOverride[] | undefined, d: number) => {
    const override = overrides?.find((o) => o.date === dates[d]);
    return minuteSet(override ? override.periods : weekly.filter((p) => p.weekday === isoWeekday(dates[d] ?? monday)));
  };
  const overlaps = (a: Interval, b: Interval) => a.start < b.end && b.start < a.end;
  const step = q.stepMin ?? q.durationMin;
  const notice = q.noticeMin ?? 0;
  const before = (q.bufferBeforeMin ?? 0) * MINUTE;
  const after = (q.bufferAfterMin ?? 0) * MINUTE;
  const result = new Map<number, string[]>();
  for (const provider of [...q.providers].sort((a, b) => (a.providerId < b.providerId ? -1 : 1))) {
    if (provider.approved === false) continue;
    for (let d = 0; d < DAYS; d++) {
      if (q.horizonDays != null && d > q.horizonDays + Math.floor((q.nowMs - DAY_START) / (1440 * MINUTE))) continue;
      const clinicOpen = openOn(q.clinicHours, q.clinicOverrides, d);
      const providerOpen = openOn(provider.hours, provider.overrides, d);
      const windowOpen = clinicOpen.map((c, m) => c && (providerOpen[m] ?? false));
      for (let m = 0; m < 1440; m++) {
        if (!windowOpen[m] || (m > 0 && windowOpen[m - 1])) continue;
        let end = m;
        while (end < 1440 && windowOpen[end]) end++;
        for (let s = m; s + q.durationMin <= end; s += step) {
          const start = DAY_START + (d * 1440 + s) * MINUTE;
          const slot = { start, end: start + q.durationMin * MINUTE };
          if (start <= q.nowMs || start < q.nowMs + notice * MINUTE) continue;
          if ([...q.clinicClosures, ...(provider.closures ?? [])].some((c) => overlaps(c, slot))) continue;
          const buffered = { start: slot.start - before, end: slot.end + after };
          if (
            (provider.bookings ?? []).some((b) =>
              overlaps(buffered, {
                start: b.start - b.bufferBeforeMin * MINUTE,
                end: b.end + b.bufferAfterMin * MINUTE,
              }),
            )
          )
            continue;
          result.set(start, [...(result.get(start) ?? []), provider.providerId]);
        }
      }
    }
  }
  return new Map([...result].sort((a, b) => a[0] - b[0]));
}

describe("the slot grid with every rule agrees with a minute-by-minute model", () => {
  it("for random hours, overrides, closures, bookings with buffers, steps, notice, horizon and now", () => {
    fc.assert(
      fc.property(queryArb, (q) => {
        const slots = computeSlots(q);
        expect(slots.map((s) => [s.start, s.providerIds])).toEqual([...minuteModel(q)]);
        expect(slots.every((s) => s.end - s.start === q.durationMin * MINUTE)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("a cached answer without time rules, filtered now, is the answer with them", () => {
  it("for random schedules, notice, horizon and now", () => {
    fc.assert(
      fc.property(queryArb, (q) => {
        const timeless = computeSlots({ ...q, nowMs: -Infinity, noticeMin: 0, horizonDays: null });
        expect(offeredAt(timeless, q, q.nowMs, q.timeZone)).toEqual(computeSlots(q));
      }),
      { numRuns: 300 },
    );
  });
});

describe("an explanation says bookable exactly when the start is listed for that provider", () => {
  it("for random schedules and starts on the minute", () => {
    fc.assert(
      fc.property(
        queryArb,
        fc.array(fc.integer({ min: 0, max: SPAN - 1 }), { minLength: 1, maxLength: 25 }),
        (q, startMinutes) => {
          const listed = new Map(computeSlots(q).map((s) => [s.start, new Set(s.providerIds)]));
          for (const minute of startMinutes) {
            const start = DAY_START + minute * MINUTE;
            for (const p of explainStart(q, start).providers) {
              expect([minute, p.providerId, p.reasons.length === 0]).toEqual([
                minute,
                p.providerId,
                listed.get(start)?.has(p.providerId) ?? false,
              ]);
            }
          }
          // Every listed start is explained as bookable for every listed provider.
          for (const [start, providers] of listed) {
            const explained = explainStart(q, start)
              .providers.filter((p) => p.reasons.length === 0)
              .map((p) => p.providerId);
            expect(explained.sort()).toEqual([...providers].sort());
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("on DST days in zones with transitions, with steps and overrides", () => {
    const zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"];
    const transitionDates = ["2027-03-28", "2027-10-31", "2027-03-14", "2027-11-07", "2027-04-04", "2027-10-03"];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...transitionDates),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1430 }), fc.integer({ min: 1, max: 600 })), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.integer({ min: 10, max: 120 }),
        fc.option(fc.integer({ min: 5, max: 90 }), { nil: null }),
        fc.array(fc.integer({ min: -60, max: 1500 }), { minLength: 1, maxLength: 30 }),
        (tz, date, periods, duration, step, offsets) => {
          const weekday = isoWeekday(date);
          const hours = periods.map(([o, len]) => ({ weekday, opensMin: o, closesMin: Math.min(1440, o + len) }));
          const q: SlotQuery = {
            timeZone: tz,
            fromDate: date,
            toDate: date,
            durationMin: duration,
            stepMin: step,
            nowMs: 0,
            clinicHours: [{ weekday, opensMin: 0, closesMin: 1440 }],
            clinicOverrides: [],
            clinicClosures: [],
            providers: [{ providerId: "p", hours } satisfies ProviderSchedule],
          };
          const midnight = Temporal.PlainDate.from(date).toZonedDateTime(tz).epochMilliseconds;
          const listed = new Set(computeSlots(q).map((s) => s.start));
          for (const offset of offsets) {
            const start = midnight + offset * MINUTE;
            const explanation = explainStart(q, start);
            // A start of another local date is explained against that date's hours.
            if (explanation.date !== date) continue;
            expect([offset, explanation.providers[0]?.reasons.length === 0]).toEqual([offset, listed.has(start)]);
          }
          for (const start of listed) expect(explainStart(q, start).providers[0]?.reasons).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("the grid with a step on DST days agrees with a Temporal-based model", () => {
  it("for random zones, hours and steps", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("Europe/Berlin", "America/New_York", "America/Santiago"),
        fc.constantFrom("2027-03-28", "2027-10-31", "2027-03-14", "2027-11-07", "2027-04-04", "2027-09-05"),
        fc.tuple(fc.integer({ min: 0, max: 1200 }), fc.integer({ min: 30, max: 600 })),
        fc.integer({ min: 15, max: 120 }),
        fc.integer({ min: 5, max: 60 }),
        (tz, date, [opens, len], duration, step) => {
          const weekday = isoWeekday(date);
          const closes = Math.min(1440, opens + len);
          const q = base({
            timeZone: tz,
            fromDate: date,
            toDate: date,
            durationMin: duration,
            stepMin: step,
            clinicHours: [{ weekday, opensMin: opens, closesMin: closes }],
            providers: [{ providerId: "p", hours: [{ weekday, opensMin: 0, closesMin: 1440 }] }],
          });
          const toInstant = (minute: number) =>
            Temporal.PlainDate.from(date)
              .toPlainDateTime()
              .add({ minutes: minute })
              .toZonedDateTime(tz, { disambiguation: "compatible" }).epochMilliseconds;
          const windowStart = toInstant(opens);
          const windowEnd = toInstant(closes);
          const expected: number[] = [];
          for (let s = windowStart; s + duration * MINUTE <= windowEnd; s += step * MINUTE) expected.push(s);
          expect(normalize(computeSlots(q).map((s) => ({ start: s.start, end: s.start + 1 }))).length).toBe(
            expected.length,
          );
          expect(computeSlots(q).map((s) => s.start)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
