// A provider's daily limit (CONTRACT §8 v1.4, rule 4a of the slot engine): a provider with that many
// appointments starting on a clinic-local date offers nothing that date, and an explanation names
// DAILY_LIMIT (after BUFFER) exactly then; local dates are the zone's, checked against Temporal on
// days with a DST change.
import fc from "fast-check";
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import { dayLoadKey } from "../../src/domain/dayLoad.ts";
import { type Booking, type SlotQuery, computeSlots, explainStart } from "../../src/domain/slots.ts";
import { addDays } from "../../src/domain/timezone.ts";

const MINUTE = 60_000;
const at = (text: string) => Date.parse(text);
const allWeek = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, opensMin: 0, closesMin: 1440 }));
const booking = (id: string, start: number, minutes = 15, before = 0, after = 0): Booking => ({
  id,
  start,
  end: start + minutes * MINUTE,
  bufferBeforeMin: before,
  bufferAfterMin: after,
});
const query = (overrides: Partial<SlotQuery>): SlotQuery => ({
  timeZone: "UTC",
  fromDate: "2027-03-15",
  toDate: "2027-03-16",
  durationMin: 30,
  nowMs: 0,
  clinicHours: allWeek.map((h) => ({ ...h, opensMin: 9 * 60, closesMin: 17 * 60 })),
  clinicClosures: [],
  providers: [],
  ...overrides,
});
const hours = allWeek.map((h) => ({ ...h, opensMin: 9 * 60, closesMin: 17 * 60 }));
const codes = (q: SlotQuery, start: string, provider: string) =>
  explainStart(q, at(start))
    .providers.find((p) => p.providerId === provider)
    ?.reasons.map((r) => r.code);

describe("a provider's daily limit", () => {
  const q = query({
    providers: [
      {
        providerId: "a",
        hours,
        maxDailyAppointments: 2,
        bookings: [booking("b1", at("2027-03-15T09:00:00Z")), booking("b2", at("2027-03-15T11:00:00Z"), 15, 0, 30)],
      },
      { providerId: "b", hours },
    ],
  });

  it("offers none of a full provider's slots that date, the other providers' and the next date's all the same", () => {
    const slots = computeSlots(q);
    const monday = slots.filter((s) => s.startLocal.startsWith("2027-03-15"));
    expect(monday.length).toBeGreaterThan(0);
    expect(monday.every((s) => s.providerIds.join() === "b")).toBe(true);
    const tuesday = slots.filter((s) => s.startLocal.startsWith("2027-03-16"));
    expect(tuesday.every((s) => s.providerIds.join() === "a,b")).toBe(true);
    // Below the limit, nothing changes.
    expect(computeSlots({ ...q, providers: q.providers.map((p) => ({ ...p, maxDailyAppointments: 3 })) })).toEqual(
      computeSlots({ ...q, providers: q.providers.map((p) => ({ ...p, maxDailyAppointments: null })) }),
    );
  });

  it("is explained as DAILY_LIMIT, after BUFFER, with the count and the limit", () => {
    expect(codes(q, "2027-03-15T14:00:00Z", "a")).toEqual(["DAILY_LIMIT"]);
    expect(codes(q, "2027-03-15T11:30:00Z", "a")).toEqual(["BUFFER", "DAILY_LIMIT"]);
    expect(codes(q, "2027-03-15T14:00:00Z", "b")).toEqual([]);
    expect(codes(q, "2027-03-16T14:00:00Z", "a")).toEqual([]);
    const reason = explainStart(q, at("2027-03-15T14:00:00Z")).providers[0]?.reasons[0];
    expect(reason).toEqual({ code: "DAILY_LIMIT", limit: { max: 2, count: 2 } });
  });

  it("takes the read's count (dayLoad) over the bookings it holds: a booking's read holds only the slot's time", () => {
    const counted = { ...q, dayLoad: new Map([[dayLoadKey("a", "2027-03-15"), 1]]) };
    expect(codes(counted, "2027-03-15T14:00:00Z", "a")).toEqual([]);
    const full = { ...q, dayLoad: new Map([[dayLoadKey("a", "2027-03-16"), 5]]) };
    expect(codes(full, "2027-03-16T14:00:00Z", "a")).toEqual(["DAILY_LIMIT"]);
    expect(codes(full, "2027-03-15T14:00:00Z", "a")).toEqual([]);
  });

  it("counts by the clinic's local date on a DST day (Berlin, 23 hours on 2027-03-28)", () => {
    const berlin = query({
      timeZone: "Europe/Berlin",
      fromDate: "2027-03-27",
      toDate: "2027-03-29",
      clinicHours: allWeek,
      providers: [
        // 00:30 local on the 28th is 23:30 UTC on the 27th: it fills the 28th.
        {
          providerId: "a",
          hours: allWeek,
          maxDailyAppointments: 1,
          bookings: [booking("x", at("2027-03-27T23:30:00Z"))],
        },
      ],
    });
    // 23:00 local on the 28th (21:00Z): the same local date, full.
    expect(codes(berlin, "2027-03-28T21:00:00Z", "a")).toEqual(["DAILY_LIMIT"]);
    // 00:00 local on the 29th (22:00Z on the 28th) and 23:30 local on the 27th (22:30Z): other dates.
    expect(codes(berlin, "2027-03-28T22:00:00Z", "a")).toEqual([]);
    expect(codes(berlin, "2027-03-27T22:30:00Z", "a")).toEqual([]);
    const dates = new Set(computeSlots(berlin).map((s) => s.startLocal.slice(0, 10)));
    expect([...dates].sort()).toEqual(["2027-03-27", "2027-03-29"]);
  });
});

