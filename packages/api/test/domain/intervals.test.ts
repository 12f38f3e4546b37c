import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Interval, intersect, normalize, overlaps, subtract, union } from "../../src/domain/intervals.ts";

const SPAN = 200;
const intervalArb = fc.tuple(fc.integer({ min: 0, max: SPAN }), fc.integer({ min: 0, max: 40 })).map(([start, len]) => ({ start, end: Math.min(SPAN, start + len) }));
const listArb = fc.array(intervalArb, { maxLength: 12 });

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
    );
  });

  it("treats intervals as half-open", () => {
    expect(overlaps({ start: 0, end: 10 }, { start: 10, end: 20 })).toBe(false);
    expect(overlaps({ start: 0, end: 11 }, { start: 10, end: 20 })).toBe(true);
    expect(normalize([{ start: 0, end: 10 }, { start: 10, end: 20 }])).toEqual([{ start: 0, end: 20 }]);
    expect(intersect([{ start: 0, end: 10 }], [{ start: 10, end: 20 }])).toEqual([]);
  });
});
