import { describe, expect, it } from "vitest";
import { type BusyOptions, CalendarDataError, busyFromICalendar } from "../../src/domain/icalBusy.ts";

/** A calendar of the given components, CRLF as RFC 5545 writes it. */
const ics = (...components: string[]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//busy//EN", ...components, "END:VCALENDAR", ""].join("\r\n");
const vevent = (...lines: string[]) => ["BEGIN:VEVENT", ...lines, "END:VEVENT"].join("\r\n");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const at = (text: string) => Date.parse(text);

const march: BusyOptions = {
  fromMs: at("2026-03-01T00:00:00Z"),
  toMs: at("2026-04-15T00:00:00Z"),
  timeZone: "Europe/Berlin",
};
const year: BusyOptions = {
  fromMs: at("2026-01-01T00:00:00Z"),
  toMs: at("2027-01-01T00:00:00Z"),
  timeZone: "Europe/Berlin",
};

/** The busy intervals as "start/end" in UTC. */
function busy(text: string, options: Partial<BusyOptions> = {}): string[] {
  return busyFromICalendar(text, { ...march, ...options }).map((i) => `${iso(i.start)}/${iso(i.end)}`);
}

/** The CalendarDataError message busyFromICalendar throws, or "no error". */
function failure(text: string, options: Partial<BusyOptions> = {}): string {
  try {
    busyFromICalendar(text, { ...march, ...options });
    return "no error";
  } catch (error) {
    expect(error).toBeInstanceOf(CalendarDataError);
    return error instanceof Error ? error.message : String(error);
  }
}

const berlinEvent = (uid: string, start: string, end: string, ...extra: string[]) =>
  vevent(`UID:${uid}`, `DTSTART;TZID=Europe/Berlin:${start}`, `DTEND;TZID=Europe/Berlin:${end}`, ...extra);

describe("what is busy", () => {
  it("an opaque VEVENT, at its TZID's instants (CET in March, CEST in July)", () => {
    expect(
      busy(
        ics(
          berlinEvent("a", "20260310T090000", "20260310T100000"),
          berlinEvent("b", "20260710T090000", "20260710T093000"),
        ),
        year,
      ),
    ).toEqual(["2026-03-10T08:00:00Z/2026-03-10T09:00:00Z", "2026-07-10T07:00:00Z/2026-07-10T07:30:00Z"]);
  });

  it("not TRANSP:TRANSPARENT, not STATUS:CANCELLED; OPAQUE, TENTATIVE and CONFIRMED are busy", () => {
    const text = ics(
      berlinEvent("transparent", "20260310T090000", "20260310T100000", "TRANSP:TRANSPARENT"),
      berlinEvent("cancelled", "20260311T090000", "20260311T100000", "STATUS:CANCELLED"),
      berlinEvent("opaque", "20260312T090000", "20260312T100000", "TRANSP:OPAQUE"),
      berlinEvent("tentative", "20260313T090000", "20260313T100000", "STATUS:TENTATIVE"),
      berlinEvent("confirmed", "20260314T090000", "20260314T100000", "STATUS:CONFIRMED"),
    );
    expect(busy(text)).toEqual([
      "2026-03-12T08:00:00Z/2026-03-12T09:00:00Z",
      "2026-03-13T08:00:00Z/2026-03-13T09:00:00Z",
      "2026-03-14T08:00:00Z/2026-03-14T09:00:00Z",
    ]);
  });

  it("VFREEBUSY periods that are not FREE (BUSY by default), as start/end or start/duration", () => {
    const text = ics(
      [
        "BEGIN:VFREEBUSY",
        "UID:fb",
        "DTSTART:20260301T000000Z",
        "DTEND:20260401T000000Z",
        "FREEBUSY:20260310T080000Z/20260310T090000Z,20260311T080000Z/PT30M",
        "FREEBUSY;FBTYPE=FREE:20260312T080000Z/PT8H",
        "FREEBUSY;FBTYPE=BUSY-TENTATIVE:20260313T080000Z/PT1H",
        "FREEBUSY;FBTYPE=BUSY-UNAVAILABLE:20260314T080000Z/PT1H",
        "FREEBUSY;FBTYPE=BUSY:20260315T080000Z/20260315T081500Z",
        "END:VFREEBUSY",
      ].join("\r\n"),
    );
    expect(busy(text)).toEqual([
      "2026-03-10T08:00:00Z/2026-03-10T09:00:00Z",
      "2026-03-11T08:00:00Z/2026-03-11T08:30:00Z",
      "2026-03-13T08:00:00Z/2026-03-13T09:00:00Z",
      "2026-03-14T08:00:00Z/2026-03-14T09:00:00Z",
      "2026-03-15T08:00:00Z/2026-03-15T08:15:00Z",
    ]);
  });

  it("not the events whose UID ignoreUid matches, overrides included", () => {
    const text = ics(
      berlinEvent("appointment-42@clinic.example", "20260310T090000", "20260310T100000", "RRULE:FREQ=DAILY;COUNT=2"),
      vevent(
        "UID:appointment-42@clinic.example",
        "RECURRENCE-ID;TZID=Europe/Berlin:20260311T090000",
        "DTSTART;TZID=Europe/Berlin:20260312T090000",
        "DURATION:PT1H",
      ),
      berlinEvent("personal@example.com", "20260310T120000", "20260310T130000"),
    );
    const ignoreUid = (uid: string) => uid.endsWith("@clinic.example");
    expect(busy(text, { ignoreUid })).toEqual(["2026-03-10T11:00:00Z/2026-03-10T12:00:00Z"]);
    expect(busy(text)).toHaveLength(3);
  });
});

describe("recurrence", () => {
  it("RRULE in the event's wall clock: a weekly 09:00 in Berlin stays 09:00 across the DST change", () => {
    const text = ics(berlinEvent("w", "20260319T090000", "20260319T100000", "RRULE:FREQ=WEEKLY;COUNT=3"));
    expect(busy(text)).toEqual([
      "2026-03-19T08:00:00Z/2026-03-19T09:00:00Z",
      "2026-03-26T08:00:00Z/2026-03-26T09:00:00Z",
      "2026-04-02T07:00:00Z/2026-04-02T08:00:00Z",
    ]);
  });

  it("UNTIL in UTC includes the instance starting at that instant (after the change: 07:00Z)", () => {
    const text = ics(
      berlinEvent("u", "20260319T090000", "20260319T100000", "RRULE:FREQ=WEEKLY;UNTIL=20260402T070000Z"),
    );
    expect(busy(text)).toHaveLength(3);
    const earlier = ics(
      berlinEvent("u", "20260319T090000", "20260319T100000", "RRULE:FREQ=WEEKLY;UNTIL=20260402T065959Z"),
    );
    expect(busy(earlier)).toHaveLength(2);
  });

  it("RDATE adds date-times and periods (a period has its own length) to a timed series, dates to an all-day one", () => {
    const timed = ics(
      vevent(
        "UID:r",
        "DTSTART;TZID=Europe/Berlin:20260310T090000",
        "DURATION:PT1H",
        "RDATE;TZID=Europe/Berlin:20260312T140000,20260402T140000",
        "RDATE;VALUE=PERIOD:20260313T100000Z/20260313T123000Z,20260314T100000Z/PT15M",
      ),
    );
    expect(busy(timed)).toEqual([
      "2026-03-10T08:00:00Z/2026-03-10T09:00:00Z",
      "2026-03-12T13:00:00Z/2026-03-12T14:00:00Z",
      "2026-03-13T10:00:00Z/2026-03-13T12:30:00Z",
      "2026-03-14T10:00:00Z/2026-03-14T10:15:00Z",
      "2026-04-02T12:00:00Z/2026-04-02T13:00:00Z",
    ]);
    const allDay = ics(vevent("UID:d", "DTSTART;VALUE=DATE:20260310", "RDATE;VALUE=DATE:20260320"));
    expect(busy(allDay)).toEqual([
      "2026-03-09T23:00:00Z/2026-03-10T23:00:00Z",
      "2026-03-19T23:00:00Z/2026-03-20T23:00:00Z",
    ]);
  });

  it("EXDATE removes instances named in the series' zone, in UTC or by date; a stale or repeated one hides nothing else", () => {
    const text = ics(
      berlinEvent(
        "x",
        "20260310T090000",
        "20260310T100000",
        "RRULE:FREQ=DAILY;COUNT=7",
        "EXDATE;TZID=Europe/Berlin:20260311T090000",
        "EXDATE:20260312T080000Z",
        "EXDATE;VALUE=DATE:20260313",
        "EXDATE:20260313T080000Z",
        "EXDATE;TZID=Europe/Berlin:20260314T100000",
        "EXDATE;TZID=Europe/Berlin:20260315T090000",
      ),
    );
    expect(busy(text)).toEqual([
      "2026-03-10T08:00:00Z/2026-03-10T09:00:00Z",
      "2026-03-14T08:00:00Z/2026-03-14T09:00:00Z",
      "2026-03-16T08:00:00Z/2026-03-16T09:00:00Z",
    ]);
  });

  it("RECURRENCE-ID replaces its instance: moved, or removed when CANCELLED or TRANSPARENT, in any zone", () => {
    const text = ics(
      berlinEvent("m", "20260302T090000", "20260302T100000", "RRULE:FREQ=WEEKLY;COUNT=5"),
      vevent(
        "UID:m",
        "RECURRENCE-ID;TZID=Europe/Berlin:20260309T090000",
        "DTSTART;TZID=Europe/Berlin:20260310T150000",
        "DTEND;TZID=Europe/Berlin:20260310T163000",
      ),
      vevent("UID:m", "RECURRENCE-ID:20260316T080000Z", "DTSTART:20260316T080000Z", "STATUS:CANCELLED"),
      vevent(
        "UID:m",
        "RECURRENCE-ID;TZID=America/New_York:20260323T040000",
        "DTSTART;TZID=Europe/Berlin:20260323T090000",
        "DURATION:PT1H",
        "TRANSP:TRANSPARENT",
      ),
    );
    expect(busy(text)).toEqual([
      "2026-03-02T08:00:00Z/2026-03-02T09:00:00Z",
      "2026-03-10T14:00:00Z/2026-03-10T15:30:00Z",
      "2026-03-30T07:00:00Z/2026-03-30T08:00:00Z",
    ]);
  });

  it("an override counts where it moved to: into the window from after it, not where it was", () => {
    const text = ics(
      berlinEvent("daily", "20260301T090000", "20260301T100000", "RRULE:FREQ=DAILY"),
      vevent(
        "UID:daily",
        "RECURRENCE-ID;TZID=Europe/Berlin:20260320T090000",
        "DTSTART;TZID=Europe/Berlin:20260311T120000",
        "DTEND;TZID=Europe/Berlin:20260311T130000",
      ),
      vevent(
        "UID:daily",
        "RECURRENCE-ID;TZID=Europe/Berlin:20260310T090000",
        "DTSTART;TZID=Europe/Berlin:20260325T090000",
        "DTEND;TZID=Europe/Berlin:20260325T100000",
      ),
    );
    expect(busy(text, { fromMs: at("2026-03-10T00:00:00Z"), toMs: at("2026-03-12T00:00:00Z") })).toEqual([
      "2026-03-11T08:00:00Z/2026-03-11T09:00:00Z",
      "2026-03-11T11:00:00Z/2026-03-11T12:00:00Z",
    ]);
  });

  it("a cancelled series takes its overrides along; a transparent one keeps its opaque overrides busy", () => {
    const override = (uid: string) =>
      vevent(
        `UID:${uid}`,
        "RECURRENCE-ID;TZID=Europe/Berlin:20260311T090000",
        "DTSTART;TZID=Europe/Berlin:20260311T110000",
        "DURATION:PT1H",
      );
    const text = ics(
      berlinEvent("gone", "20260310T090000", "20260310T100000", "RRULE:FREQ=DAILY;COUNT=3", "STATUS:CANCELLED"),
      override("gone"),
      berlinEvent("free", "20260310T090000", "20260310T100000", "RRULE:FREQ=DAILY;COUNT=3", "TRANSP:TRANSPARENT"),
      override("free"),
    );
    expect(busy(text)).toEqual(["2026-03-11T10:00:00Z/2026-03-11T11:00:00Z"]);
  });

  it("an override without its master in the feed is busy by itself; one of another UID leaves a series alone", () => {
    const text = ics(
      vevent(
        "UID:orphan",
        "RECURRENCE-ID;TZID=Europe/Berlin:20260310T090000",
        "DTSTART;TZID=Europe/Berlin:20260310T090000",
        "DURATION:PT1H",
      ),
      berlinEvent("series", "20260311T090000", "20260311T100000", "RRULE:FREQ=DAILY;COUNT=2"),
      vevent(
        "UID:other",
        "RECURRENCE-ID;TZID=Europe/Berlin:20260312T090000",
        "DTSTART:20260312T100000Z",
        "STATUS:CANCELLED",
      ),
    );
    expect(busy(text)).toEqual([
      "2026-03-10T08:00:00Z/2026-03-10T09:00:00Z",
      "2026-03-11T08:00:00Z/2026-03-11T09:00:00Z",
      "2026-03-12T08:00:00Z/2026-03-12T09:00:00Z",
    ]);
  });

  it("an unbounded RRULE from long ago costs a few steps, and an instance begun before the window counts", () => {
    // maxOccurrences 10 allows 20 expansion steps: stepping through the instances since 2000 would throw.
    const text = ics(
      vevent("UID:night", "DTSTART;TZID=Europe/Berlin:20000101T220000", "DURATION:PT4H", "RRULE:FREQ=DAILY"),
      vevent(
        "UID:weekly",
        "DTSTART;TZID=Europe/Berlin:20050110T120000",
        "DURATION:PT1H",
        "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU",
      ),
    );
    const window = { fromMs: at("2026-03-09T00:00:00Z"), toMs: at("2026-03-11T00:00:00Z"), maxOccurrences: 10 };
    // 2005-01-10 is a Monday; 2026-03-09 is 1104 weeks later, an even number: an "on" week.
    expect(busy(text, window)).toEqual([
      "2026-03-09T00:00:00Z/2026-03-09T01:00:00Z",
      "2026-03-09T11:00:00Z/2026-03-09T12:00:00Z",
      "2026-03-09T21:00:00Z/2026-03-10T01:00:00Z",
      "2026-03-10T11:00:00Z/2026-03-10T12:00:00Z",
      "2026-03-10T21:00:00Z/2026-03-11T00:00:00Z",
    ]);
  });
});

describe("times", () => {
  it("an all-day event blocks the clinic's local day: in Berlin 29 March 2026 lasts 23 hours, 25 October 25 hours", () => {
    const text = ics(
      vevent("UID:spring", "DTSTART;VALUE=DATE:20260329", "DTEND;VALUE=DATE:20260330"),
      vevent("UID:autumn", "DTSTART;VALUE=DATE:20261025"),
    );
    const [spring, autumn] = busyFromICalendar(text, year);
    expect(spring && iso(spring.start)).toBe("2026-03-28T23:00:00Z");
    expect(spring && spring.end - spring.start).toBe(23 * 3_600_000);
    expect(autumn && iso(autumn.start)).toBe("2026-10-24T22:00:00Z");
    expect(autumn && autumn.end - autumn.start).toBe(25 * 3_600_000);
  });

  it("an all-day event is read in the clinic's zone, whatever zone the calendar names, for as many days as it lasts", () => {
    const text = ics(
      vevent("UID:trip", "DTSTART;VALUE=DATE:20260310", "DTEND;VALUE=DATE:20260313"),
      vevent("UID:course", "DTSTART;VALUE=DATE:20260320", "DURATION:P2D"),
    );
    expect(busy(text, { timeZone: "America/New_York" })).toEqual([
      "2026-03-10T04:00:00Z/2026-03-13T04:00:00Z",
      "2026-03-20T04:00:00Z/2026-03-22T04:00:00Z",
    ]);
  });

  it("floating times in the clinic's zone, UTC times in UTC", () => {
    const text = ics(
      vevent("UID:floating", "DTSTART:20260310T090000", "DTEND:20260310T100000"),
      vevent("UID:utc", "DTSTART:20260311T090000Z", "DTEND:20260311T100000Z"),
    );
    expect(busy(text, { timeZone: "America/New_York" })).toEqual([
      "2026-03-10T13:00:00Z/2026-03-10T14:00:00Z",
      "2026-03-11T09:00:00Z/2026-03-11T10:00:00Z",
    ]);
  });

  it("a TZID that is not IANA follows the document's VTIMEZONE, or the clinic's zone without one", () => {
    const outlook = [
      "BEGIN:VTIMEZONE",
      "TZID:W. Europe Standard Time",
      "BEGIN:STANDARD",
      "DTSTART:16010101T030000",
      "TZOFFSETFROM:+0200",
      "TZOFFSETTO:+0100",
      "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:16010101T020000",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0200",
      "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
      "END:DAYLIGHT",
      "END:VTIMEZONE",
    ].join("\r\n");
    const custom = [
      "BEGIN:VTIMEZONE",
      "TZID:Ward Roster Time",
      "BEGIN:STANDARD",
      "DTSTART:19700101T000000",
      "TZOFFSETFROM:+0530",
      "TZOFFSETTO:+0530",
      "END:STANDARD",
      "END:VTIMEZONE",
    ].join("\r\n");
    const text = ics(
      outlook,
      custom,
      vevent(
        "UID:outlook",
        "DTSTART;TZID=W. Europe Standard Time:20260319T090000",
        "DTEND;TZID=W. Europe Standard Time:20260319T100000",
        "RRULE:FREQ=WEEKLY;COUNT=3",
        "EXDATE:20260326T080000Z",
      ),
      vevent("UID:custom", "DTSTART;TZID=Ward Roster Time:20260310T090000", "DURATION:PT1H"),
      vevent("UID:unknown", "DTSTART;TZID=Nowhere Standard Time:20260311T090000", "DURATION:PT1H"),
    );
    expect(busy(text, { timeZone: "America/New_York" })).toEqual([
      "2026-03-10T03:30:00Z/2026-03-10T04:30:00Z",
      "2026-03-11T13:00:00Z/2026-03-11T14:00:00Z",
      "2026-03-19T08:00:00Z/2026-03-19T09:00:00Z",
      "2026-04-02T07:00:00Z/2026-04-02T08:00:00Z",
    ]);
  });

  it("an IANA TZID is read with Temporal, even when the document's VTIMEZONE says otherwise", () => {
    const wrong = [
      "BEGIN:VTIMEZONE",
      "TZID:Europe/Berlin",
      "BEGIN:STANDARD",
      "DTSTART:19700101T000000",
      "TZOFFSETFROM:+0500",
      "TZOFFSETTO:+0500",
      "END:STANDARD",
      "END:VTIMEZONE",
    ].join("\r\n");
    expect(busy(ics(wrong, berlinEvent("a", "20260310T090000", "20260310T100000")))).toEqual([
      "2026-03-10T08:00:00Z/2026-03-10T09:00:00Z",
    ]);
  });

  it("a time in a spring-forward gap moves forward by the gap; an ambiguous one takes the earlier instant", () => {
    const text = ics(
      vevent("UID:gap", "DTSTART;TZID=Europe/Berlin:20260329T023000", "DURATION:PT30M"),
      vevent("UID:twice", "DTSTART;TZID=Europe/Berlin:20261025T023000", "DURATION:PT30M"),
    );
    expect(busy(text, year)).toEqual([
      "2026-03-29T01:30:00Z/2026-03-29T02:00:00Z",
      "2026-10-25T00:30:00Z/2026-10-25T01:00:00Z",
    ]);
  });

  it("DTEND gives every instance the first one's exact length; DURATION's days are days of the wall clock", () => {
    const text = ics(
      // 23:00 CET to 05:00 CEST is five hours; the next night keeps five: 23:00 to 04:00 CEST.
      berlinEvent("night", "20260328T230000", "20260329T050000", "RRULE:FREQ=DAILY;COUNT=2"),
      // Saturday 12:00 CEST to Sunday 12:00 CET is a 25-hour day, then one exact hour.
      vevent("UID:day", "DTSTART;TZID=Europe/Berlin:20261024T120000", "DURATION:P1DT1H"),
    );
    expect(busy(text, year)).toEqual([
      "2026-03-28T22:00:00Z/2026-03-29T03:00:00Z",
      "2026-03-29T21:00:00Z/2026-03-30T02:00:00Z",
      "2026-10-24T10:00:00Z/2026-10-25T12:00:00Z",
    ]);
  });

  it("without DTEND or DURATION, a timed event blocks nothing and an all-day one its day", () => {
    const text = ics(
      vevent("UID:reminder", "DTSTART;TZID=Europe/Berlin:20260310T090000"),
      vevent("UID:holiday", "DTSTART;VALUE=DATE:20260311"),
    );
    expect(busy(text)).toEqual(["2026-03-10T23:00:00Z/2026-03-11T23:00:00Z"]);
  });
});

describe("window, order and limits", () => {
  it("clips to the window, sorts, and merges overlapping and adjacent intervals", () => {
    const text = ics(
      vevent("UID:late", "DTSTART:20260310T140000Z", "DTEND:20260310T150000Z"),
      vevent("UID:long", "DTSTART:20260309T000000Z", "DTEND:20260310T100000Z"),
      vevent("UID:overlapping", "DTSTART:20260310T093000Z", "DTEND:20260310T113000Z"),
      vevent("UID:adjacent", "DTSTART:20260310T113000Z", "DTEND:20260310T120000Z"),
      vevent("UID:past", "DTSTART:20260308T080000Z", "DTEND:20260308T090000Z"),
      vevent("UID:after", "DTSTART:20260310T180000Z", "DTEND:20260310T190000Z"),
    );
    expect(busy(text, { fromMs: at("2026-03-10T08:00:00Z"), toMs: at("2026-03-10T14:30:00Z") })).toEqual([
      "2026-03-10T08:00:00Z/2026-03-10T12:00:00Z",
      "2026-03-10T14:00:00Z/2026-03-10T14:30:00Z",
    ]);
  });

  it("reads a calendar sent with a byte-order mark and bare LF line ends", () => {
    const text = "\uFEFF" + ics(vevent("UID:a", "DTSTART:20260310T140000Z", "DURATION:PT1H")).replaceAll("\r\n", "\n");
    expect(busy(text)).toEqual(["2026-03-10T14:00:00Z/2026-03-10T15:00:00Z"]);
  });

  it("an empty calendar or window has no busy time", () => {
    expect(busy(ics())).toEqual([]);
    expect(busy(ics(vevent("UID:a", "DTSTART:20260310T140000Z", "DURATION:PT1H")), { toMs: march.fromMs })).toEqual([]);
  });

  it("more events or occurrences than allowed throws, with a short message", () => {
    const three = ics(
      ...["a", "b", "c"].map((uid) => vevent(`UID:${uid}`, "DTSTART:20260310T140000Z", "DURATION:PT1H")),
    );
    expect(failure(three, { maxEvents: 2 })).toBe("more than 2 events");
    expect(failure(three, { maxEvents: 3 })).toBe("no error");
    const many = ics(...Array.from({ length: 20_001 }, (_, i) => vevent(`UID:${i}`, "DTSTART:20260310T140000Z")));
    expect(failure(many)).toBe("more than 20,000 events");
    const daily = ics(vevent("UID:d", "DTSTART:20260310T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=10"));
    expect(failure(daily, { maxOccurrences: 5 })).toBe("more than 5 occurrences");
    expect(failure(daily, { maxOccurrences: 10 })).toBe("no error");
    const everyMinute = ics(vevent("UID:m", "DTSTART:20250101T000000Z", "DURATION:PT1M", "RRULE:FREQ=MINUTELY"));
    expect(failure(everyMinute, { maxOccurrences: 1000 })).toBe("recurrences too costly to expand");
  });

  it("text that is not iCalendar throws 'not iCalendar'; a malformed value throws without quoting it", () => {
    for (const text of [
      "",
      "hello",
      "<html><body>Sign in</body></html>",
      '{"events": []}',
      "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Dr. Example\r\nEND:VCARD\r\n",
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VCALENDAR\r\n",
    ])
      expect(failure(text)).toBe("not iCalendar");
    const secret = ics(vevent("UID:s", "SUMMARY:Therapy with Dr. Secret", "LOCATION:Room 7", "DTSTART:2026-bad-value"));
    expect(failure(secret)).toBe("invalid calendar data");
  });

  it("an unknown clinic zone or an infinite window is the caller's mistake: RangeError", () => {
    expect(() => busyFromICalendar(ics(), { ...march, timeZone: "Mars/Olympus" })).toThrow(RangeError);
    expect(() => busyFromICalendar(ics(), { ...march, toMs: Infinity })).toThrow(RangeError);
  });
});
