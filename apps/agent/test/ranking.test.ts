import { describe, expect, it } from "vitest";
import { proposeSlots, rankSlots } from "../src/ranking.ts";
import { partsOfDay, type WantedTime } from "../src/wanted.ts";

/** A slot as the API answers it: the instant and the clinic wall-clock time. */
const slot = (startLocal: string, offsetHours: number) => ({
  start: new Date(Date.parse(`${startLocal}:00Z`) - offsetHours * 3_600_000),
  start_local: startLocal,
  provider_ids: ["p"],
});

const wanted = (overrides: Partial<WantedTime>): WantedTime => ({
  from: "2026-03-25",
  to: "2026-03-31",
  preferredDates: [],
  partOfDay: undefined,
  timeOfDay: undefined,
  defaultRange: true,
  ...overrides,
});

const locals = (ranked: { slot: { start_local: string } }[]) => ranked.map((r) => r.slot.start_local);

describe("rankSlots / proposeSlots in Berlin's DST week", () => {
  // Saturday 28 March is CET (+1), Monday 30 March CEST (+2): 09:00 on the wall is 08:00Z, then 07:00Z.
  const week = [
    slot("2026-03-28T09:00", 1),
    slot("2026-03-28T13:00", 1),
    slot("2026-03-28T15:00", 1),
    slot("2026-03-30T08:00", 2),
    slot("2026-03-30T09:00", 2),
    slot("2026-03-30T13:00", 2),
    slot("2026-03-30T18:30", 2),
  ];

  it("offers the mornings of both sides of the change first, by wall clock, earliest first", () => {
    const proposals = proposeSlots(week, wanted({ partOfDay: partsOfDay.morning }));
    expect(locals(proposals)).toEqual(["2026-03-28T09:00", "2026-03-30T08:00", "2026-03-30T09:00"]);
    expect(proposals.every((p) => p.inWanted)).toBe(true);
    // The UTC hours differ (08:00Z and 07:00Z for the same 09:00 on the wall) — the ranking does not care.
    expect(proposals.map((p) => p.slot.start.toISOString())).toEqual([
      "2026-03-28T08:00:00.000Z",
      "2026-03-30T06:00:00.000Z",
      "2026-03-30T07:00:00.000Z",
    ]);
  });

  it("puts the wanted day's afternoon first, then the nearest other times of that day", () => {
    const monday = wanted({
      from: "2026-03-30",
      to: "2026-03-30",
      preferredDates: ["2026-03-30"],
      partOfDay: partsOfDay.afternoon,
      defaultRange: false,
    });
    const ranked = rankSlots(week, monday);
    expect(locals(ranked).slice(0, 4)).toEqual([
      "2026-03-30T13:00",
      "2026-03-30T18:30",
      "2026-03-30T09:00",
      "2026-03-30T08:00",
    ]);
    expect(ranked[0]).toMatchObject({ inWanted: true, distanceMin: 0 });
    expect(ranked[1]).toMatchObject({ inWanted: false, distanceMin: 31 });
    // Only one slot is inside the afternoon: the nearest others fill the proposals up to three.
    expect(locals(proposeSlots(week, monday))).toEqual(["2026-03-30T13:00", "2026-03-30T18:30", "2026-03-30T09:00"]);
  });

  it("orders by closeness to a named clock time", () => {
    const at3 = wanted({
      from: "2026-03-28",
      to: "2026-03-28",
      preferredDates: ["2026-03-28"],
      timeOfDay: 15 * 60,
      defaultRange: false,
    });
    expect(locals(rankSlots(week, at3)).slice(0, 3)).toEqual([
      "2026-03-28T15:00",
      "2026-03-28T13:00",
      "2026-03-28T09:00",
    ]);
  });

  it("prefers the named dates when several are searched, nearest date first for the rest", () => {
    const named = wanted({
      from: "2026-03-28",
      to: "2026-03-31",
      preferredDates: ["2026-03-31"],
      partOfDay: partsOfDay.afternoon,
      defaultRange: false,
    });
    const ranked = rankSlots(week, named);
    // Nothing on the 31st: every slot is outside the wish; the 30th's afternoon is closest to it.
    expect(ranked.every((r) => !r.inWanted)).toBe(true);
    expect(locals(ranked)[0]).toBe("2026-03-30T18:30");
  });

  it("offers at most five, earliest first, when anything goes", () => {
    const proposals = proposeSlots(week, wanted({}));
    expect(locals(proposals)).toEqual([
      "2026-03-28T09:00",
      "2026-03-28T13:00",
      "2026-03-28T15:00",
      "2026-03-30T08:00",
      "2026-03-30T09:00",
    ]);
    expect(proposeSlots([], wanted({}))).toEqual([]);
  });
});
