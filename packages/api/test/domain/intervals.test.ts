import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Interval, intersect, normalize, overlaps, subtract, union } from "../../src/domain/intervals.ts";

const SPAN = 200;
const intervalArb = fc
  .tuple(fc.integer({ min: -5, max: SPAN }), fc.integer({ min: -3, max: 40 }))
  .map(([start, len]) => ({ start: Math.max(0, start), end: Math.min(SPAN, Math.max(0, start) + len) }));
// Up to 40 intervals: long lists take normalize's typed-array path, short ones the insertion sort.
const listArb = fc.array(intervalArb, { maxLength: 40 });

/** The brute-force model: which unit cells [m, m+1) a list covers. */
function cells(list: readonly Interval[]): boolean[] {
  const covered = new Array<boolean>(SPAN).fill(false);
  for (const { start, end } of list) for (let m = start; m < end; m++) covered[m] = true;
  return covered;
}

function isNormalized(list: readonly Interval[]): boolean {
  return list.every((iv, k) => iv.end > iv.start && (k === 0 || (list[k - 1]?.end ?? 0) < iv.start));
}

describe("interval algebra agrees with a minute-by-minute model", () => {
  it("normalize keeps the covered points and yields sorted, disjoint, non-touching intervals", () => {
    fc.assert(
      fc.property(listArb, (list) => {
        const n = normalize(list);
        expect(isNormalized(n)).toBe(true);
        expect(cells(n)).toEqual(cells(list));
      }),
      { numRuns: 500 },
    );
  });

  it("union, intersect and subtract match the set operations on cells", () => {
    fc.assert(
      fc.property(listArb, listArb, (x, y) => {
        const a = normalize(x);
        const b = normalize(y);
        const ca = cells(a);
        const cb = cells(b);
        for (const [result, op] of [
          [union(a, b), (p: boolean, q: boolean) => p || q],
          [intersect(a, b), (p: boolean, q: boolean) => p && q],
          [subtract(a, b), (p: boolean, q: boolean) => p && !q],
        ] as const) {
          expect(isNormalized(result)).toBe(true);
          expect(cells(result)).toEqual(ca.map((p, m) => op(p, cb[m] ?? false)));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("overlaps is true exactly when two non-empty intervals share a cell", () => {
    const nonEmpty = intervalArb.filter((i) => i.end > i.start);
    fc.assert(
      fc.property(nonEmpty, nonEmpty, (a, b) => {
        const ca = cells([a]);
        const cb = cells([b]);
        expect(overlaps(a, b)).toBe(ca.some((p, m) => p && (cb[m] ?? false)));
      }),
    );
  });

  it("never mutates its inputs", () => {
    fc.assert(
      fc.property(listArb, listArb, (x, y) => {
        const a = normalize(x);
        const b = normalize(y);
        const snapshot = JSON.stringify([x, a, b]);
        normalize(x);
        union(a, b);
        intersect(a, b);
        subtract(a, b);
        // normalize returns fresh objects: growing its result must not touch the input.
        for (const i of normalize(x)) i.end += 1000;
        expect(JSON.stringify([x, a, b])).toBe(snapshot);
      }),
    );
  });
});

describe("interval algebra examples", () => {
  it("treats intervals as half-open", () => {
    expect(overlaps({ start: 0, end: 10 }, { start: 10, end: 20 })).toBe(false);
    expect(overlaps({ start: 0, end: 11 }, { start: 10, end: 20 })).toBe(true);
    expect(
      normalize([
        { start: 0, end: 10 },
        { start: 10, end: 20 },
      ]),
    ).toEqual([{ start: 0, end: 20 }]);
    expect(intersect([{ start: 0, end: 10 }], [{ start: 10, end: 20 }])).toEqual([]);
    expect(subtract([{ start: 0, end: 20 }], [{ start: 5, end: 10 }])).toEqual([
      { start: 0, end: 5 },
      { start: 10, end: 20 },
    ]);
  });

  it("sorts unsorted input and drops empty, reversed and NaN intervals", () => {
    expect(
      normalize([
        { start: 30, end: 40 },
        { start: 5, end: 5 },
        { start: 9, end: 1 },
        { start: Number.NaN, end: 3 },
        { start: 0, end: 10 },
        { start: 8, end: 12 },
      ]),
    ).toEqual([
      { start: 0, end: 12 },
      { start: 30, end: 40 },
    ]);
    expect(normalize([])).toEqual([]);
  });

  it("normalizes long lists of epoch milliseconds (typed-array path)", () => {
    const hour = 3_600_000;
    const base = Date.parse("2027-03-15T00:00:00Z");
    // 30 one-hour bookings in reverse order, every other hour, plus one covering hours 10-14.
    const list = Array.from({ length: 30 }, (_, k) => ({
      start: base + (29 - k) * 2 * hour,
      end: base + ((29 - k) * 2 + 1) * hour,
    }));
    list.push({ start: base + 10 * hour, end: base + 14 * hour });
    const n = normalize(list);
    expect(n).toHaveLength(28);
    expect(n[0]).toEqual({ start: base, end: base + hour });
    expect(n[5]).toEqual({ start: base + 10 * hour, end: base + 15 * hour });
    expect(n[n.length - 1]).toEqual({ start: base + 58 * hour, end: base + 59 * hour });
  });
});
