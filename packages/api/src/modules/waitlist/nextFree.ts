// The next free time of a service (CONTRACT §15 "Next free time", docs/waitlist.md#next-free-time)
// and the search the waitlist matcher shares with it: availability read in chunks of dates, so a
// far answer does not compute a year at once.
import type { Db } from "@clinic/db";
import { addDays, daysBetween, localDateOf } from "../../domain/timezone.ts";
import {
  type AvailabilityCache,
  type AvailabilityClinic,
  type AvailabilityView,
  answerAvailability,
  loadService,
} from "../availability/index.ts";
import { maxWaitlistDays } from "./entries.ts";

/** Dates read per availability computation while searching forward. */
export const searchChunkDays = 14;

export type FreeSlot = AvailabilityView["slots"][number];

export interface FreeSlotSearch {
  serviceId: string;
  providerId?: string | undefined;
  /** First local date searched (clamped to the clinic's today). */
  fromDate?: string | undefined;
  /** Last local date searched (clamped to the service's horizon and 366 days). */
  toDate?: string | undefined;
  now: Date;
  maxSlots: number;
}

/**
 * The free slots of a service from `fromDate` (default today) up to its horizon (at most 366
 * days ahead), chunk by chunk, in start order; `take` is asked per slot and the search stops
 * when it answers "stop". Each chunk is one V1 answer (same rules, same cache).
 */
export async function searchFreeSlots(
  db: Db,
  cache: AvailabilityCache,
  clinic: AvailabilityClinic,
  search: FreeSlotSearch,
  take: (slot: FreeSlot) => "next" | "stop",
): Promise<void> {
  const service = await loadService(db, clinic.id, search.serviceId);
  const today = localDateOf(search.now.getTime(), clinic.timezone);
  const reach = Math.min(service.bookingHorizonDays ?? maxWaitlistDays, maxWaitlistDays);
  const horizonEnd = addDays(today, reach);
  const last = search.toDate !== undefined && search.toDate < horizonEnd ? search.toDate : horizonEnd;
  let from = search.fromDate !== undefined && search.fromDate > today ? search.fromDate : today;
  while (from <= last) {
    const to = daysBetween(from, last) >= searchChunkDays ? addDays(from, searchChunkDays - 1) : last;
    const answer = await answerAvailability(db, cache, clinic, {
      serviceId: search.serviceId,
      providerId: search.providerId,
      from,
      to,
      now: search.now,
      maxSlots: search.maxSlots,
    });
    for (const slot of answer.slots) if (take(slot) === "stop") return;
    from = addDays(to, 1);
  }
}

/** The first `count` free slots of a service starting after `after` (GET …/availability/next). */
export async function nextFreeSlots(
  db: Db,
  cache: AvailabilityCache,
  clinic: AvailabilityClinic,
  query: {
    serviceId: string;
    providerId?: string | undefined;
    after?: Date | undefined;
    count: number;
    now: Date;
    maxSlots: number;
  },
): Promise<{ slots: FreeSlot[] }> {
  const after = query.after ?? query.now;
  const slots: FreeSlot[] = [];
  await searchFreeSlots(
    db,
    cache,
    clinic,
    {
      serviceId: query.serviceId,
      providerId: query.providerId,
      fromDate: localDateOf(after.getTime(), clinic.timezone),
      now: query.now,
      maxSlots: query.maxSlots,
    },
    (slot) => {
      if (slot.start.getTime() <= after.getTime()) return "next";
      slots.push(slot);
      return slots.length >= query.count ? "stop" : "next";
    },
  );
  return { slots };
}
