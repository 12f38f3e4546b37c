import fc from "fast-check";
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import {
  addDays,
  clearTimeZoneCache,
  dayLocalMinute,
  daysBetween,
  formatLocal,
  formatTimeOfDay,
  canonicalTimeZone,
  isoWeekday,
  localDateOf,
  wallClockToInstant,
  zonedDay,
  zonedDays,
} from "../../src/domain/timezone.ts";
import { timeOfDay } from "../../src/schemas/wire.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** The reference: Temporal itself, wall time → instant with the "compatible" policy. */
function temporalInstant(date: string, minuteOfDay: number, tz: string): number {
  return Temporal.PlainDate.from(date)
    .toPlainDateTime()
    .add({ minutes: minuteOfDay })
    .toZonedDateTime(tz, { disambiguation: "compatible" }).epochMilliseconds;
}

// Zones with ordinary DST, DST at midnight (Santiago, Havana), half-hour DST (Lord Howe),
// southern-hemisphere DST (Sydney), half-hour offsets without DST (Kolkata, Kathmandu) and none.
const zones = [
  "Europe/Berlin",
  "America/New_York",
  "America/Santiago",
  "America/Havana",
  "Australia/Lord_Howe",
  "Australia/Sydney",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Pacific/Kiritimati",
  "UTC",
];

/** Local dates of every offset transition of `tz` in 2026–2028, and their neighbours. */
function transitionDates(tz: string): string[] {
  const dates: string[] = [];
  let at: Temporal.ZonedDateTime | null = Temporal.ZonedDateTime.from({ year: 2026, month: 1, day: 1, timeZone: tz });
  for (;;) {
    at = at.getTimeZoneTransition("next");
    if (!at || at.year > 2028) break;
    const date = at.toPlainDate().toString();
    dates.push(addDays(date, -1), date, addDays(date, 1));
  }
  return dates;
}

const dateArb = (tz: string) => {
  const nearTransitions = transitionDates(tz);
  const anyDate = fc.integer({ min: 0, max: 3 * 365 }).map((n) => addDays("2026-01-01", n));
  return nearTransitions.length > 0 ? fc.oneof(fc.constantFrom(...nearTransitions), anyDate) : anyDate;
};
const zoneAndDateArb = fc.constantFrom(...zones).chain((tz) => fc.tuple(fc.constant(tz), dateArb(tz)));

