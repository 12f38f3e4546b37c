import { describe, expect, it } from "vitest";
import { type Rrule, type SeriesStart, expandRrule, parseRrule } from "../../src/domain/rrule.ts";

const iso = (ms: number) => new Date(ms).toISOString();
const H = (h: number, m = 0) => h * 60 + m;

function rule(text: string): Rrule {
  const parsed = parseRrule(text);
  if (!parsed.ok) throw new Error(`${parsed.part}: ${parsed.message}`);
  return parsed.rule;
}

/** The occurrences as `date UTC-instant`, or the error as `part: message`. */
function expand(text: string, start: SeriesStart, tz: string): string[] {
  const result = expandRrule(rule(text), start, tz);
  if (!result.ok) throw new Error(`${result.part}: ${result.message}`);
  return result.occurrences.map((o) => `${o.date} ${iso(o.startMs).slice(11, 16)}Z`);
}

const dates = (text: string, start: SeriesStart, tz = "UTC") => expand(text, start, tz).map((o) => o.slice(0, 10));

describe("parseRrule", () => {
  it("reads the supported parts, with defaults, an optional RRULE: prefix and any case", () => {
    expect(parseRrule("RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10")).toEqual({
      ok: true,
      rule: { freq: "WEEKLY", interval: 1, byDay: ["TU"], weekStart: "MO", end: { kind: "count", count: 10 } },
    });
    expect(parseRrule("rrule:freq=daily;interval=2;byday=fr,mo;wkst=su;until=20270101")).toEqual({
      ok: true,
      rule: {
        freq: "DAILY",
        interval: 2,
        byDay: ["MO", "FR"],
        weekStart: "SU",
        end: { kind: "untilDate", date: "2027-01-01" },
      },
    });
    expect(parseRrule("FREQ=WEEKLY;UNTIL=20261027T080000Z")).toEqual({
      ok: true,
      rule: {
        freq: "WEEKLY",
        interval: 1,
        byDay: [],
        weekStart: "MO",
        end: { kind: "untilInstant", ms: Date.parse("2026-10-27T08:00:00Z") },
      },
    });
  });

  it("accepts the limits and the order of parts does not matter", () => {
    expect(parseRrule("COUNT=104;INTERVAL=52;FREQ=WEEKLY").ok).toBe(true);
    expect(parseRrule("COUNT=1;INTERVAL=1;FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR,SA,SU").ok).toBe(true);
    expect(parseRrule("FREQ=DAILY;UNTIL=20280229T235959Z").ok).toBe(true);
  });

  it.each([
    ["", "rrule"],
    ["   ", "rrule"],
    ["RRULE:", "rrule"],
    ["FREQ", "rrule"],
    ["FREQ=WEEKLY;;COUNT=3", "rrule"],
    ["FREQ=WEEKLY;COUNT=3;", "rrule"],
    ["=WEEKLY;COUNT=3", "rrule"],
    ["FREQ WEEKLY=1;COUNT=3", "rrule"],
    ["COUNT=3", "FREQ"],
    ["FREQ=MONTHLY;COUNT=3", "FREQ"],
    ["FREQ=YEARLY;COUNT=3", "FREQ"],
    ["FREQ=HOURLY;COUNT=3", "FREQ"],
    ["FREQ=FORTNIGHTLY;COUNT=3", "FREQ"],
    ["FREQ=;COUNT=3", "FREQ"],
    ["FREQ=WEEKLY;FREQ=DAILY;COUNT=3", "FREQ"],
    ["FREQ=WEEKLY;INTERVAL=0;COUNT=3", "INTERVAL"],
    ["FREQ=WEEKLY;INTERVAL=53;COUNT=3", "INTERVAL"],
    ["FREQ=WEEKLY;INTERVAL=-1;COUNT=3", "INTERVAL"],
    ["FREQ=WEEKLY;INTERVAL=1.5;COUNT=3", "INTERVAL"],
    ["FREQ=WEEKLY;INTERVAL=;COUNT=3", "INTERVAL"],
    ["FREQ=WEEKLY;INTERVAL=2;INTERVAL=2;COUNT=3", "INTERVAL"],
    ["FREQ=WEEKLY;BYDAY=1MO;COUNT=3", "BYDAY"],
    ["FREQ=WEEKLY;BYDAY=-1FR;COUNT=3", "BYDAY"],
    ["FREQ=WEEKLY;BYDAY=+2TU;COUNT=3", "BYDAY"],
    ["FREQ=WEEKLY;BYDAY=MO,MO;COUNT=3", "BYDAY"],
    ["FREQ=WEEKLY;BYDAY=MON;COUNT=3", "BYDAY"],
    ["FREQ=WEEKLY;BYDAY=MO,;COUNT=3", "BYDAY"],
    ["FREQ=WEEKLY;BYDAY=;COUNT=3", "BYDAY"],
    ["FREQ=WEEKLY;BYDAY=MO;BYDAY=TU;COUNT=3", "BYDAY"],
    ["FREQ=WEEKLY;WKST=XX;COUNT=3", "WKST"],
    ["FREQ=WEEKLY;WKST=MO,TU;COUNT=3", "WKST"],
    ["FREQ=WEEKLY", "COUNT"],
    ["FREQ=WEEKLY;COUNT=3;UNTIL=20270101", "COUNT"],
    ["FREQ=WEEKLY;COUNT=0", "COUNT"],
    ["FREQ=WEEKLY;COUNT=105", "COUNT"],
    ["FREQ=WEEKLY;COUNT=ten", "COUNT"],
    ["FREQ=WEEKLY;COUNT=3;COUNT=3", "COUNT"],
    ["FREQ=WEEKLY;UNTIL=20270101T090000", "UNTIL"],
    ["FREQ=WEEKLY;UNTIL=2027-01-01", "UNTIL"],
    ["FREQ=WEEKLY;UNTIL=20270230", "UNTIL"],
    ["FREQ=WEEKLY;UNTIL=20271301", "UNTIL"],
    ["FREQ=WEEKLY;UNTIL=20270101T250000Z", "UNTIL"],
    ["FREQ=WEEKLY;UNTIL=20270101T0900Z", "UNTIL"],
    ["FREQ=WEEKLY;UNTIL=20270101;UNTIL=20270102", "UNTIL"],
    ["FREQ=WEEKLY;COUNT=3;BYMONTH=1", "BYMONTH"],
    ["FREQ=WEEKLY;COUNT=3;BYMONTHDAY=1", "BYMONTHDAY"],
    ["FREQ=WEEKLY;COUNT=3;BYDAY=MO;BYSETPOS=1", "BYSETPOS"],
    ["FREQ=WEEKLY;COUNT=3;BYHOUR=9", "BYHOUR"],
    ["FREQ=WEEKLY;COUNT=3;byminute=0", "BYMINUTE"],
    ["FREQ=WEEKLY;COUNT=3;BYSECOND=0", "BYSECOND"],
    ["FREQ=WEEKLY;COUNT=3;BYYEARDAY=1", "BYYEARDAY"],
    ["FREQ=WEEKLY;COUNT=3;BYWEEKNO=1", "BYWEEKNO"],
    ["FREQ=WEEKLY;COUNT=3;FOO=1", "FOO"],
    ["FREQ=WEEKLY;COUNT=3;X-NAME=1", "X-NAME"],
    ["FREQ=WEEKLY;COUNT=3;DTSTART=20270101", "DTSTART"],
  ])("refuses %j naming %s", (text, part) => {
    const parsed = parseRrule(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.part).toBe(part);
      expect(parsed.message.length).toBeGreaterThan(0);
    }
  });

  it("says what is supported, what is wrong and what is required", () => {
    const message = (text: string) => {
      const parsed = parseRrule(text);
      return parsed.ok ? "" : parsed.message;
    };
    expect(message("FREQ=MONTHLY;COUNT=3")).toMatch(/DAILY and WEEKLY/);
    expect(message("FREQ=WEEKLY;INTERVAL=60;COUNT=3")).toMatch(/1 to 52/);
    expect(message("FREQ=WEEKLY;COUNT=200")).toMatch(/1 to 104/);
    expect(message("FREQ=WEEKLY")).toMatch(/exactly one of COUNT or UNTIL/);
    expect(message("FREQ=WEEKLY;COUNT=3;UNTIL=20270101")).toMatch(/exactly one of COUNT or UNTIL/);
    expect(message("FREQ=WEEKLY;BYDAY=1MO;COUNT=3")).toMatch(/ordinal/);
    expect(message("FREQ=WEEKLY;UNTIL=20270101T090000")).toMatch(/Z/);
    expect(message("FREQ=WEEKLY;COUNT=3;BYMONTH=1")).toMatch(/not supported/);
    expect(message("FREQ=WEEKLY;COUNT=3;COUNT=3")).toMatch(/more than once/);
    // Client text is echoed clipped, so a huge value cannot blow up the message.
    expect(message(`FREQ=WEEKLY;COUNT=3;${"A".repeat(500)}=1`).length).toBeLessThan(100);
  });
});

