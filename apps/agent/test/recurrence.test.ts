import { describe, expect, it } from "vitest";
import { parseRecurrence, planSeries, type Recurrence } from "../src/recurrence.ts";
import { parseRequest } from "../src/wanted.ts";

const berlin = "Europe/Berlin";
// Wednesday 25 March 2026, 11:00 in Berlin (CET); Berlin moves to CEST on Sunday 29 March.
const wednesday = new Date("2026-03-25T10:00:00Z");

function recurrenceOf(text: string, now = wednesday): Recurrence {
  const parsed = parseRecurrence(text, now, berlin);
  if (parsed.kind !== "series") throw new Error(`no series in "${text}": ${JSON.stringify(parsed)}`);
  return parsed.recurrence;
}

/** The rule, the first start (UTC) and the dates of the series the text asks for. */
function planOf(text: string, now = wednesday) {
  const planned = planSeries(recurrenceOf(text, now), now, berlin);
  if (!planned.ok) throw new Error(planned.message);
  const { rrule, start, dates, description } = planned.plan;
  return { rrule, start: start.toISOString(), dates, description };
}

const errorOf = (text: string) => {
  const parsed = parseRecurrence(text, wednesday, berlin);
  if (parsed.kind === "error") return parsed.message;
  if (parsed.kind === "none") return "none";
  const planned = planSeries(parsed.recurrence, wednesday, berlin);
  return planned.ok ? "ok" : planned.message;
};

describe("parseRecurrence + planSeries: the phrases of the issue", () => {
  it("every Tuesday at 9 for 10 weeks: ten Tuesdays from the next one, 09:00 in Berlin across the DST change", () => {
    expect(recurrenceOf("sports massage every Tuesday at 9 for 10 weeks")).toEqual({
      freq: "WEEKLY",
      interval: 1,
      byDay: ["TU"],
      minutes: 9 * 60,
      from: undefined,
      end: { kind: "span", amount: 10, unit: "week" },
    });
    const plan = planOf("sports massage every Tuesday at 9 for 10 weeks");
    expect(plan.rrule).toBe("FREQ=WEEKLY;BYDAY=TU;COUNT=10");
    // Tuesday 31 March is already summer time: 09:00 CEST is 07:00Z.
    expect(plan.start).toBe("2026-03-31T07:00:00.000Z");
    expect(plan.dates).toHaveLength(10);
    expect(plan.dates[9]).toBe("2026-06-02");
    expect(plan.description).toBe("every Tuesday at 09:00, 10 times");
  });

  it("every Monday and Thursday at 14:30 for 6 weeks: twelve dates, starting tomorrow (Thursday)", () => {
    const plan = planOf("physiotherapy every Monday and Thursday at 14:30 for 6 weeks");
    expect(plan.rrule).toBe("FREQ=WEEKLY;BYDAY=MO,TH;COUNT=12");
    expect(plan.start).toBe("2026-03-26T13:30:00.000Z");
    expect(plan.dates.slice(0, 4)).toEqual(["2026-03-26", "2026-03-30", "2026-04-02", "2026-04-06"]);
    expect(plan.dates[11]).toBe("2026-05-04");
    expect(plan.description).toBe("every Monday and Thursday at 14:30, 12 times");
  });

  it("daily at 8 for 5 days: today's 08:00 is past, so from tomorrow, over the DST Sunday", () => {
    const plan = planOf("daily at 8 for 5 days");
    expect(plan.rrule).toBe("FREQ=DAILY;COUNT=5");
    expect(plan.start).toBe("2026-03-26T07:00:00.000Z");
    expect(plan.dates).toEqual(["2026-03-26", "2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30"]);
    expect(plan.description).toBe("daily at 08:00, 5 times");
  });

  it("every other Wednesday at 10 until 2027-06-30: today's 10:00 is past, so from next Wednesday", () => {
    const plan = planOf("massage every other Wednesday at 10 until 2027-06-30");
    expect(plan.rrule).toBe("FREQ=WEEKLY;INTERVAL=2;BYDAY=WE;UNTIL=20270630");
    expect(plan.start).toBe("2026-04-01T08:00:00.000Z");
    expect(plan.dates).toHaveLength(33);
    expect(plan.dates[1]).toBe("2026-04-15");
    expect(plan.dates[32]).toBe("2027-06-23");
    expect(plan.description).toBe("every other Wednesday at 10:00, until Wed 30 Jun 2027");
  });

  it("starts today when today's time is still ahead", () => {
    expect(planOf("massage every wednesday at 12 for 3 weeks")).toMatchObject({
      rrule: "FREQ=WEEKLY;BYDAY=WE;COUNT=3",
      start: "2026-03-25T11:00:00.000Z",
    });
  });
});

