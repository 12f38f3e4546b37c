import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Interval, normalize } from "../../src/domain/intervals.ts";
import { type ProviderSchedule, type SlotQuery, type WeeklyPeriod, computeSlots } from "../../src/domain/slots.ts";
import { addDays, isoWeekday } from "../../src/domain/timezone.ts";

const H = (h: number, m = 0) => h * 60 + m;
const monday = "2027-03-15";
const mondayToFriday = (opens: number, closes: number): WeeklyPeriod[] => [1, 2, 3, 4, 5].map((weekday) => ({ weekday, opensMin: opens, closesMin: closes }));
const at = (text: string) => Date.parse(text);
const base = (overrides: Partial<SlotQuery>): SlotQuery => ({
  timeZone: "UTC",
  fromDate: monday,
  toDate: monday,
  durationMin: 30,
  nowMs: 0,
  clinicHours: mondayToFriday(H(9), H(17)),
  clinicClosures: [],
  providers: [{ providerId: "p1", hours: mondayToFriday(H(9), H(17)), busy: [] }],
  ...overrides,
});
const locals = (q: SlotQuery) => computeSlots(q).map((s) => s.startLocal.slice(11));

describe("the slot grid", () => {
  it("yields the seed's 16 slots of 30 minutes and 8 of 60 in 09:00-17:00", () => {
    const thirty = locals(base({}));
    expect(thirty).toHaveLength(16);
    expect(thirty[0]).toBe("09:00");
    expect(thirty[15]).toBe("16:30");
    const sixty = locals(base({ durationMin: 60 }));
    expect(sixty).toEqual(["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"]);
  });

  it("intersects provider hours with clinic hours and anchors the grid at each window start", () => {
    const q = base({
      clinicHours: mondayToFriday(H(10), H(16)),
      providers: [{ providerId: "p1", hours: [{ weekday: 1, opensMin: H(9), closesMin: H(12) }, { weekday: 1, opensMin: H(13, 10), closesMin: H(17) }], busy: [] }],
      durationMin: 45,
    });
    expect(locals(q)).toEqual(["10:00", "10:45", "13:10", "13:55", "14:40"]);
  });

  it("gives nothing on a weekday without clinic hours, or for a provider without hours", () => {
    expect(computeSlots(base({ fromDate: "2027-03-20", toDate: "2027-03-21" }))).toEqual([]);
    expect(computeSlots(base({ providers: [{ providerId: "p1", hours: [], busy: [] }] }))).toEqual([]);
  });

  it("removes slots overlapping busy time without shifting the grid, and returns them after a closure", () => {
    const q = base({
      providers: [{ providerId: "p1", hours: mondayToFriday(H(9), H(17)), busy: [{ start: at("2027-03-15T09:10:00Z"), end: at("2027-03-15T09:40:00Z") }] }],
      clinicClosures: [{ start: at("2027-03-15T12:00:00Z"), end: at("2027-03-15T13:00:00Z") }],
      durationMin: 30,
    });
    const result = locals(q);
    expect(result.slice(0, 2)).toEqual(["10:00", "10:30"]);
    expect(result).not.toContain("09:30");
    expect(result).not.toContain("12:30");
    expect(result).toContain("11:30");
    expect(result).toContain("13:00");
  });

  it("never offers a slot whose start is not later than now", () => {
    const result = locals(base({ nowMs: at("2027-03-15T16:00:00Z") }));
    expect(result).toEqual(["16:30"]);
  });

  it("unions providers with every free provider per slot, sorted", () => {
    const q = base({
      providers: [
        { providerId: "b", hours: [{ weekday: 1, opensMin: H(9), closesMin: H(10) }], busy: [] },
        { providerId: "a", hours: [{ weekday: 1, opensMin: H(9, 30), closesMin: H(11) }], busy: [{ start: at("2027-03-15T10:00:00Z"), end: at("2027-03-15T10:30:00Z") }] },
      ],
    });
    expect(computeSlots(q).map((s) => [s.startLocal.slice(11), s.providerIds])).toEqual([
      ["09:00", ["b"]],
      ["09:30", ["a", "b"]],
      ["10:30", ["a"]],
    ]);
  });

  it("is correct on DST days (Berlin, New York) and in a +05:30 zone", () => {
    const allDay = (tz: string, date: string, duration: number, opens: number, closes: number) =>
      computeSlots(
        base({
          timeZone: tz,
          fromDate: date,
          toDate: date,
          durationMin: duration,
          clinicHours: [{ weekday: isoWeekday(date), opensMin: opens, closesMin: closes }],
          providers: [{ providerId: "p", hours: [{ weekday: isoWeekday(date), opensMin: opens, closesMin: closes }], busy: [] }],
        }),
      );
    // 00:00-04:00 is 3 real hours on the spring-forward day and 5 on the fall-back day.
    expect(allDay("Europe/Berlin", "2027-03-28", 60, 0, H(4)).map((s) => s.startLocal)).toEqual(["2027-03-28T00:00", "2027-03-28T01:00", "2027-03-28T03:00"]);
    expect(allDay("Europe/Berlin", "2027-10-31", 60, 0, H(4))).toHaveLength(5);
    expect(allDay("Europe/Berlin", "2027-03-26", 60, H(9), H(10)).map((s) => new Date(s.start).toISOString())).toEqual(["2027-03-26T08:00:00.000Z"]);
    expect(allDay("Europe/Berlin", "2027-03-29", 60, H(9), H(10)).map((s) => new Date(s.start).toISOString())).toEqual(["2027-03-29T07:00:00.000Z"]);
    expect(allDay("America/New_York", "2027-03-14", 60, H(9), H(10)).map((s) => new Date(s.start).toISOString())).toEqual(["2027-03-14T13:00:00.000Z"]);
    expect(allDay("America/New_York", "2027-11-07", 60, 0, H(3))).toHaveLength(4);
    expect(allDay("Asia/Kolkata", "2027-03-28", 30, H(9), H(10)).map((s) => s.startLocal)).toEqual(["2027-03-28T09:00", "2027-03-28T09:30"]);
    expect(new Date(allDay("Asia/Kolkata", "2027-03-28", 30, H(9), H(10))[0]?.start ?? 0).toISOString()).toBe("2027-03-28T03:30:00.000Z");
  });

  it("keeps the same wall-clock slots over a DST switch in a 30-day range", () => {
    const q = base({ timeZone: "Europe/Berlin", fromDate: monday, toDate: addDays(monday, 29) });
    const slots = computeSlots(q);
    expect(slots).toHaveLength(22 * 16);
    expect(slots.every((s) => s.startLocal.slice(11) >= "09:00" && s.startLocal.slice(11) <= "16:30")).toBe(true);
  });
});