describe("expandRrule", () => {
  it("keeps 09:00 in Berlin for ten Tuesdays across the end of DST on 2026-10-25", () => {
    expect(expand("FREQ=WEEKLY;BYDAY=TU;COUNT=10", { date: "2026-10-06", minutes: H(9) }, "Europe/Berlin")).toEqual([
      "2026-10-06 07:00Z",
      "2026-10-13 07:00Z",
      "2026-10-20 07:00Z",
      "2026-10-27 08:00Z",
      "2026-11-03 08:00Z",
      "2026-11-10 08:00Z",
      "2026-11-17 08:00Z",
      "2026-11-24 08:00Z",
      "2026-12-01 08:00Z",
      "2026-12-08 08:00Z",
    ]);
  });

  it("keeps the wall-clock time in New York across 2026-03-08 and 2026-11-01", () => {
    // Weekly on Sundays at 09:00: the change days themselves are occurrences.
    expect(expand("FREQ=WEEKLY;COUNT=3", { date: "2026-03-01", minutes: H(9) }, "America/New_York")).toEqual([
      "2026-03-01 14:00Z",
      "2026-03-08 13:00Z",
      "2026-03-15 13:00Z",
    ]);
    expect(expand("FREQ=WEEKLY;COUNT=3", { date: "2026-10-25", minutes: H(9) }, "America/New_York")).toEqual([
      "2026-10-25 13:00Z",
      "2026-11-01 14:00Z",
      "2026-11-08 14:00Z",
    ]);
    // 01:30 happens twice on 2026-11-01: the earlier (EDT) instant; 02:30 does not exist on 2026-03-08.
    expect(expand("FREQ=DAILY;COUNT=3", { date: "2026-10-31", minutes: H(1, 30) }, "America/New_York")).toEqual([
      "2026-10-31 05:30Z",
      "2026-11-01 05:30Z",
      "2026-11-02 06:30Z",
    ]);
    expect(expand("FREQ=DAILY;COUNT=3", { date: "2026-03-07", minutes: H(2, 30) }, "America/New_York")).toEqual([
      "2026-03-07 07:30Z",
      "2026-03-08 07:30Z",
      "2026-03-09 06:30Z",
    ]);
  });

  it("moves a wall time in the spring-forward gap forward: 02:30 Berlin on 2026-03-29 is 03:30 CEST", () => {
    expect(expand("FREQ=DAILY;COUNT=3", { date: "2026-03-28", minutes: H(2, 30) }, "Europe/Berlin")).toEqual([
      "2026-03-28 01:30Z",
      "2026-03-29 01:30Z",
      "2026-03-30 00:30Z",
    ]);
    // The gap day as the start itself.
    expect(expand("FREQ=WEEKLY;COUNT=2", { date: "2026-03-29", minutes: H(2, 30) }, "Europe/Berlin")).toEqual([
      "2026-03-29 01:30Z",
      "2026-04-05 00:30Z",
    ]);
  });

  it("DAILY with INTERVAL=2 takes every other day; BYDAY limits it", () => {
    expect(dates("FREQ=DAILY;INTERVAL=2;COUNT=5", { date: "2026-01-30", minutes: H(8) })).toEqual([
      "2026-01-30",
      "2026-02-01",
      "2026-02-03",
      "2026-02-05",
      "2026-02-07",
    ]);
    // Every day Monday to Friday, from a Thursday.
    expect(dates("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=4", { date: "2026-01-01", minutes: H(8) })).toEqual([
      "2026-01-01",
      "2026-01-02",
      "2026-01-05",
      "2026-01-06",
    ]);
  });

  it("WEEKLY;INTERVAL=2;BYDAY=MO,TH takes Monday and Thursday of every other week", () => {
    expect(dates("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=6", { date: "2026-01-05", minutes: H(9) })).toEqual([
      "2026-01-05",
      "2026-01-08",
      "2026-01-19",
      "2026-01-22",
      "2026-02-02",
      "2026-02-05",
    ]);
    // From the Thursday: the Monday before it is in the start's week, but before the start.
    expect(dates("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=3", { date: "2026-01-08", minutes: H(9) })).toEqual([
      "2026-01-08",
      "2026-01-19",
      "2026-01-22",
    ]);
  });

  it("counts weeks from WKST, as in RFC 5545's example (§3.3.10)", () => {
    const start = { date: "1997-08-05", minutes: H(9) };
    expect(dates("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", start, "America/New_York")).toEqual([
      "1997-08-05",
      "1997-08-10",
      "1997-08-19",
      "1997-08-24",
    ]);
    expect(dates("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", start, "America/New_York")).toEqual([
      "1997-08-05",
      "1997-08-17",
      "1997-08-19",
      "1997-08-31",
    ]);
  });

  it("UNTIL as a date includes that local date", () => {
    const start = { date: "2026-10-06", minutes: H(9) };
    expect(dates("FREQ=WEEKLY;UNTIL=20261027", start, "Europe/Berlin")).toEqual([
      "2026-10-06",
      "2026-10-13",
      "2026-10-20",
      "2026-10-27",
    ]);
    expect(dates("FREQ=WEEKLY;UNTIL=20261026", start, "Europe/Berlin")).toHaveLength(3);
    // A late evening in Auckland is the previous day in UTC: the date is the clinic's local date.
    expect(dates("FREQ=DAILY;UNTIL=20261008", { date: "2026-10-06", minutes: H(23) }, "Pacific/Auckland")).toEqual([
      "2026-10-06",
      "2026-10-07",
      "2026-10-08",
    ]);
    expect(dates("FREQ=DAILY;UNTIL=20261006", { date: "2026-10-06", minutes: H(9) })).toEqual(["2026-10-06"]);
  });

  it("UNTIL as a UTC date-time includes an occurrence starting exactly then", () => {
    const start = { date: "2026-10-06", minutes: H(9) };
    // 09:00 in Berlin on 2026-10-27 (CET) is 08:00Z.
    expect(expand("FREQ=WEEKLY;UNTIL=20261027T080000Z", start, "Europe/Berlin")).toEqual([
      "2026-10-06 07:00Z",
      "2026-10-13 07:00Z",
      "2026-10-20 07:00Z",
      "2026-10-27 08:00Z",
    ]);
    expect(expand("FREQ=WEEKLY;UNTIL=20261027T075959Z", start, "Europe/Berlin")).toHaveLength(3);
    expect(expand("FREQ=WEEKLY;UNTIL=20261006T070000Z", start, "Europe/Berlin")).toEqual(["2026-10-06 07:00Z"]);
  });

  it("allows UNTIL up to two calendar years after the start, not before it", () => {
    const start = { date: "2026-03-10", minutes: H(9) };
    const result = (text: string, s = start) => expandRrule(rule(text), s, "Europe/Berlin");
    const partOf = (text: string, s = start) => {
      const r = result(text, s);
      return r.ok ? "ok" : r.part;
    };
    expect(partOf("FREQ=WEEKLY;UNTIL=20280310")).toBe("ok");
    expect(partOf("FREQ=WEEKLY;UNTIL=20280311")).toBe("UNTIL");
    expect(partOf("FREQ=WEEKLY;UNTIL=20260310")).toBe("ok");
    expect(partOf("FREQ=WEEKLY;UNTIL=20260309")).toBe("UNTIL");
    // 09:00 Berlin is 08:00Z in March 2028 (CET) and 2026-03-10.
    expect(partOf("FREQ=WEEKLY;UNTIL=20280310T080000Z")).toBe("ok");
    expect(partOf("FREQ=WEEKLY;UNTIL=20280310T080001Z")).toBe("UNTIL");
    expect(partOf("FREQ=WEEKLY;UNTIL=20260310T080000Z")).toBe("ok");
    expect(partOf("FREQ=WEEKLY;UNTIL=20260310T075959Z")).toBe("UNTIL");
    // Two years after 29 February is 28 February.
    const leap = { date: "2028-02-29", minutes: H(9) };
    expect(partOf("FREQ=DAILY;UNTIL=20300228", leap)).toBe("ok");
    expect(partOf("FREQ=DAILY;UNTIL=20300301", leap)).toBe("UNTIL");
    // A DAILY series over the full two years: every date, both ends included.
    const daily = result("FREQ=DAILY;UNTIL=20280310");
    expect(daily.ok && daily.occurrences.length).toBe(731 + 1);
    const tooLate = result("FREQ=WEEKLY;UNTIL=20290101");
    expect(!tooLate.ok && tooLate.message).toMatch(/2 years.*2028-03-10/);
  });

  it("refuses a BYDAY without the start's weekday, naming BYDAY and the weekday", () => {
    // 2026-01-06 is a Tuesday.
    const result = expandRrule(rule("FREQ=WEEKLY;BYDAY=MO,TH;COUNT=4"), { date: "2026-01-06", minutes: H(9) }, "UTC");
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.part).toBe("BYDAY");
      expect(result.message).toMatch(/\bTU\b/);
    }
    const daily = expandRrule(rule("FREQ=DAILY;BYDAY=SA,SU;COUNT=4"), { date: "2026-01-06", minutes: H(9) }, "UTC");
    expect(!daily.ok && daily.part).toBe("BYDAY");
  });

  it("runs COUNT to its end however far that is", () => {
    const far = dates("FREQ=WEEKLY;INTERVAL=52;COUNT=104", { date: "2026-01-05", minutes: H(9) });
    expect(far).toHaveLength(104);
    expect(far[103]).toBe("2128-08-30");
  });

  it("throws RangeError for a start or zone that are not values at all", () => {
    const weekly = rule("FREQ=WEEKLY;COUNT=2");
    expect(() => expandRrule(weekly, { date: "2026-02-30", minutes: 0 }, "UTC")).toThrow(RangeError);
    expect(() => expandRrule(weekly, { date: "2026-02-03", minutes: 1440 }, "UTC")).toThrow(RangeError);
    expect(() => expandRrule(weekly, { date: "2026-02-03", minutes: 1.5 }, "UTC")).toThrow(RangeError);
    expect(() => expandRrule(weekly, { date: "2026-02-03", minutes: 0 }, "Mars/Olympus")).toThrow(RangeError);
  });
});
