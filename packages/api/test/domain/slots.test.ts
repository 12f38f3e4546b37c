import fc from "fast-check";
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import { type Interval, normalize } from "../../src/domain/intervals.ts";
import {
  type ProviderSchedule,
  type Slot,
  type SlotQuery,
  type WeeklyPeriod,
  computeSlots,
  effectiveWindows,
} from "../../src/domain/slots.ts";
import { addDays, isoWeekday } from "../../src/domain/timezone.ts";

const MINUTE = 60_000;
const H = (h: number, m = 0) => h * 60 + m;
const monday = "2027-03-15";
const mondayToFriday = (opens: number, closes: number): WeeklyPeriod[] =>
  [1, 2, 3, 4, 5].map((weekday) => ({ weekday, opensMin: opens, closesMin: closes }));
const at = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString();
const base = (overrides: Partial<SlotQuery>): SlotQuery => ({
  timeZone: "UTC",
  fromDate: monday,
  toDate: monday,
  durationMin: 30,
  nowMs: 0,
  clinicHours: mondayToFriday(H(9), H(17)),
  clinicClosures: [],
  providers: [{ providerId: "p1", hours: mondayToFriday(H(9), H(17)), closures: [] }],
  ...overrides,
});
/** Local start times HH:MM. */
const locals = (q: SlotQuery) => computeSlots(q).map((s) => s.startLocal.slice(11));
/** One provider working exactly the clinic's single period on `date`. */
const oneWindow = (tz: string, date: string, duration: number, opens: number, closes: number, busy: Interval[] = []) =>
  computeSlots(
    base({
      timeZone: tz,
      fromDate: date,
      toDate: date,
      durationMin: duration,
      clinicHours: [{ weekday: isoWeekday(date), opensMin: opens, closesMin: closes }],
      providers: [
        { providerId: "p", hours: [{ weekday: isoWeekday(date), opensMin: opens, closesMin: closes }], closures: busy },
      ],
    }),
  );

