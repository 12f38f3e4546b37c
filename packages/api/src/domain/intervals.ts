/**
 * Interval algebra on half-open intervals [start, end) of numbers (epoch milliseconds or minutes).
 * Lists are "normalized": sorted by start, non-overlapping, non-adjacent, non-empty. Every
 * operation takes normalized lists and returns one, in linear time.
 */
export interface Interval {
  start: number;
  end: number;
}

/**
 * Sorts and merges overlapping or touching intervals; drops empty ones. Returns new objects.
 *
 * A union depends only on the multiset of starts and the multiset of ends, so the two are sorted
 * separately as typed arrays (a native numeric sort, no comparator calls, no object shuffling)
 * and swept with a depth counter: a start at or before the next end opens or extends a segment.
 */
export function normalize(list: readonly Interval[]): Interval[] {
  let n = 0;
  for (const interval of list) if (interval.end > interval.start) n++;
  if (n === 0) return [];
  // Typed arrays cost more to allocate than a short list costs to sort (weekly hours of a day).
  if (n <= 16) return normalizeShort(list);
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  let k = 0;
  let sorted = true;
  for (const interval of list) {
    if (!(interval.end > interval.start)) continue;
    if (k > 0 && (interval.start < (starts[k - 1] ?? -Infinity) || interval.end < (ends[k - 1] ?? -Infinity)))
      sorted = false;
    starts[k] = interval.start;
    ends[k] = interval.end;
    k++;
  }
  // Lists read in time order need no sort at all.
  if (!sorted) {
    starts.sort();
    ends.sort();
  }
  const out: Interval[] = [];
  let depth = 0;
  let open = 0;
  let i = 0;
  let j = 0;
  // The i-th smallest start never exceeds the i-th smallest end, so an end exists while depth > 0.
  while (i < n) {
    const start = starts[i] ?? Infinity;
    const end = ends[j] ?? Infinity;
    if (start <= end) {
      if (depth === 0) open = start;
      depth++;
      i++;
    } else {
      depth--;
      if (depth === 0) out.push({ start: open, end });
      j++;
    }
  }
  out.push({ start: open, end: ends[n - 1] ?? open });
  return out;
}

/** `normalize` for a few intervals: copy, insertion sort, merge in place. */
function normalizeShort(list: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const interval of list) {
    if (!(interval.end > interval.start)) continue;
    let k = out.length;
    for (; k > 0 && (out[k - 1]?.start ?? -Infinity) > interval.start; k--) out[k] = out[k - 1] ?? interval;
    out[k] = { start: interval.start, end: interval.end };
  }
  let kept = 0;
  for (const interval of out) {
    const last = kept > 0 ? out[kept - 1] : undefined;
    if (last && interval.start <= last.end) {
      if (interval.end > last.end) last.end = interval.end;
    } else out[kept++] = interval;
  }
  out.length = kept;
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
