import { describe, expect, it } from "vitest";
import { parseRequest, partsOfDay, withoutMention } from "../src/wanted.ts";

const berlin = "Europe/Berlin";
// Wednesday 25 March 2026, 11:00 in Berlin (CET); Berlin moves to CEST on Sunday 29 March.
const wednesday = new Date("2026-03-25T10:00:00Z");

describe("parseRequest", () => {
  it("reads the issue's example: a service, a provider, a weekday and a part of the day", () => {
    const parsed = parseRequest("a deep tissue massage with Anna next Tuesday afternoon", wednesday, berlin);
    expect(parsed.wanted).toEqual({
      from: "2026-03-31",
      to: "2026-03-31",
      preferredDates: ["2026-03-31"],
      partOfDay: partsOfDay.afternoon,
      timeOfDay: undefined,
      defaultRange: false,
    });
    expect(parsed.serviceQuery).toBe("deep tissue massage anna");
    expect(parsed.providerMention).toBe("Anna");
    expect(withoutMention(parsed.serviceQuery, "Anna")).toBe("deep tissue massage");
  });

  it("defaults to the next 7 days from today when the text names no date", () => {
    const parsed = parseRequest("Sports massage please", wednesday, berlin);
    expect(parsed.wanted).toMatchObject({
      from: "2026-03-25",
      to: "2026-03-31",
      preferredDates: [],
      defaultRange: true,
      partOfDay: undefined,
    });
    expect(parsed.serviceQuery).toBe("sports massage");
    expect(parsed.providerMention).toBeUndefined();
  });

  it("keeps a part of the day without a date, over the default week", () => {
    const parsed = parseRequest("physiotherapy assessment in the evening", wednesday, berlin);
    expect(parsed.wanted).toMatchObject({
      from: "2026-03-25",
      to: "2026-03-31",
      defaultRange: true,
      partOfDay: partsOfDay.evening,
    });
    expect(parsed.serviceQuery).toBe("physiotherapy assessment");
  });

  it("reads clock times, assuming daytime for a bare hour", () => {
    expect(parseRequest("physio on friday at 3pm", wednesday, berlin).wanted).toMatchObject({
      from: "2026-03-27",
      to: "2026-03-27",
      timeOfDay: 15 * 60,
    });
    expect(parseRequest("massage friday at 3", wednesday, berlin).wanted.timeOfDay).toBe(15 * 60);
    expect(parseRequest("massage friday afternoon at 5", wednesday, berlin).wanted).toMatchObject({
      timeOfDay: 17 * 60,
      partOfDay: partsOfDay.afternoon,
    });
    expect(parseRequest("massage friday at 9:30", wednesday, berlin).wanted.timeOfDay).toBe(9 * 60 + 30);
    expect(parseRequest("massage at noon", wednesday, berlin).wanted).toMatchObject({
      timeOfDay: 12 * 60,
      defaultRange: true,
    });
  });

  it("reads ranges, weeks, weekends and several days", () => {
    expect(parseRequest("massage from monday to wednesday", wednesday, berlin).wanted).toMatchObject({
      from: "2026-03-30",
      to: "2026-04-01",
    });
    expect(parseRequest("massage next week", wednesday, berlin).wanted).toMatchObject({
      from: "2026-03-30",
      to: "2026-04-05",
    });
    expect(parseRequest("massage this weekend", wednesday, berlin).wanted.preferredDates).toEqual([
      "2026-03-28",
      "2026-03-29",
    ]);
    expect(parseRequest("massage next tuesday or thursday", wednesday, berlin).wanted).toMatchObject({
      from: "2026-03-26",
      to: "2026-03-31",
      preferredDates: ["2026-03-26", "2026-03-31"],
    });
  });

  it("caps a long range at the API's 62 dates", () => {
    const wanted = parseRequest("massage from April 1 to July 31", wednesday, berlin).wanted;
    expect(wanted.from).toBe("2026-04-01");
    expect(wanted.to).toBe("2026-06-01");
  });

  it("finds the provider after 'with' or 'by', without titles or filler", () => {
    expect(parseRequest("massage with Dr. Berg tomorrow", wednesday, berlin).providerMention).toBe("Berg");
    expect(parseRequest("massage with anna berg please", wednesday, berlin).providerMention).toBe("anna berg");
    expect(parseRequest("massage by Ben on Monday", wednesday, berlin).providerMention).toBe("Ben");
    expect(parseRequest("massage next Monday", wednesday, berlin).providerMention).toBeUndefined();
  });
});

describe("parseRequest across Berlin's DST changes (the dates are the clinic's, not UTC's or the machine's)", () => {
  it("takes 'today' from the clinic's clock in the night of the spring change", () => {
    // 23:30 UTC on Saturday 28 March is already 00:30 on Sunday 29 March in Berlin (CET, +1).
    const night = new Date("2026-03-28T23:30:00Z");
    expect(parseRequest("massage tomorrow morning", night, berlin).wanted).toMatchObject({
      from: "2026-03-30",
      to: "2026-03-30",
      partOfDay: partsOfDay.morning,
    });
    expect(parseRequest("massage", night, berlin).wanted).toMatchObject({ from: "2026-03-29", to: "2026-04-04" });
  });

  it("gives the DST week its 7 dates and weekdays", () => {
    const thursday = new Date("2026-03-26T09:00:00Z");
    expect(parseRequest("massage", thursday, berlin).wanted).toMatchObject({ from: "2026-03-26", to: "2026-04-01" });
    expect(parseRequest("massage on sunday", thursday, berlin).wanted.preferredDates).toEqual(["2026-03-29"]);
    expect(parseRequest("massage on monday", thursday, berlin).wanted.preferredDates).toEqual(["2026-03-30"]);
    // "this week" never starts before today.
    expect(parseRequest("massage this week", thursday, berlin).wanted).toMatchObject({
      from: "2026-03-26",
      to: "2026-03-29",
    });
    expect(parseRequest("massage within the week", thursday, berlin).wanted).toMatchObject({
      from: "2026-03-26",
      to: "2026-04-02",
    });
  });

  it("takes 'today' from the clinic's clock in the night of the autumn change", () => {
    // 22:30 UTC on Saturday 24 October is 00:30 on Sunday 25 October in Berlin (CEST, +2).
    const night = new Date("2026-10-24T22:30:00Z");
    expect(parseRequest("massage tomorrow evening", night, berlin).wanted).toMatchObject({
      from: "2026-10-26",
      partOfDay: partsOfDay.evening,
    });
    expect(parseRequest("massage today", night, berlin).wanted.from).toBe("2026-10-25");
  });

  it("runs on a machine zone unlike any clinic's (vitest.config.ts sets TZ)", () => {
    expect(new Date("2026-03-25T10:00:00Z").getHours()).toBe(0);
  });

  it("works for a zone far from the machine's", () => {
    // 12:00 UTC is already 01:00 the next day in Auckland (NZDT, +13).
    expect(parseRequest("massage tomorrow", new Date("2026-03-25T12:00:00Z"), "Pacific/Auckland").wanted.from).toBe(
      "2026-03-27",
    );
    expect(parseRequest("massage tomorrow", new Date("2026-03-25T12:00:00Z"), "America/Los_Angeles").wanted.from).toBe(
      "2026-03-26",
    );
  });
});