describe("the slot grid", () => {
  it("yields the seed's 16 slots of 30 minutes and 8 of 60 in 09:00-17:00", () => {
    const thirty = computeSlots(base({}));
    expect(thirty).toHaveLength(16);
    expect(thirty[0]).toEqual({
      start: at("2027-03-15T09:00:00Z"),
      end: at("2027-03-15T09:30:00Z"),
      startLocal: "2027-03-15T09:00",
      providerIds: ["p1"],
    });
    expect(thirty[15]?.startLocal).toBe("2027-03-15T16:30");
    expect(thirty.every((s) => s.end - s.start === 30 * MINUTE)).toBe(true);
    expect(locals(base({ durationMin: 60 }))).toEqual([
      "09:00",
      "10:00",
      "11:00",
      "12:00",
      "13:00",
      "14:00",
      "15:00",
      "16:00",
    ]);
  });

  it("anchors the grid at each window of a split shift; a slot fits when it ends exactly at the window's end", () => {
    const q = base({
      durationMin: 45,
      providers: [
        {
          providerId: "p1",
          hours: [
            { weekday: 1, opensMin: H(9), closesMin: H(12) },
            { weekday: 1, opensMin: H(13), closesMin: H(17) },
          ],
          closures: [],
        },
      ],
    });
    // 11:15 + 45 min = 12:00 and 16:00 + 45 min = 16:45 both fit; 16:45 + 45 min does not.
    expect(locals(q)).toEqual(["09:00", "09:45", "10:30", "11:15", "13:00", "13:45", "14:30", "15:15", "16:00"]);
  });

  it("works the documented Berlin example: a busy slot drops out, the grid stays", () => {
    const date = "2027-03-29";
    const q = base({
      timeZone: "Europe/Berlin",
      fromDate: date,
      toDate: date,
      durationMin: 45,
      clinicHours: [{ weekday: 1, opensMin: H(8), closesMin: H(18) }],
      providers: [
        {
          providerId: "anna",
          hours: [
            { weekday: 1, opensMin: H(9), closesMin: H(12) },
            { weekday: 1, opensMin: H(13), closesMin: H(17) },
          ],
          closures: [{ start: at("2027-03-29T07:45:00Z"), end: at("2027-03-29T08:30:00Z") }],
        },
      ],
    });
    const slots = computeSlots(q);
    expect(slots.map((s) => s.startLocal.slice(11))).toEqual([
      "09:00",
      "10:30",
      "11:15",
      "13:00",
      "13:45",
      "14:30",
      "15:15",
      "16:00",
    ]);
    expect(iso(slots[0]?.start ?? 0)).toBe("2027-03-29T07:00:00.000Z");
  });

  it("intersects provider hours with clinic hours and anchors the grid at each window start", () => {
    const q = base({
      clinicHours: mondayToFriday(H(10), H(16)),
      providers: [
        {
          providerId: "p1",
          hours: [
            { weekday: 1, opensMin: H(9), closesMin: H(12) },
            { weekday: 1, opensMin: H(13, 10), closesMin: H(17) },
          ],
          closures: [],
        },
      ],
      durationMin: 45,
    });
    expect(locals(q)).toEqual(["10:00", "10:45", "13:10", "13:55", "14:40"]);
    const windows = effectiveWindows(mondayToFriday(H(10), H(16)), [
      { weekday: 1, opensMin: H(9), closesMin: H(12) },
      { weekday: 1, opensMin: H(13, 10), closesMin: H(17) },
    ]);
    expect(windows[1]).toEqual([
      { start: H(10), end: H(12) },
      { start: H(13, 10), end: H(16) },
    ]);
    expect(windows[2]).toEqual([]);
  });

  it("runs one grid across adjacent periods", () => {
    const q = base({
      durationMin: 45,
      clinicHours: [
        { weekday: 1, opensMin: H(12), closesMin: H(17) },
        { weekday: 1, opensMin: H(9), closesMin: H(12) },
      ],
    });
    expect(locals(q)).toEqual([
      "09:00",
      "09:45",
      "10:30",
      "11:15",
      "12:00",
      "12:45",
      "13:30",
      "14:15",
      "15:00",
      "15:45",
    ]);
  });

  it("gives nothing on a weekday without clinic hours, or for a provider without hours", () => {
    expect(computeSlots(base({ fromDate: "2027-03-20", toDate: "2027-03-21" }))).toEqual([]);
    expect(computeSlots(base({ providers: [{ providerId: "p1", hours: [], closures: [] }] }))).toEqual([]);
    expect(computeSlots(base({ providers: [] }))).toEqual([]);
    // The provider works Saturday, the clinic does not.
    const saturday = base({
      fromDate: "2027-03-20",
      toDate: "2027-03-20",
      providers: [{ providerId: "p1", hours: [{ weekday: 6, opensMin: H(9), closesMin: H(17) }], closures: [] }],
    });
    expect(computeSlots(saturday)).toEqual([]);
    // A range ending before it starts is empty.
    expect(computeSlots(base({ fromDate: "2027-03-16", toDate: "2027-03-15" }))).toEqual([]);
  });

  it("covers every date of the range, skipping closed weekdays", () => {
    const slots = computeSlots(base({ toDate: addDays(monday, 13), durationMin: 60 }));
    expect(slots).toHaveLength(10 * 8);
    expect(new Set(slots.map((s) => s.startLocal.slice(0, 10))).size).toBe(10);
  });

  it("removes slots overlapping busy time without shifting the grid", () => {
    const q = base({
      providers: [
        {
          providerId: "p1",
          hours: mondayToFriday(H(9), H(17)),
          closures: [{ start: at("2027-03-15T09:10:00Z"), end: at("2027-03-15T09:40:00Z") }],
        },
      ],
    });
    // 09:00 and 09:30 overlap the busy time; the next slot is 10:00, not 09:40.
    expect(locals(q).slice(0, 3)).toEqual(["10:00", "10:30", "11:00"]);
    expect(locals(q)).toHaveLength(14);
  });

  it("treats busy time as half-open: a booking ending at a slot's start leaves it free", () => {
    const q = base({
      providers: [
        {
          providerId: "p1",
          hours: mondayToFriday(H(9), H(17)),
          closures: [{ start: at("2027-03-15T09:30:00Z"), end: at("2027-03-15T10:00:00Z") }],
        },
      ],
    });
    expect(locals(q).slice(0, 3)).toEqual(["09:00", "10:00", "10:30"]);
  });

  it("removes slots during a clinic closure and offers them again after it ends", () => {
    const q = base({
      toDate: addDays(monday, 1),
      durationMin: 60,
      clinicClosures: [{ start: at("2027-03-15T11:30:00Z"), end: at("2027-03-15T14:00:00Z") }],
    });
    expect(locals(q).slice(0, 8)).toEqual(["09:00", "10:00", "14:00", "15:00", "16:00", "09:00", "10:00", "11:00"]);
    // Overlapping, unsorted busy and closures are fine.
    const messy = base({
      durationMin: 60,
      clinicClosures: [
        { start: at("2027-03-15T15:00:00Z"), end: at("2027-03-15T16:00:00Z") },
        { start: at("2027-03-15T09:00:00Z"), end: at("2027-03-15T09:01:00Z") },
      ],
      providers: [
        {
          providerId: "p1",
          hours: mondayToFriday(H(9), H(17)),
          closures: [
            { start: at("2027-03-15T12:30:00Z"), end: at("2027-03-15T13:30:00Z") },
            { start: at("2027-03-15T12:00:00Z"), end: at("2027-03-15T12:45:00Z") },
          ],
        },
      ],
    });
    expect(locals(messy)).toEqual(["10:00", "11:00", "14:00", "16:00"]);
  });

  it("never offers a slot whose start is not later than now", () => {
    expect(locals(base({ nowMs: at("2027-03-15T16:00:00Z") }))).toEqual(["16:30"]);
    expect(locals(base({ nowMs: at("2027-03-15T15:59:59.999Z") }))).toEqual(["16:00", "16:30"]);
    expect(locals(base({ nowMs: at("2027-03-15T16:10:00Z") }))).toEqual(["16:30"]);
    expect(locals(base({ nowMs: at("2027-03-15T17:00:00Z") }))).toEqual([]);
  });

  it("unions providers: one entry per start with every free provider, ids sorted", () => {
    const q = base({
      providers: [
        { providerId: "b", hours: [{ weekday: 1, opensMin: H(9), closesMin: H(10) }], closures: [] },
        { providerId: "c", hours: [{ weekday: 1, opensMin: H(9, 15), closesMin: H(10, 45) }], closures: [] },
        {
          providerId: "a",
          hours: [{ weekday: 1, opensMin: H(9, 30), closesMin: H(11) }],
          closures: [{ start: at("2027-03-15T10:00:00Z"), end: at("2027-03-15T10:30:00Z") }],
        },
      ],
    });
    expect(computeSlots(q).map((s) => [s.startLocal.slice(11), s.providerIds])).toEqual([
      ["09:00", ["b"]],
      ["09:15", ["c"]],
      ["09:30", ["a", "b"]],
      ["09:45", ["c"]],
      ["10:15", ["c"]],
      ["10:30", ["a"]],
    ]);
  });

  it("unions providers sharing the clinic's hours, each with its own bookings", () => {
    const booked = (text: string) => [{ start: at(text), end: at(text) + 30 * MINUTE }];
    const q = base({
      providers: [
        { providerId: "p2", hours: mondayToFriday(H(9), H(17)), closures: booked("2027-03-15T09:00:00Z") },
        { providerId: "p1", hours: mondayToFriday(H(9), H(17)), closures: booked("2027-03-15T09:30:00Z") },
        { providerId: "p3", hours: mondayToFriday(H(9), H(12)), closures: booked("2027-03-15T09:00:00Z") },
      ],
    });
    const slots = computeSlots(q);
    expect(slots).toHaveLength(16);
    expect(slots.slice(0, 3).map((s) => s.providerIds)).toEqual([["p1"], ["p2", "p3"], ["p1", "p2", "p3"]]);
    expect(slots[6]?.providerIds).toEqual(["p1", "p2"]);
  });

  it("refuses a duration that is not a positive whole number of minutes", () => {
    for (const durationMin of [0, -30, 7.5, Number.NaN])
      expect(() => computeSlots(base({ durationMin }))).toThrow(RangeError);
  });
});

