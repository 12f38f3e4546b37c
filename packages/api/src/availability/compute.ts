import { and, asc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { appointments, availabilityVersions, clinicMembers, closures, type Db, services, workHours } from "@clinic/db";
import { type Interval } from "../domain/intervals.ts";
import { type ProviderSchedule, type Slot, type WeeklyPeriod, computeSlots } from "../domain/slots.ts";
import { addDays, wallClockToInstant } from "../domain/timezone.ts";
import { DomainError } from "../errors.ts";
import type { AvailabilityCache } from "./cache.ts";

/** The service fields availability depends on. */
export interface ServiceInfo {
  id: string;
  name: string;
  durationMin: number;
  providerId: string | null;
  isActive: boolean;
}

/** Loads a service of the clinic that is not deleted; 404 otherwise, 422 when inactive. */
export async function loadBookableService(db: Db, clinicId: string, serviceId: string): Promise<ServiceInfo> {
  const [row] = await db
    .select({ id: services.id, name: services.name, durationMin: services.durationMin, providerId: services.providerId, isActive: services.isActive })
    .from(services)
    .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId), isNull(services.deletedAt)));
  if (!row) throw new DomainError("NOT_FOUND", "service not found");
  if (!row.isActive) throw new DomainError("SERVICE_INACTIVE", "the service is inactive and cannot be booked");
  return row;
}

/**
 * The providers that may deliver the service: its assigned provider, or every provider of the
 * clinic for an unassigned service; narrowed to `providerId` when given. Only approved providers
 * produce slots. Naming a provider the service cannot have is 422 NOT_A_PROVIDER.
 */
export async function candidateProviders(db: Db, clinicId: string, service: ServiceInfo, providerId: string | undefined): Promise<string[]> {
  if (service.providerId && providerId && providerId !== service.providerId) {
    throw new DomainError("NOT_A_PROVIDER", "provider_id is not the provider assigned to this service");
  }
  const wanted = service.providerId ?? providerId;
  const rows = await db
    .select({ userId: clinicMembers.userId, status: clinicMembers.status })
    .from(clinicMembers)
    .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.isProvider, true), wanted ? eq(clinicMembers.userId, wanted) : undefined))
    .orderBy(asc(clinicMembers.userId));
  if (providerId && !service.providerId && rows.length === 0) {
    throw new DomainError("NOT_A_PROVIDER", "provider_id is not a provider of this clinic");
  }
  return rows.filter((r) => r.status === "approved").map((r) => r.userId);
}

export interface AvailabilityInput {
  clinicId: string;
  timeZone: string;
  service: ServiceInfo;
  providerIds: string[];
  fromDate: string;
  toDate: string;
  now: Date;
}

/** Reads hours, closures and bookings for the range and runs the slot engine. */
export async function computeAvailability(db: Db, input: AvailabilityInput): Promise<Slot[]> {
  const { clinicId, providerIds } = input;
  // Instants that surely cover every local date of the range in any time zone (UTC−12 … +14).
  const rangeStart = new Date(wallClockToInstant(input.fromDate, 0, "UTC") - 36 * 3_600_000);
  const rangeEnd = new Date(wallClockToInstant(addDays(input.toDate, 1), 0, "UTC") + 36 * 3_600_000);
  const hasProviders = providerIds.length > 0;
  const [hours, closureRows, booked] = await Promise.all([
    db
      .select({ providerId: workHours.providerId, weekday: workHours.weekday, opensMin: workHours.opensMin, closesMin: workHours.closesMin })
      .from(workHours)
      .where(
        and(
          eq(workHours.clinicId, clinicId),
          hasProviders ? or(isNull(workHours.providerId), inArray(workHours.providerId, providerIds)) : isNull(workHours.providerId),
        ),
      ),
    db
      .select({ providerId: closures.providerId, startsAt: closures.startsAt, endsAt: closures.endsAt })
      .from(closures)
      .where(
        and(
          eq(closures.clinicId, clinicId),
          lt(closures.startsAt, rangeEnd),
          gt(closures.endsAt, rangeStart),
          hasProviders ? or(isNull(closures.providerId), inArray(closures.providerId, providerIds)) : isNull(closures.providerId),
        ),
      ),
    hasProviders
      ? db
          .select({ providerId: appointments.providerId, startsAt: appointments.startsAt, endsAt: appointments.endsAt })
          .from(appointments)
          .where(
            and(
              eq(appointments.clinicId, clinicId),
              eq(appointments.status, "booked"),
              inArray(appointments.providerId, providerIds),
              lt(appointments.startsAt, rangeEnd),
              gt(appointments.endsAt, rangeStart),
            ),
          )
      : Promise.resolve([]),
  ]);

  const clinicHours: WeeklyPeriod[] = [];
  const providerHours = new Map<string, WeeklyPeriod[]>(providerIds.map((id) => [id, []]));
  for (const h of hours) {
    const period = { weekday: h.weekday, opensMin: h.opensMin, closesMin: h.closesMin };
    if (h.providerId === null) clinicHours.push(period);
    else providerHours.get(h.providerId)?.push(period);
  }
  const clinicClosures: Interval[] = [];
  const busy = new Map<string, Interval[]>(providerIds.map((id) => [id, []]));
  for (const c of closureRows) {
    const interval = { start: c.startsAt.getTime(), end: c.endsAt.getTime() };
    if (c.providerId === null) clinicClosures.push(interval);
    else busy.get(c.providerId)?.push(interval);
  }
  for (const a of booked) busy.get(a.providerId)?.push({ start: a.startsAt.getTime(), end: a.endsAt.getTime() });

  const providers: ProviderSchedule[] = providerIds.map((providerId) => ({
    providerId,
    hours: providerHours.get(providerId) ?? [],
    busy: busy.get(providerId) ?? [],
  }));
  return computeSlots({
    timeZone: input.timeZone,
    fromDate: input.fromDate,
    toDate: input.toDate,
    durationMin: input.service.durationMin,
    nowMs: input.now.getTime(),
    clinicHours,
    clinicClosures,
    providers,
  });
}

