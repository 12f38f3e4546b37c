// Which slots to propose: the ones in the wanted part of the day first, then the nearest others.
// Works on the API's `start_local` (clinic wall clock), so nearness is what the patient means by
// it ("afternoon" is 12:00–18:00 on the clock on the wall) on either side of a DST change.
import { daysBetween, splitLocal } from "./localTime.ts";
import type { WantedTime } from "./wanted.ts";

/** What the ranking needs of an availability slot. */
export interface SlotLike {
  start_local: string;
}

export interface RankedSlot<S extends SlotLike> {
  slot: S;
  /** On a wanted date and inside the wanted part of the day. */
  inWanted: boolean;
  /** Wall-clock minutes from the wanted date/time (0 inside the wanted window). */
  distanceMin: number;
}

const MINUTES_PER_DAY = 1440;

function wantedWindow(wanted: WantedTime): [number, number] {
  if (wanted.timeOfDay !== undefined) return [wanted.timeOfDay, wanted.timeOfDay];
  if (wanted.partOfDay) return [wanted.partOfDay.fromMin, wanted.partOfDay.toMin - 1];
  return [0, MINUTES_PER_DAY - 1];
}

function distanceToWindow(date: string, minutes: number, wantedDate: string, window: [number, number]): number {
  const at = daysBetween(wantedDate, date) * MINUTES_PER_DAY + minutes;
  if (at < window[0]) return window[0] - at;
  if (at > window[1]) return at - window[1];
  return 0;
}

/**
 * Orders slots best first: on a preferred date and inside the part of the day (or nearest the
 * named clock time) first; then by wall-clock distance to the wanted date and time; then earliest.
 */
export function rankSlots<S extends SlotLike>(slots: readonly S[], wanted: WantedTime): RankedSlot<S>[] {
  const window = wantedWindow(wanted);
  const preferred = new Set(wanted.preferredDates);
  const ranked = slots.map((slot) => {
    const { date, minutes } = splitLocal(slot.start_local);
    const onWantedDate = preferred.size === 0 || preferred.has(date);
    const inPartOfDay = !wanted.partOfDay || (minutes >= wanted.partOfDay.fromMin && minutes < wanted.partOfDay.toMin);
    // Against each preferred date (or, with none, the slot's own date): the nearest one counts.
    const dates = preferred.size === 0 ? [date] : wanted.preferredDates;
    const distanceMin = Math.min(...dates.map((d) => distanceToWindow(date, minutes, d, window)));
    return { slot, inWanted: onWantedDate && inPartOfDay, distanceMin };
  });
  return ranked.sort(
    (a, b) =>
      Number(b.inWanted) - Number(a.inWanted) ||
      a.distanceMin - b.distanceMin ||
      (a.slot.start_local < b.slot.start_local ? -1 : a.slot.start_local > b.slot.start_local ? 1 : 0),
  );
}

/**
 * The slots to offer: up to `max` in the wanted window; when fewer than `min` are, the nearest
 * others fill up to `min`, so the patient always sees some choice.
 */
export function proposeSlots<S extends SlotLike>(
  slots: readonly S[],
  wanted: WantedTime,
  options: { min?: number; max?: number } = {},
): RankedSlot<S>[] {
  const min = options.min ?? 3;
  const max = options.max ?? 5;
  const ranked = rankSlots(slots, wanted);
  const inside = ranked.filter((r) => r.inWanted).slice(0, max);
  if (inside.length >= min) return inside;
  return [...inside, ...ranked.filter((r) => !r.inWanted).slice(0, min - inside.length)];
}