describe("the slot grid on DST days and in other zones", () => {
  const starts = (slots: Slot[]) => slots.map((s) => iso(s.start));

  it("Europe/Berlin: 09:00 is 08:00Z before the switch and 07:00Z after", () => {
    expect(starts(oneWindow("Europe/Berlin", "2027-03-26", 60, H(9), H(10)))).toEqual(["2027-03-26T08:00:00.000Z"]);
    expect(starts(oneWindow("Europe/Berlin", "2027-03-29", 60, H(9), H(10)))).toEqual(["2027-03-29T07:00:00.000Z"]);
  });

  it("Europe/Berlin spring forward: 00:00-04:00 is 3 real hours, 3 slots of 60 min", () => {
    const slots = oneWindow("Europe/Berlin", "2027-03-28", 60, 0, H(4));
    expect(starts(slots)).toEqual(["2027-03-27T23:00:00.000Z", "2027-03-28T00:00:00.000Z", "2027-03-28T01:00:00.000Z"]);
    expect(slots.map((s) => s.startLocal)).toEqual(["2027-03-28T00:00", "2027-03-28T01:00", "2027-03-28T03:00"]);
    expect(iso(slots[2]?.end ?? 0)).toBe("2027-03-28T02:00:00.000Z");
  });

  it("Europe/Berlin fall back: 00:00-04:00 is 5 real hours, 5 slots of 60 min", () => {
    const slots = oneWindow("Europe/Berlin", "2027-10-31", 60, 0, H(4));
    expect(starts(slots)).toEqual([
      "2027-10-30T22:00:00.000Z",
      "2027-10-30T23:00:00.000Z",
      "2027-10-31T00:00:00.000Z",
      "2027-10-31T01:00:00.000Z",
      "2027-10-31T02:00:00.000Z",
    ]);
    expect(slots.map((s) => s.startLocal.slice(11))).toEqual(["00:00", "01:00", "02:00", "02:00", "03:00"]);
  });

  it("Europe/Berlin: a window opening in the spring-forward gap opens when the clock resumes", () => {
    // 02:30 does not exist; "compatible" reads it as 03:30 CEST (01:30Z); 04:00 CEST is 02:00Z.
    const slots = oneWindow("Europe/Berlin", "2027-03-28", 30, H(2, 30), H(4));
    expect(starts(slots)).toEqual(["2027-03-28T01:30:00.000Z"]);
    expect(slots[0]?.startLocal).toBe("2027-03-28T03:30");
  });

  it("Europe/Berlin: windows that overlap in real time across the gap give each start once, busy time respected", () => {
    // 01:10-02:50 becomes 00:10Z-01:50Z and 03:00-04:00 becomes 01:00Z-02:00Z: the second window
    // starts before the first one's last slot, so the busy pointer must rewind.
    const sunday = "2027-03-28";
    const slots = computeSlots(
      base({
        timeZone: "Europe/Berlin",
        fromDate: sunday,
        toDate: sunday,
        clinicHours: [{ weekday: 7, opensMin: 0, closesMin: H(24) }],
        providers: [
          {
            providerId: "p",
            hours: [
              { weekday: 7, opensMin: H(3), closesMin: H(4) },
              { weekday: 7, opensMin: H(1, 10), closesMin: H(2, 50) },
            ],
            closures: [{ start: at("2027-03-28T00:55:00Z"), end: at("2027-03-28T01:05:00Z") }],
          },
        ],
      }),
    );
    expect(slots.map((s) => [iso(s.start), s.startLocal.slice(11), s.providerIds])).toEqual([
      ["2027-03-28T00:10:00.000Z", "01:10", ["p"]],
      ["2027-03-28T01:10:00.000Z", "03:10", ["p"]],
      ["2027-03-28T01:30:00.000Z", "03:30", ["p"]],
    ]);
  });

  it("America/New_York: 2027-03-14 spring forward and 2027-11-07 fall back", () => {
    expect(starts(oneWindow("America/New_York", "2027-03-13", 60, H(9), H(10)))).toEqual(["2027-03-13T14:00:00.000Z"]);
    expect(starts(oneWindow("America/New_York", "2027-03-14", 60, H(9), H(10)))).toEqual(["2027-03-14T13:00:00.000Z"]);
    expect(starts(oneWindow("America/New_York", "2027-03-14", 60, 0, H(4)))).toEqual([
      "2027-03-14T05:00:00.000Z",
      "2027-03-14T06:00:00.000Z",
      "2027-03-14T07:00:00.000Z",
    ]);
    const fallBack = oneWindow("America/New_York", "2027-11-07", 60, 0, H(3));
    expect(starts(fallBack)).toEqual([
      "2027-11-07T04:00:00.000Z",
      "2027-11-07T05:00:00.000Z",
      "2027-11-07T06:00:00.000Z",
      "2027-11-07T07:00:00.000Z",
    ]);
    expect(fallBack.map((s) => s.startLocal.slice(11))).toEqual(["00:00", "01:00", "01:00", "02:00"]);
    expect(starts(oneWindow("America/New_York", "2027-11-07", 60, H(9), H(10)))).toEqual(["2027-11-07T14:00:00.000Z"]);
  });

  it("Asia/Kolkata (+05:30, no DST)", () => {
    const slots = oneWindow("Asia/Kolkata", "2027-03-28", 30, H(9), H(10));
    expect(starts(slots)).toEqual(["2027-03-28T03:30:00.000Z", "2027-03-28T04:00:00.000Z"]);
    expect(slots.map((s) => s.startLocal)).toEqual(["2027-03-28T09:00", "2027-03-28T09:30"]);
    expect(starts(oneWindow("Asia/Kolkata", "2027-10-31", 60, 0, H(4)))).toHaveLength(4);
  });

  it("keeps the same wall-clock slots over a DST switch in a 30-day range", () => {
    const q = base({ timeZone: "Europe/Berlin", fromDate: monday, toDate: addDays(monday, 29) });
    const slots = computeSlots(q);
    expect(slots).toHaveLength(22 * 16);
    expect(slots.every((s) => s.startLocal.slice(11) >= "09:00" && s.startLocal.slice(11) <= "16:30")).toBe(true);
    const utcHours = (date: string) =>
      slots.filter((s) => s.startLocal.startsWith(date)).map((s) => new Date(s.start).getUTCHours());
    expect(utcHours("2027-03-26")[0]).toBe(8);
    expect(utcHours("2027-03-29")[0]).toBe(7);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: the engine agrees with a brute-force minute-by-minute model (UTC, Monday-Wednesday).

const DAYS = 3;
const DAY_START = Date.parse(`${monday}T00:00:00Z`);
const SPAN = DAYS * 1440;
const periodArb = fc
  .tuple(fc.integer({ min: 1, max: DAYS }), fc.integer({ min: 0, max: 1430 }), fc.integer({ min: 1, max: 600 }))
  .map(([weekday, o, len]): WeeklyPeriod => ({ weekday, opensMin: o, closesMin: Math.min(1440, o + len) }));
const busyArb = fc
  .tuple(fc.integer({ min: -60, max: SPAN }), fc.integer({ min: 1, max: 240 }))
  .map(([s, len]): Interval => ({ start: DAY_START + s * MINUTE, end: DAY_START + (s + len) * MINUTE }));

/** Minute-by-minute model: every grid start of every window, checked minute by minute. */
function bruteForce(
  clinic: WeeklyPeriod[],
  providers: ProviderSchedule[],
  closures: Interval[],
  duration: number,
  nowMin: number,
): Map<number, string[]> {
  const openMinutes = (periods: readonly WeeklyPeriod[], weekday: number) => {
    const minutes = new Array<boolean>(1440).fill(false);
    for (const p of periods)
      if (p.weekday === weekday) for (let m = p.opensMin; m < p.closesMin; m++) minutes[m] = true;
    return minutes;
  };
  const busyMinutes = (list: readonly Interval[]) => {
    const minutes = new Array<boolean>(SPAN).fill(false);
    for (const b of list)
      for (let m = Math.max(0, (b.start - DAY_START) / MINUTE); m < Math.min(SPAN, (b.end - DAY_START) / MINUTE); m++)
        minutes[m] = true;
    return minutes;
  };
  const closed = busyMinutes(closures);
  const result = new Map<number, string[]>();
  for (const provider of [...providers].sort((a, b) => (a.providerId < b.providerId ? -1 : 1))) {
    const busy = busyMinutes(provider.closures ?? []);
    for (let d = 0; d < DAYS; d++) {
      const clinicOpen = openMinutes(clinic, d + 1);
      const providerOpen = openMinutes(provider.hours, d + 1);
      const windowOpen = clinicOpen.map((c, m) => c && (providerOpen[m] ?? false));
      for (let m = 0; m < 1440; m++) {
        // A window starts where open follows closed; the grid is anchored there.
        if (!windowOpen[m] || (m > 0 && windowOpen[m - 1])) continue;
        let end = m;
        while (end < 1440 && windowOpen[end]) end++;
        for (let s = m; s + duration <= end; s += duration) {
          const at = d * 1440 + s;
          if (at <= nowMin) continue;
          let free = true;
          for (let k = at; k < at + duration; k++) if (busy[k] || closed[k]) free = false;
          if (free) result.set(at, [...(result.get(at) ?? []), provider.providerId]);
        }
      }
    }
  }
  return new Map([...result].sort((a, b) => a[0] - b[0]));
}

describe("the slot grid agrees with a brute-force model", () => {
  it("for random hours, busy times, closures, durations and now", () => {
    fc.assert(
      fc.property(
        fc.array(periodArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.array(periodArb, { maxLength: 6 }), fc.array(busyArb, { maxLength: 8 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.array(busyArb, { maxLength: 3 }),
        fc.integer({ min: 5, max: 240 }),
        fc.integer({ min: -1, max: SPAN }),
        (clinic, providerRaw, closures, duration, nowMin) => {
          const providers = providerRaw.map(([hours, busy], k) => ({
            providerId: `p${(k * 7) % 5}${k}`,
            hours,
            closures: busy,
          }));
          const slots = computeSlots({
            timeZone: "UTC",
            fromDate: monday,
            toDate: addDays(monday, DAYS - 1),
            durationMin: duration,
            nowMs: DAY_START + nowMin * MINUTE,
            clinicHours: clinic,
            clinicClosures: closures,
            providers,
          });
          const expected = bruteForce(clinic, providers, closures, duration, nowMin);
          // Same starts, in order, with the same providers.
          expect(slots.map((s) => [(s.start - DAY_START) / MINUTE, s.providerIds])).toEqual([...expected]);
          expect(slots.every((s) => s.end - s.start === duration * MINUTE)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Property: in DST zones the engine agrees with a slow model that converts through Temporal.

const dstZones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago"];
const dstDates = ["2027-03-28", "2027-10-31", "2027-03-14", "2027-11-07", "2027-04-04", "2027-10-03", "2027-09-05"];

function temporalModel(q: SlotQuery): { start: number; end: number; startLocal: string; providerIds: string[] }[] {
  const toInstant = (date: string, minute: number) =>
    Temporal.PlainDate.from(date)
      .toPlainDateTime()
      .add({ minutes: minute })
      .toZonedDateTime(q.timeZone, { disambiguation: "compatible" }).epochMilliseconds;
  const windowsOf = (periods: readonly WeeklyPeriod[], weekday: number) =>
    normalize(periods.filter((p) => p.weekday === weekday).map((p) => ({ start: p.opensMin, end: p.closesMin })));
  const found = new Map<number, { start: number; end: number; startLocal: string; providerIds: string[] }>();
  const step = q.durationMin * MINUTE;
  for (let date = q.fromDate; date <= q.toDate; date = addDays(date, 1)) {
    const weekday = isoWeekday(date);
    const clinic = windowsOf(q.clinicHours, weekday);
    for (const provider of [...q.providers].sort((a, b) => (a.providerId < b.providerId ? -1 : 1))) {
      for (const p of windowsOf(provider.hours, weekday)) {
        for (const c of clinic) {
          const from = Math.max(p.start, c.start);
          const to = Math.min(p.end, c.end);
          if (from >= to) continue;
          const windowEnd = toInstant(date, to);
          for (let start = toInstant(date, from); start + step <= windowEnd; start += step) {
            const end = start + step;
            if (start <= q.nowMs) continue;
            if ([...q.clinicClosures, ...(provider.closures ?? [])].some((b) => b.start < end && start < b.end))
              continue;
            const entry = found.get(start);
            const startLocal = Temporal.Instant.fromEpochMilliseconds(start)
              .toZonedDateTimeISO(q.timeZone)
              .toPlainDateTime()
              .toString({ smallestUnit: "minute" });
            if (!entry) found.set(start, { start, end, startLocal, providerIds: [provider.providerId] });
            else if (!entry.providerIds.includes(provider.providerId)) entry.providerIds.push(provider.providerId);
          }
        }
      }
    }
  }
  return [...found.values()].sort((a, b) => a.start - b.start);
}

describe("the slot grid agrees with a Temporal-based model on DST days", () => {
  it("for random zones, dates around transitions, hours, busy times and durations", () => {
    const dayPeriod = fc
      .tuple(fc.integer({ min: 0, max: 1430 }), fc.integer({ min: 10, max: 480 }))
      .map(([o, len]) => ({ o, c: Math.min(1440, o + len) }));
    fc.assert(
      fc.property(
        fc.constantFrom(...dstZones),
        fc.constantFrom(...dstDates),
        fc.array(dayPeriod, { minLength: 1, maxLength: 3 }),
        fc.array(fc.array(dayPeriod, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.integer({ min: -600, max: 2 * 1440 + 600 }), fc.integer({ min: 1, max: 180 })), {
          maxLength: 6,
        }),
        fc.integer({ min: 10, max: 120 }),
        (tz, date, clinicRaw, providerRaw, busyRaw, duration) => {
          const fromDate = addDays(date, -1);
          const toDate = addDays(date, 1);
          // The same periods every day of the week, so that every date of the range has hours.
          const weekly = (list: { o: number; c: number }[]) =>
            [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) =>
              list.map(({ o, c }) => ({ weekday, opensMin: o, closesMin: c })),
            );
          const origin = Date.parse(`${fromDate}T00:00:00Z`);
          const busy = busyRaw.map(([s, len]) => ({ start: origin + s * MINUTE, end: origin + (s + len) * MINUTE }));
          const q: SlotQuery = {
            timeZone: tz,
            fromDate,
            toDate,
            durationMin: duration,
            nowMs: 0,
            clinicHours: weekly(clinicRaw),
            clinicClosures: busy.slice(0, 1),
            providers: providerRaw.map((hours, k) => ({
              providerId: `p${2 - k}`,
              hours: weekly(hours),
              closures: busy.slice(k),
            })),
          };
          expect(computeSlots(q)).toEqual(temporalModel(q));
        },
      ),
      { numRuns: 200 },
    );
  });
});
