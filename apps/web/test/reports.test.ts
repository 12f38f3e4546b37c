// Plain unit tests (no browser) of the reports page's arithmetic: the default range of full weeks,
// the range's validation, the week columns, the provider × week matrix, the no-show weeks and how
// figures and download addresses are written.
import { describe, expect, it } from "vitest";
import { reportUrl } from "../src/reportDownload.ts";
import {
  type ReportRow,
  clinicLine,
  csvFileName,
  daysFrom,
  defaultRange,
  hours,
  mondayOf,
  noShowWeeks,
  percent,
  rangeProblem,
  utilizationMatrix,
  weekLabel,
  weeksOf,
} from "../src/reports.ts";

const row = (key: string, figures: Partial<ReportRow> = {}): ReportRow => ({
  key,
  label: key,
  available_minutes: 0,
  booked_minutes: 0,
  utilization: null,
  completed: 0,
  no_show: 0,
  no_show_rate: null,
  ...figures,
});

describe("the range", () => {
  it("finds a week's Monday from any of its days", () => {
    expect(mondayOf("2026-11-23")).toBe("2026-11-23");
    expect(mondayOf("2026-11-25")).toBe("2026-11-23");
    expect(mondayOf("2026-11-29")).toBe("2026-11-23");
    // Across a month and a year.
    expect(mondayOf("2027-01-01")).toBe("2026-12-28");
  });

  it("opens on the last eight full weeks before the current one, Monday to Sunday", () => {
    for (const today of ["2026-11-23", "2026-11-25", "2026-11-29"]) {
      expect(defaultRange(today)).toEqual({ from: "2026-09-28", to: "2026-11-22" });
    }
    const { from, to } = defaultRange("2026-03-30");
    expect(daysFrom(from, to) + 1).toBe(56);
    expect(mondayOf(from)).toBe(from);
    expect(weeksOf(from, to)).toHaveLength(8);
    // Over the end of March's DST change the weeks are still whole dates.
    expect(weeksOf(from, to)).toContain("2026-03-23");
  });

  it("refuses a reversed range, one longer than 366 days and a missing day, naming the field", () => {
    expect(rangeProblem("2026-01-01", "2026-01-31")).toBeUndefined();
    expect(rangeProblem("2026-01-01", "2026-01-01")).toBeUndefined();
    expect(rangeProblem("2026-02-01", "2026-01-31")).toEqual({
      field: "to",
      message: "The last day is before the first day: choose a later last day.",
    });
    // A leap year's 366 days are fine; one more is not.
    expect(rangeProblem("2024-01-01", "2024-12-31")).toBeUndefined();
    expect(rangeProblem("2024-01-01", "2025-01-01")).toEqual({
      field: "to",
      message: "A report covers at most 366 days; this range has 367. Choose a shorter range.",
    });
    expect(rangeProblem("", "2026-01-31")?.field).toBe("from");
    expect(rangeProblem("2026-01-01", "")?.field).toBe("to");
    expect(rangeProblem("2026-02-30", "2026-03-01")?.field).toBe("from");
  });

  it("lists the Mondays of every week the range touches", () => {
    expect(weeksOf("2026-11-25", "2026-12-07")).toEqual(["2026-11-23", "2026-11-30", "2026-12-07"]);
    expect(weeksOf("2026-11-23", "2026-11-29")).toEqual(["2026-11-23"]);
    expect(weekLabel("2026-11-23")).toBe("23 Nov");
    expect(weekLabel("2026-12-28", true)).toBe("28 Dec 2026");
  });
});

describe("the tables' figures", () => {
  const weeks = ["2026-11-02", "2026-11-09", "2026-11-16"];

  it("lays out utilization per provider and week, a missing week as null, in the providers' order", () => {
    const providers = [
      row("ben", { label: "Ben Koch", utilization: 0.25 }),
      row("anna", { label: "Anna Berg", utilization: null }),
    ];
    const weekly = new Map([
      [
        "ben",
        // A first week clipped by the range may carry its first day as key: it is still that week.
        [row("2026-11-04", { utilization: 0.5 }), row("2026-11-16", { utilization: 0 })],
      ],
    ]);
    expect(utilizationMatrix(weeks, providers, weekly)).toEqual([
      { key: "ben", label: "Ben Koch", weeks: [0.5, null, 0], total: 0.25 },
      { key: "anna", label: "Anna Berg", weeks: [null, null, null], total: null },
    ]);
  });

  it("gives the clinic's weeks as the API does, and its whole range as booked over available", () => {
    const weekly = [
      row("2026-11-02", { available_minutes: 600, booked_minutes: 300, utilization: 0.5 }),
      row("2026-11-16", { available_minutes: 200, booked_minutes: 100, utilization: 0.5 }),
      row("2026-11-09", { available_minutes: 200, booked_minutes: 0, utilization: 0 }),
    ];
    expect(clinicLine(weeks, weekly, "All providers")).toEqual({
      key: "all",
      label: "All providers",
      weeks: [0.5, 0, 0.5],
      total: 0.4,
    });
    expect(clinicLine(weeks, [], "All providers").total).toBeNull();
  });

  it("counts no-shows per week, with the whole range's rate; null when nothing was completed or missed", () => {
    const weekly = [
      row("2026-11-02", { completed: 3, no_show: 1, no_show_rate: 0.25 }),
      row("2026-11-09", { completed: 0, no_show: 2, no_show_rate: 1 }),
    ];
    const { weeks: lines, total } = noShowWeeks(weeks, weekly);
    expect(lines).toEqual([
      { week: "2026-11-02", completed: 3, no_show: 1, rate: 0.25 },
      { week: "2026-11-09", completed: 0, no_show: 2, rate: 1 },
      { week: "2026-11-16", completed: 0, no_show: 0, rate: null },
    ]);
    expect(total).toEqual({ week: "total", completed: 3, no_show: 3, rate: 0.5 });
    expect(noShowWeeks(weeks, []).total.rate).toBeNull();
  });

  it("writes ratios as percentages to one decimal and minutes as hours", () => {
    expect(percent(0.4567)).toBe("45.7%");
    expect(percent(1 / 3)).toBe("33.3%");
    expect(percent(0)).toBe("0%");
    expect(percent(1.2)).toBe("120%");
    expect(percent(null)).toBeNull();
    expect(hours(150)).toBe("2.5 h");
    expect(hours(3360)).toBe("56 h");
  });
});

describe("the downloads", () => {
  it("asks the /v1 route with the range, leaving out what is not set, and names the file by it", () => {
    expect(
      reportUrl("c1", "utilization", {
        from: "2026-11-02",
        to: "2026-11-22",
        group_by: "week",
        provider_id: undefined,
      }),
    ).toBe("/v1/clinics/c1/reports/utilization?from=2026-11-02&to=2026-11-22&group_by=week");
    expect(reportUrl("c1", "appointments", { from: "2026-11-02", to: "2026-11-22" })).toBe(
      "/v1/clinics/c1/reports/appointments?from=2026-11-02&to=2026-11-22",
    );
    expect(csvFileName("appointments", "2026-11-02", "2026-11-22")).toBe("appointments_2026-11-02_2026-11-22.csv");
  });
});