describe("parseRecurrence: German", () => {
  it("reads the same series in German", () => {
    const pairs: [string, string][] = [
      ["Sportmassage jeden Dienstag um 9 für 10 Wochen", "sports massage every Tuesday at 9 for 10 weeks"],
      ["jeden Montag und Donnerstag um 14:30 Uhr 6 Wochen lang", "every Monday and Thursday at 14:30 for 6 weeks"],
      ["täglich um 8 für 5 Tage", "daily at 8 for 5 days"],
      ["jeden zweiten Mittwoch um 10 bis 30.06.2027", "every other Wednesday at 10 until 2027-06-30"],
      ["alle zwei Wochen dienstags um 9, 5 Mal", "every 2 weeks on tuesdays at 9, 5 times"],
      ["werktags um 9 Uhr für zwei Wochen", "every weekday at 9am for 2 weeks"],
    ];
    for (const [german, english] of pairs) expect(planOf(german)).toEqual(planOf(english));
    expect(planOf("werktags um 9 Uhr für zwei Wochen")).toMatchObject({
      rrule: "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=10",
      description: "every weekday at 09:00, 10 times",
    });
  });

  it("reads a start date in German and takes 'um 7 Uhr' as 07:00", () => {
    expect(planOf("Massage jeden Dienstag um 7 Uhr für 3 Wochen ab dem 4. Mai")).toMatchObject({
      rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=3",
      start: "2026-05-05T05:00:00.000Z",
    });
  });
});

describe("parseRecurrence: other phrasings", () => {
  it("reads counts, starts, weekdays apart from the frequency and clock forms", () => {
    expect(planOf("massage on mondays and fridays at 9 for 2 weeks").rrule).toBe("FREQ=WEEKLY;BYDAY=MO,FR;COUNT=4");
    expect(planOf("massage weekly on tuesdays at 3pm, 6 sessions starting May 4")).toMatchObject({
      rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=6",
      start: "2026-05-05T13:00:00.000Z",
    });
    expect(planOf("massage every 2 days at 9:15 for 6 days")).toMatchObject({
      rrule: "FREQ=DAILY;INTERVAL=2;COUNT=3",
      start: "2026-03-26T08:15:00.000Z",
    });
    expect(planOf("massage every Friday at 4 for a month")).toMatchObject({
      rrule: "FREQ=WEEKLY;BYDAY=FR;COUNT=5",
      description: "every Friday at 16:00, 5 times",
    });
    expect(planOf("massage fortnightly on Monday at 9am until June 1")).toMatchObject({
      rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;UNTIL=20260601",
      start: "2026-03-30T07:00:00.000Z",
    });
    expect(planOf("massage every Tuesday at 9 for ten weeks starting next week").start).toBe(
      "2026-03-31T07:00:00.000Z",
    );
    expect(planOf("massage every Tuesday at 9 10 times from 2026-04-20").dates[0]).toBe("2026-04-21");
  });

  it("leaves the service words, and the provider, for the service search", () => {
    const parsed = parseRecurrence("a sports massage with Ben every Tuesday at 9 for 10 weeks", wednesday, berlin);
    expect(parsed.kind).toBe("series");
    if (parsed.kind !== "series") return;
    expect(parsed.rest.trim()).toBe("a sports massage with Ben");
    expect(parsed.rest).toHaveLength("a sports massage with Ben every Tuesday at 9 for 10 weeks".length);
    const request = parseRequest(parsed.rest, wednesday, berlin);
    expect(request.serviceQuery).toBe("sports massage ben");
    expect(request.providerMention).toBe("Ben");
  });

  it("finds no series in a single appointment's text", () => {
    for (const text of [
      "massage next tuesday at 9",
      "a deep tissue massage with Anna next Tuesday afternoon",
      "book an appointment for a sports massage tomorrow at 3pm",
      "physiotherapy assessment this weekend",
      // Plural weekdays alone may mean any one of them: a series needs an end with them.
      "massage on mondays at 9",
      "Massage werktags um 9",
    ])
      expect(parseRecurrence(text, wednesday, berlin)).toEqual({ kind: "none" });
  });

  it("says what is missing or wrong", () => {
    expect(errorOf("massage every tuesday for 10 weeks")).toMatch(/^say at what time/);
    expect(errorOf("massage every tuesday at 9")).toMatch(/^say how long/);
    expect(errorOf("book an appointment every tuesday at 9")).toMatch(/^say how long/);
    expect(errorOf("massage every tuesday at 25 for 3 weeks")).toBe("25 is not a time of day");
    expect(errorOf("massage every tuesday at 9 until June 31")).toBe('"until June 31" is not a real date');
    expect(errorOf("massage daily at 9 for 105 days")).toBe("a series has at most 104 appointments");
    expect(errorOf("massage every tuesday at 9, 105 times")).toBe("a series has at most 104 appointments");
    expect(errorOf("massage every tuesday at 9 for 200 weeks")).toMatch(/^a series ends at most 2 years after/);
    expect(errorOf("massage every tuesday at 9 until 2026-03-26")).toMatch(/after its end Thu 26 Mar 2026$/);
  });
});
