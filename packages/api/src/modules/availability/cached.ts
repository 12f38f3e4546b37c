// The cached answer: availability through the version-checked cache (docs/availability.md,
// docs/performance.md#availability).
import type { Db } from "@clinic/db";
import { type Slot, computeSlots, offeredAt } from "../../domain/slots.ts";
import { wallClockToInstant, addDays } from "../../domain/timezone.ts";
import { DomainError, validationFailed } from "../../errors.ts";
import type { AvailabilityCache, CachedAvailability } from "./cache.ts";
import { readScheduleContext } from "./context.ts";
import { type ServiceInfo, assertCandidate, rulesOf } from "./service.ts";
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

const HOUR = 3_600_000;

/** The cache key of an answer: what it is of, and the zone its dates are in. */
export const cacheKeyOf = (
  q: Pick<AvailabilityQuery, "clinicId" | "serviceId" | "providerId" | "fromDate" | "toDate" | "timeZone">,
) => `${q.clinicId}|${q.serviceId}|${q.providerId ?? ""}|${q.fromDate}|${q.toDate}|${q.timeZone}`;

/** Misses of this process being computed, by cache key and the versions they were asked under. */
const inFlight = new Map<string, Promise<CachedAvailability>>();

/**
 * Availability with the coherent cache. A cached answer is used only when the versions of the
 * scopes it depends on (the clinic's and its candidate providers') are those it was computed
 * under; otherwise it is computed from one read (one statement, one snapshot, which also answers
 * the versions it is then kept under). Identical misses at the same versions are computed once
 * per process. Answers are computed and cached without the time rules (now, notice, horizon),
 * which are applied at read time, so a cached answer does not age, unless it counted a hold: it
 * is good until the first of those ends.
 */
export async function availabilityWithCache(
  db: Db,
  cache: AvailabilityCache,
  query: AvailabilityQuery,
): Promise<{ service: ServiceInfo; slots: Slot[]; cacheHit: boolean }> {
  const key = cacheKeyOf(query);
  const versions = query.versions ?? (await readVersions(db, query.clinicId));
  const offered = (answer: CachedAvailability) =>
    offeredAt(answer.slots, rulesOf(answer.service), query.now.getTime(), query.timeZone);
  const hint = cache.peek(key);
  const cached = hint ? cache.get(key, versionKeyOf(versions, hint.dependsOn), query.now.getTime()) : undefined;
  cache.noteLookup(cached !== undefined);
  if (cached) return { service: cached.service, slots: offered(cached), cacheHit: true };
  const computed = await computeAvailability(db, cache, query, versions);
  return { service: computed.service, slots: offered(computed), cacheHit: false };
}

/**
 * A miss: the answer computed from one read and kept in the cache, or the computation of the same
 * key already under way in this process at the same versions (single flight). `versions` are the
 * versions the request read before (all of the clinic's, or those of the scopes a stale answer
 * depended on): a request joins a computation only if it saw the same versions, so one that
 * started after a write (other versions) computes anew. 400 when the answer holds more than
 * `maxSlots` slots.
 */
export async function computeAvailability(
  db: Db,
  cache: AvailabilityCache,
  query: AvailabilityQuery,
  versions: ReadonlyMap<string, number>,
): Promise<CachedAvailability> {
  const key = cacheKeyOf(query);
  const flight = `${key}#${versionKeyOf(versions, [...versions.keys()])}`;
  let computing = inFlight.get(flight);
  if (!computing) {
    computing = computeAnswer(db, query).finally(() => inFlight.delete(flight));
    inFlight.set(flight, computing);
  }
  let computed = await computing;
  // A computation joined a moment ago may have counted a hold that has ended by this request's clock.
  if (computed.goodUntilMs <= query.now.getTime()) computed = await computeAnswer(db, query);
  if (computed.slots.length > query.maxSlots) {
    throw validationFailed(
      "to",
      `the answer would hold ${computed.slots.length} slots, more than ${query.maxSlots}: ask for fewer dates or one provider`,
    );
  }
  return computed;

  async function computeAnswer(db: Db, q: AvailabilityQuery): Promise<CachedAvailability> {
    // Instants that surely cover every local date of the range in any time zone (UTC−12 … +14),
    // widened by the longest buffers (4 h each side) for the bookings.
    const context = await readScheduleContext(db, {
      clinicId: q.clinicId,
      timeZone: q.timeZone,
      fromDate: q.fromDate,
      toDate: q.toDate,
      from: new Date(wallClockToInstant(q.fromDate, 0, "UTC") - 44 * HOUR),
      to: new Date(wallClockToInstant(addDays(q.toDate, 1), 0, "UTC") + 44 * HOUR),
      serviceId: q.serviceId,
      providerId: q.providerId,
      now: q.now,
    });
    if (context === "rate limited") throw new Error("an availability read counts no rate limit");
    const { service, candidates, schedule } = context;
    if (!service.isActive) throw new DomainError("SERVICE_INACTIVE", "the service is inactive and cannot be booked");
    assertCandidate(service, q.providerId, candidates);
    // Without the time rules: they are applied per request (see `offered`).
    const slots = computeSlots({ ...schedule, nowMs: -Infinity, noticeMin: 0, horizonDays: null });
    const dependsOn = [q.clinicId, ...candidates.map((c) => c.userId), ...context.kindScopes];
    const answer: CachedAvailability = { service, slots, dependsOn, goodUntilMs: context.holdsEndMs };
    cache.noteZone(q.clinicId, q.timeZone);
    if (slots.length <= q.maxSlots)
      cache.set(key, versionKeyOf(new Map(Object.entries(context.versions)), dependsOn), answer);
    return answer;
  }
}