describe("wall clock → instant", () => {
  it("converts clinic wall-clock to instants across DST changes, cold and warm", () => {
    for (const cold of [true, false]) {
      if (cold) clearTimeZoneCache();
      expect(iso(wallClockToInstant("2027-03-26", 540, "Europe/Berlin"))).toBe("2027-03-26T08:00:00.000Z");
      expect(iso(wallClockToInstant("2027-03-29", 540, "Europe/Berlin"))).toBe("2027-03-29T07:00:00.000Z");
      // The spring-forward day: 01:00 is still CET, 03:00 is already CEST, 02:30 does not exist.
      expect(iso(wallClockToInstant("2027-03-28", 60, "Europe/Berlin"))).toBe("2027-03-28T00:00:00.000Z");
      expect(iso(wallClockToInstant("2027-03-28", 180, "Europe/Berlin"))).toBe("2027-03-28T01:00:00.000Z");
      expect(iso(wallClockToInstant("2027-03-28", 150, "Europe/Berlin"))).toBe("2027-03-28T01:30:00.000Z");
      // The fall-back day: 02:30 happens twice; "compatible" takes the earlier one.
      expect(iso(wallClockToInstant("2027-10-31", 150, "Europe/Berlin"))).toBe("2027-10-31T00:30:00.000Z");
      expect(iso(wallClockToInstant("2027-10-31", 210, "Europe/Berlin"))).toBe("2027-10-31T02:30:00.000Z");
      expect(iso(wallClockToInstant("2027-10-31", 1440, "Europe/Berlin"))).toBe("2027-10-31T23:00:00.000Z");
      expect(iso(wallClockToInstant("2027-03-14", 540, "America/New_York"))).toBe("2027-03-14T13:00:00.000Z");
      expect(iso(wallClockToInstant("2027-03-13", 540, "America/New_York"))).toBe("2027-03-13T14:00:00.000Z");
      expect(iso(wallClockToInstant("2027-11-07", 540, "America/New_York"))).toBe("2027-11-07T14:00:00.000Z");
      expect(iso(wallClockToInstant("2027-11-07", 90, "America/New_York"))).toBe("2027-11-07T05:30:00.000Z");
      expect(iso(wallClockToInstant("2027-06-01", 540, "Asia/Kolkata"))).toBe("2027-06-01T03:30:00.000Z");
      expect(iso(wallClockToInstant("2027-03-28", 0, "Asia/Kolkata"))).toBe("2027-03-27T18:30:00.000Z");
    }
  });

  it("carries minutes beyond the day into the next or previous date", () => {
    expect(wallClockToInstant("2027-03-27", 1440 + 180, "Europe/Berlin")).toBe(
      wallClockToInstant("2027-03-28", 180, "Europe/Berlin"),
    );
    expect(wallClockToInstant("2027-03-29", -60, "Europe/Berlin")).toBe(
      wallClockToInstant("2027-03-28", 1380, "Europe/Berlin"),
    );
  });

  it("agrees with Temporal's compatible conversion for every zone, date and minute, cold or warm", () => {
    fc.assert(
      fc.property(zoneAndDateArb, fc.integer({ min: 0, max: 1440 }), fc.boolean(), ([tz, date], minute, cold) => {
        if (cold) clearTimeZoneCache();
        expect(wallClockToInstant(date, minute, tz)).toBe(temporalInstant(date, minute, tz));
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees with Temporal for every minute of every transition day", () => {
    for (const tz of ["Europe/Berlin", "America/Santiago", "Australia/Lord_Howe"]) {
      for (const date of transitionDates(tz).filter((_, k) => k % 3 === 1)) {
        for (let minute = 0; minute <= 1440; minute += 5) {
          expect(wallClockToInstant(date, minute, tz), `${tz} ${date} ${minute}`).toBe(
            temporalInstant(date, minute, tz),
          );
        }
      }
    }
  });

  it("reads a day's instants back as wall-clock minutes, both occurrences of a repeated hour included", () => {
    const fallBack = zonedDay("2027-10-31", "Europe/Berlin");
    expect(dayLocalMinute(fallBack, Date.parse("2027-10-31T00:30:00Z"))).toBe(150);
    expect(dayLocalMinute(fallBack, Date.parse("2027-10-31T01:30:00Z"))).toBe(150);
    expect(dayLocalMinute(fallBack, Date.parse("2027-10-31T02:30:00Z"))).toBe(210);
    expect(dayLocalMinute(fallBack, Date.parse("2027-10-31T23:00:00Z"))).toBeNull();
    const plain = zonedDay("2027-06-01", "Asia/Kolkata");
    expect(plain.transition).toBe(Infinity);
    expect(dayLocalMinute(plain, Date.parse("2027-06-01T03:30:00Z"))).toBe(540);
    expect(dayLocalMinute(plain, Date.parse("2027-06-01T03:30:30Z"))).toBeNull();
  });

  it("lists the dates of a range, inclusive, with ISO weekdays", () => {
    const days = zonedDays("2027-03-26", "2027-03-29", "Europe/Berlin");
    expect(days.map((d) => [d.date, d.weekday])).toEqual([
      ["2027-03-26", 5],
      ["2027-03-27", 6],
      ["2027-03-28", 7],
      ["2027-03-29", 1],
    ]);
    expect(zonedDays("2027-03-29", "2027-03-26", "Europe/Berlin")).toEqual([]);
  });

  it("refuses malformed dates and unknown zones", () => {
    expect(() => wallClockToInstant("2027-02-30", 0, "UTC")).toThrow(RangeError);
    expect(() => wallClockToInstant("2027-3-1", 0, "UTC")).toThrow(RangeError);
    expect(() => addDays("yesterday", 1)).toThrow(RangeError);
    expect(() => wallClockToInstant("2027-03-01", 0, "Mars/Olympus")).toThrow(RangeError);
  });
});

describe("instant → local time", () => {
  it("reads instants back as local dates and times", () => {
    expect(localDateOf(Date.parse("2027-03-28T23:30:00Z"), "Europe/Berlin")).toBe("2027-03-29");
    expect(localDateOf(Date.parse("2027-03-28T23:30:00Z"), "America/New_York")).toBe("2027-03-28");
    expect(formatLocal(Date.parse("2027-06-01T03:30:00Z"), "Asia/Kolkata")).toBe("2027-06-01T09:00");
    expect(formatLocal(Date.parse("2027-10-31T00:30:00Z"), "Europe/Berlin")).toBe("2027-10-31T02:30");
    expect(formatLocal(Date.parse("2027-10-31T01:30:00Z"), "Europe/Berlin")).toBe("2027-10-31T02:30");
  });

  it("agrees with Temporal for any instant", () => {
    const from = Date.parse("2026-01-01T00:00:00Z");
    const to = Date.parse("2029-01-01T00:00:00Z");
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: from, max: to }), fc.boolean(), (tz, instant, cold) => {
        if (cold) clearTimeZoneCache();
        const zoned = Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(tz);
        expect(localDateOf(instant, tz)).toBe(zoned.toPlainDate().toString());
        expect(formatLocal(instant, tz)).toBe(zoned.toPlainDateTime().toString({ smallestUnit: "minute" }));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("dates and times of day", () => {
  it("does date arithmetic and weekdays", () => {
    expect(addDays("2027-02-28", 1)).toBe("2027-03-01");
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2027-01-01", -1)).toBe("2026-12-31");
    expect(daysBetween("2027-03-15", "2027-05-15")).toBe(61);
    expect(daysBetween("2027-05-15", "2027-03-15")).toBe(-61);
    expect(isoWeekday("2027-03-15")).toBe(1);
    expect(isoWeekday("2027-03-21")).toBe(7);
  });

  it("agrees with Temporal's calendar arithmetic", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: -800, max: 800 }), (offset, n) => {
        const date = Temporal.PlainDate.from("1970-01-01").add({ days: offset });
        const text = date.toString();
        expect(addDays(text, n)).toBe(date.add({ days: n }).toString());
        expect(daysBetween(text, addDays(text, n))).toBe(n);
        expect(isoWeekday(text)).toBe(date.dayOfWeek);
      }),
    );
  });

  it("parses and formats times of day, 24:00 included", () => {
    const parse = (text: string) => {
      const parsed = timeOfDay.safeParse(text);
      return parsed.success ? parsed.data : null;
    };
    expect(parse("00:00")).toBe(0);
    expect(parse("09:30")).toBe(570);
    expect(parse("24:00")).toBe(1440);
    for (const bad of ["24:01", "25:00", "9:00", "12:60", "12:5", "1200", "12:00:00", " 12:00", "", "ab:cd"])
      expect(parse(bad), bad).toBeNull();
    expect(formatTimeOfDay(0)).toBe("00:00");
    expect(formatTimeOfDay(570)).toBe("09:30");
    expect(formatTimeOfDay(1440)).toBe("24:00");
    for (let m = 0; m <= 1440; m++) expect(parse(formatTimeOfDay(m))).toBe(m);
  });

  it("knows IANA zones in their canonical spelling and refuses offsets and unknown names", () => {
    expect(canonicalTimeZone("Europe/Berlin")).toBe("Europe/Berlin");
    expect(canonicalTimeZone("europe/berlin")).toBe("Europe/Berlin");
    expect(canonicalTimeZone("AMERICA/ARGENTINA/BUENOS_AIRES")).toBe("America/Argentina/Buenos_Aires");
    expect(canonicalTimeZone("UTC")).toBe("UTC");
    expect(canonicalTimeZone("utc")).toBe("UTC");
    expect(canonicalTimeZone("Mars/Olympus")).toBeUndefined();
    expect(canonicalTimeZone("")).toBeUndefined();
    expect(canonicalTimeZone("+05:30")).toBeUndefined();
    expect(canonicalTimeZone("-03:00")).toBeUndefined();
  });
});
