// The cached answer: availability through the version-checked cache.
import type { Db } from "@clinic/db";
import { type Slot, computeSlots, offeredAt } from "../../domain/slots.ts";
import { validationFailed } from "../../errors.ts";
import type { AvailabilityCache, CachedAvailability } from "./cache.ts";
import { loadSchedule } from "./schedule.ts";
import { type ServiceInfo, candidatesOf, loadBookableService, rulesOf } from "./service.ts";
import { readVersions, versionKeyOf } from "./versions.ts";

export interface AvailabilityQuery {
  /** The clinic's availability versions if already read in this request (see authorizeClinic). */
  versions?: Map<string, number> | undefined;
  clinicId: string;
  timeZone: string;
  serviceId: string;
  providerId: string | undefined;
  fromDate: string;
  toDate: string;
  now: Date;
  /** The most slots one answer may hold (a larger one is a 400: ask for fewer dates or one provider). */
  maxSlots: number;
}

/**
 * Availability with the coherent cache: versions are read first (one query); a cached answer is
 * used only when it was computed under the same versions, otherwise it is recomputed from one
 * consistent snapshot. Answers are computed and cached without the time rules (now, notice,
 * horizon), which are applied at read time, so a cached answer never ages.
 */
export async function availabilityWithCache(
  db: Db,
  cache: AvailabilityCache,
  query: AvailabilityQuery,
): Promise<{ service: ServiceInfo; slots: Slot[]; cacheHit: boolean }> {
  const key = `${query.clinicId}|${query.serviceId}|${query.providerId ?? ""}|${query.fromDate}|${query.toDate}|${query.timeZone}`;
  const versions = query.versions ?? (await readVersions(db, query.clinicId));
  const offered = (answer: CachedAvailability) => offeredAt(answer.slots, rulesOf(answer.service), query.now.getTime(), query.timeZone);
  const hint = cache.peek(key);
  const cached = hint ? cache.get(key, versionKeyOf(versions, query.clinicId, hint.service.providerId)) : undefined;
  cache.noteLookup(cached !== undefined);
  if (cached) return { service: cached.service, slots: offered(cached), cacheHit: true };
  const computed = await db.transaction(
    async (tx) => {
      const service = await loadBookableService(tx, query.clinicId, query.serviceId);
      const candidates = await candidatesOf(tx, query.clinicId, service, query.providerId);
      const schedule = await loadSchedule(tx, query, service, candidates);
      // Without the time rules: they are applied per request (see `offered`).
      const slots = computeSlots({ ...schedule, nowMs: -Infinity, noticeMin: 0, horizonDays: null });
      return { service, slots };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
  if (computed.slots.length > query.maxSlots) {
    throw validationFailed("to", `the answer would hold ${computed.slots.length} slots, more than ${query.maxSlots}: ask for fewer dates or one provider`);
  }
  cache.set(key, versionKeyOf(versions, query.clinicId, computed.service.providerId), computed satisfies CachedAvailability);
  return { service: computed.service, slots: offered(computed), cacheHit: false };
}