describe("the daily limit agrees with a Temporal model of local dates", () => {
  it("for random zones around DST changes, bookings and limits, at every slot and every booking's start", () => {
    const zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC"];
    const dates = ["2027-03-28", "2027-10-31", "2027-03-14", "2027-11-07", "2027-04-04", "2027-10-03"];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...dates),
        fc.array(fc.tuple(fc.constantFrom("a", "b"), fc.integer({ min: -1500, max: 3000 })), { maxLength: 8 }),
        fc.tuple(
          fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
          fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
        ),
        (tz, date, placed, [limitA, limitB]) => {
          const midnight = Temporal.PlainDate.from(date).toZonedDateTime(tz).epochMilliseconds;
          const localDate = (ms: number) =>
            Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz).toPlainDate().toString();
          const bookingsOf = (id: string) =>
            placed.filter(([p]) => p === id).map(([, m], i) => booking(`${id}${String(i)}`, midnight + m * MINUTE, 5));
          const limits: Record<string, number | null> = { a: limitA, b: limitB };
          const q = query({
            timeZone: tz,
            fromDate: addDays(date, -1),
            toDate: addDays(date, 1),
            durationMin: 20,
            stepMin: 10,
            clinicHours: allWeek,
            providers: ["a", "b"].map((id) => ({
              providerId: id,
              hours: allWeek,
              maxDailyAppointments: limits[id] ?? null,
              bookings: bookingsOf(id),
            })),
          });
          const count = (id: string, d: string) => bookingsOf(id).filter((b) => localDate(b.start) === d).length;
          const full = (id: string, d: string) => {
            const limit = limits[id];
            return limit != null && count(id, d) >= limit;
          };
          // The slots: those without the limit, less the full providers' on their full dates.
          const unlimited = computeSlots({
            ...q,
            providers: q.providers.map((p) => ({ ...p, maxDailyAppointments: null })),
          });
          const expected = unlimited
            .map((s) => ({ start: s.start, ids: s.providerIds.filter((id) => !full(id, localDate(s.start))) }))
            .filter((s) => s.ids.length > 0);
          expect(computeSlots(q).map((s) => ({ start: s.start, ids: s.providerIds }))).toEqual(expected);
          for (const start of placed.map(([, m]) => midnight + m * MINUTE))
            for (const p of explainStart(q, start).providers)
              expect([start, p.providerId, p.reasons.some((r) => r.code === "DAILY_LIMIT")]).toEqual([
                start,
                p.providerId,
                full(p.providerId, localDate(start)),
              ]);
        },
      ),
      { numRuns: 100 },
    );
  });
});
