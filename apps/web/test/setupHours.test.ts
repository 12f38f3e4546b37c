// The pure parts of the work-hours area (src/setup/hours.ts) and the clinic-time conversion its
// closures use (src/time.ts instantAt) across a DST change.
import { describe, expect, it } from "vitest";
import { type WorkHour, dayText, parsePeriods, periodsOf, timeTyped } from "../src/setup/hours.ts";
import { instantAt } from "../src/time.ts";

const hour = (weekday: number, opens_at: string, closes_at: string): WorkHour => ({
  id: `${String(weekday)}-${opens_at}`,
  scope: "clinic",
  clinic_id: "c",
  provider_id: null,
  weekday,
  opens_at,
  closes_at,
  created_at: new Date(0),
  updated_at: new Date(0),
});

describe("the work-hours area's pure parts", () => {
  it("orders a day's periods and says a day without any is closed", () => {
    const week = [hour(1, "14:00", "18:00"), hour(1, "08:00", "12:00"), hour(2, "09:00", "17:00")];
    expect(periodsOf(week, 1).map((h) => h.opens_at)).toEqual(["08:00", "14:00"]);
    expect(dayText(week, 1)).toBe("08:00–12:00, 14:00–18:00");
    expect(dayText(week, 3)).toBe("Closed");
  });

  it("reads a date's hours as typed, empty meaning closed, and names what it cannot read", () => {
    expect(parsePeriods("9:00-12:00, 14:00 – 16:00; 17:00 to 24:00")).toEqual({
      periods: [
        { opens_at: "09:00", closes_at: "12:00" },
        { opens_at: "14:00", closes_at: "16:00" },
        { opens_at: "17:00", closes_at: "24:00" },
      ],
    });
    expect(parsePeriods("  ")).toEqual({ periods: [] });
    expect(parsePeriods("09:00-12:00, noon")).toEqual({
      error: "“noon” is not a period: write it as 09:00–12:00, periods separated by commas.",
    });
    expect(timeTyped(" 9:30 ")).toBe("09:30");
    expect(timeTyped("25:00")).toBe("25:00");
  });

  it("turns the clinic's wall clock into instants with the rules of that date (DST)", () => {
    // Berlin moves to summer time on 28 March 2027: that day has 23 hours.
    const start = instantAt("2027-03-28", 0, "Europe/Berlin");
    const end = instantAt("2027-03-28", 24 * 60, "Europe/Berlin");
    expect(start.toISOString()).toBe("2027-03-27T23:00:00.000Z");
    expect(end.toISOString()).toBe("2027-03-28T22:00:00.000Z");
    expect((end.getTime() - start.getTime()) / 3_600_000).toBe(23);
    // And back on 31 October 2027: 25 hours.
    const autumn =
      instantAt("2027-10-31", 24 * 60, "Europe/Berlin").getTime() -
      instantAt("2027-10-31", 0, "Europe/Berlin").getTime();
    expect(autumn / 3_600_000).toBe(25);
  });
});
