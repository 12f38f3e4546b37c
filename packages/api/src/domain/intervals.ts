/**
 * Interval algebra on half-open intervals [start, end) of numbers (epoch milliseconds or minutes).
 * Lists are "normalized": sorted by start, non-overlapping, non-adjacent, non-empty. Every
 * operation takes normalized lists and returns one, in linear time.
 */
export interface Interval {
  start: number;
  end: number;
}

/** Sorts and merges overlapping or touching intervals; drops empty ones. */
export function normalize(list: readonly Interval[]): Interval[] {
  const sorted = list.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const interval of sorted) {
    const last = out[out.length - 1];
    if (last && interval.start <= last.end) {
      if (interval.end > last.end) last.end = interval.end;
    } else {
      out.push({ start: interval.start, end: interval.end });
    }
  }
  return out;
}

/** Points in a or b. */
export function union(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const ai = a[i];
    const bj = b[j];
    let next: Interval;
    if (ai && (!bj || ai.start <= bj.start)) {
      next = ai;
      i++;
    } else if (bj) {
      next = bj;
      j++;
    } else break;
    const last = out[out.length - 1];
    if (last && next.start <= last.end) {
      if (next.end > last.end) last.end = next.end;
    } else out.push({ start: next.start, end: next.end });
  }
  return out;
}

/** Points in both a and b. */
export function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ai = a[i];
    const bj = b[j];
    if (!ai || !bj) break;
    const start = Math.max(ai.start, bj.start);
    const end = Math.min(ai.end, bj.end);
    if (end > start) out.push({ start, end });
    if (ai.end < bj.end) i++;
    else j++;
  }
  return out;
}

/** Points in a and not in b. */
export function subtract(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const interval of a) {
    let start = interval.start;
    const end = interval.end;
    while (j < b.length && (b[j]?.end ?? 0) <= start) j++;
    let k = j;
    while (k < b.length) {
      const cut = b[k];
      if (!cut || cut.start >= end) break;
      if (cut.start > start) out.push({ start, end: cut.start });
      start = Math.max(start, cut.end);
      if (start >= end) break;
      k++;
    }
    if (start < end) out.push({ start, end });
  }
  return out;
}

/** True when the half-open intervals share a point. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.start < b.end && b.start < a.end;
}