/** Current availability versions of every scope of the clinic (one indexed query). */
export async function readVersions(db: Db, clinicId: string): Promise<Map<string, number>> {
  let query = versionQueries.get(db);
  if (!query) {
    query = buildVersionQuery(db);
    versionQueries.set(db, query);
  }
  const rows = await query.execute({ clinicId });
  return new Map(rows.map((r) => [r.scopeId, r.version]));
}

/** Runs before every availability answer, cached or not: prepared once per database handle. */
function buildVersionQuery(db: Db) {
  return db
    .select({ scopeId: availabilityVersions.scopeId, version: availabilityVersions.version })
    .from(availabilityVersions)
    .where(eq(availabilityVersions.clinicId, sql.placeholder("clinicId")))
    .prepare("availability_versions");
}
const versionQueries = new WeakMap<Db, ReturnType<typeof buildVersionQuery>>();

/**
 * The version key an answer depends on: the clinic scope and the service's assigned provider, or
 * for an unassigned service every scope of the clinic (a newly approved provider joins the union).
 */
export function versionKeyOf(versions: Map<string, number>, clinicId: string, assignedProviderId: string | null): string {
  if (assignedProviderId) return `${versions.get(clinicId) ?? 0}:${versions.get(assignedProviderId) ?? 0}`;
  return [...versions].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(",");
}

interface CachedAvailability {
  service: ServiceInfo;
  slots: Slot[];
}

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
}

/**
 * Availability with the coherent cache: versions are read first (one query); a cached answer is
 * used only when it was computed under the same versions, otherwise it is recomputed from one
 * consistent snapshot. Slots already in the past are filtered at read time.
 */
export async function availabilityWithCache(
  db: Db,
  cache: AvailabilityCache,
  query: AvailabilityQuery,
): Promise<{ service: ServiceInfo; slots: Slot[]; cacheHit: boolean }> {
  const key = `${query.clinicId}|${query.serviceId}|${query.providerId ?? ""}|${query.fromDate}|${query.toDate}|${query.timeZone}`;
  const versions = query.versions ?? (await readVersions(db, query.clinicId));
  const hint = cache.peek(key) as CachedAvailability | undefined;
  if (hint) {
    const versionKey = versionKeyOf(versions, query.clinicId, hint.service.providerId);
    const cached = cache.get(key, versionKey) as CachedAvailability | undefined;
    if (cached) {
      const nowMs = query.now.getTime();
      return { service: cached.service, slots: cached.slots.filter((s) => s.start > nowMs), cacheHit: true };
    }
  }
  const computed = await db.transaction(
    async (tx) => {
      const service = await loadBookableService(tx, query.clinicId, query.serviceId);
      const providerIds = await candidateProviders(tx, query.clinicId, service, query.providerId);
      const slots = await computeAvailability(tx, { ...query, service, providerIds });
      return { service, slots };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
  cache.set(key, versionKeyOf(versions, query.clinicId, computed.service.providerId), computed satisfies CachedAvailability);
  return { ...computed, cacheHit: false };
}
