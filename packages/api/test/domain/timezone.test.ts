import { describe, expect, it } from "vitest";
import {
  addDays,
  clearTimeZoneCache,
  daysBetween,
  formatLocal,
  formatTimeOfDay,
  isValidTimeZone,
  isoWeekday,
  localDateOf,
  parseTimeOfDay,
  wallClockToInstant,
} from "../../src/domain/timezone.ts";

const iso = (ms: number) => new Date(ms).toISOString();

describe("time zones", () => {
  it("converts clinic wall-clock to instants across DST changes", () => {
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
      expect(iso(wallClockToInstant("2027-10-31", 1440, "Europe/Berlin"))).toBe("2027-10-31T23:00:00.000Z");
      expect(iso(wallClockToInstant("2027-03-14", 540, "America/New_York"))).toBe("2027-03-14T13:00:00.000Z");
      expect(iso(wallClockToInstant("2027-03-13", 540, "America/New_York"))).toBe("2027-03-13T14:00:00.000Z");
      expect(iso(wallClockToInstant("2027-11-07", 540, "America/New_York"))).toBe("2027-11-07T14:00:00.000Z");
      expect(iso(wallClockToInstant("2027-06-01", 540, "Asia/Kolkata"))).toBe("2027-06-01T03:30:00.000Z");
    }
  });

  it("reads instants back as local dates and times", () => {
    expect(localDateOf(Date.parse("2027-03-28T23:30:00Z"), "Europe/Berlin")).toBe("2027-03-29");
    expect(localDateOf(Date.parse("2027-03-28T23:30:00Z"), "America/New_York")).toBe("2027-03-28");
    expect(formatLocal(Date.parse("2027-06-01T03:30:00Z"), "Asia/Kolkata")).toBe("2027-06-01T09:00");
  });

  it("does date arithmetic, weekdays and times of day", () => {
    expect(addDays("2027-02-28", 1)).toBe("2027-03-01");
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(daysBetween("2027-03-15", "2027-05-15")).toBe(61);
    expect(isoWeekday("2027-03-15")).toBe(1);
    expect(isoWeekday("2027-03-21")).toBe(7);
    expect(parseTimeOfDay("24:00")).toBe(1440);
    expect(parseTimeOfDay("24:01")).toBeNull();
    expect(parseTimeOfDay("9:00")).toBeNull();
    expect(parseTimeOfDay("12:60")).toBeNull();
    expect(formatTimeOfDay(1440)).toBe("24:00");
    expect(isValidTimeZone("Europe/Berlin")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus")).toBe(false);
  });
});