// Property: the engine agrees with a brute-force minute-by-minute model (UTC, one day).
const DAY_START = Date.parse("2027-03-15T00:00:00Z");
const periodArb = fc.tuple(fc.integer({ min: 0, max: 1430 }), fc.integer({ min: 1, max: 600 })).map(([o, len]) => ({ weekday: 1, opensMin: o, closesMin: Math.min(1440, o + len) }));
const busyArb = fc.tuple(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 1, max: 180 })).map(([s, len]) => ({ start: DAY_START + s * 60_000, end: DAY_START + Math.min(1440, s + len) * 60_000 }));

function bruteForce(clinic: WeeklyPeriod[], providers: ProviderSchedule[], closures: Interval[], duration: number, nowMin: number): Map<number, string[]> {
  const open = (periods: readonly WeeklyPeriod[]) => {
    const minutes = new Array<boolean>(1440).fill(false);
    for (const p of periods) for (let m = p.opensMin; m < p.closesMin; m++) minutes[m] = true;
    return minutes;
  };
  const busyMinutes = (list: readonly Interval[]) => {
    const minutes = new Array<boolean>(1440).fill(false);
    for (const b of list) for (let m = (b.start - DAY_START) / 60_000; m < (b.end - DAY_START) / 60_000; m++) minutes[m] = true;
    return minutes;
  };
  const clinicOpen = open(clinic);
  const closed = busyMinutes(closures);
  const result = new Map<number, string[]>();
  for (const provider of [...providers].sort((a, b) => (a.providerId < b.providerId ? -1 : 1))) {
    const providerOpen = open(provider.hours);
    const busy = busyMinutes(provider.busy);
    const windowOpen = clinicOpen.map((c, m) => c && (providerOpen[m] ?? false));
    for (let m = 0; m < 1440; m++) {
      // A window starts where open follows closed; the grid is anchored there.
      if (!windowOpen[m] || (m > 0 && windowOpen[m - 1])) continue;
      let end = m;
      while (end < 1440 && windowOpen[end]) end++;
      for (let s = m; s + duration <= end; s += duration) {
        if (s <= nowMin) continue;
        let free = true;
        for (let k = s; k < s + duration; k++) if (busy[k] || closed[k]) free = false;
        if (free) result.set(s, [...(result.get(s) ?? []), provider.providerId]);
      }
    }
  }
  return result;
}

describe("the slot grid agrees with a brute-force model", () => {
  it("for random hours, busy times, closures, durations and now", () => {
    fc.assert(
      fc.property(
        fc.array(periodArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.array(periodArb, { maxLength: 3 }), fc.array(busyArb, { maxLength: 4 })), { minLength: 1, maxLength: 3 }),
        fc.array(busyArb, { maxLength: 2 }),
        fc.integer({ min: 5, max: 240 }),
        fc.integer({ min: -1, max: 1440 }),
        (clinicRaw, providerRaw, closures, duration, nowMin) => {
          // Weekly periods of one scope never overlap (the database refuses it): normalise them.
          const clean = (periods: WeeklyPeriod[]) => normalize(periods.map((p) => ({ start: p.opensMin, end: p.closesMin }))).map((i) => ({ weekday: 1, opensMin: i.start, closesMin: i.end }));
          const clinic = clean(clinicRaw);
          const providers = providerRaw.map(([hours, busy], k) => ({ providerId: `p${k}`, hours: clean(hours), busy }));
          const slots = computeSlots({
            timeZone: "UTC",
            fromDate: monday,
            toDate: monday,
            durationMin: duration,
            nowMs: DAY_START + nowMin * 60_000,
            clinicHours: clinic,
            clinicClosures: closures,
            providers,
          });
          const expected = bruteForce(clinic, providers, closures, duration, nowMin);
          expect(new Map(slots.map((s) => [(s.start - DAY_START) / 60_000, s.providerIds]))).toEqual(expected);
          expect(slots.every((s) => s.end - s.start === duration * 60_000)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
