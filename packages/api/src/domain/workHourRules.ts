import { formatTimeOfDay } from "./timezone.ts";

/** A weekly period in minutes of day, half-open. */
export interface Period {
  opensMin: number;
  closesMin: number;
}

/** The earliest of `others` that shares a minute with `period` (touching ends do not overlap). */
export function findOverlap<T extends Period>(period: Period, others: readonly T[]): T | undefined {
  return [...others]
    .sort((a, b) => a.opensMin - b.opensMin)
    .find((other) => other.opensMin < period.closesMin && period.opensMin < other.closesMin);
}

/** The contract's message: the edited or new period first, then the existing one it hits. */
export function overlapMessage(period: Period, existing: Period): string {
  const text = (p: Period) => `${formatTimeOfDay(p.opensMin)}-${formatTimeOfDay(p.closesMin)}`;
  return `overlap detected, period ${text(period)} overlaps with existing period ${text(existing)}`;
}

/** A patch of opening and/or closing time applied to the stored period. */
export function applyPatch(
  stored: Period,
  patch: { opensMin?: number | undefined; closesMin?: number | undefined },
): Period {
  return { opensMin: patch.opensMin ?? stored.opensMin, closesMin: patch.closesMin ?? stored.closesMin };
}

/** True when the period is a valid one (closing strictly after opening). */
export function isValidPeriod(period: Period): boolean {
  return period.closesMin > period.opensMin && period.opensMin >= 0 && period.closesMin <= 1440;
}
