import { type SQL, and, asc, between, eq, gt, inArray, isNull, lt, ne, or, sql } from "drizzle-orm";
import { type MemberStatus, appointments, availabilityVersions, clinicMembers, closures, type Db, dateOverridePeriods, dateOverrides, services, workHours } from "@clinic/db";
import type { Interval } from "../../domain/intervals.ts";
import { type Booking, type DateOverride, type ProviderSchedule, type Slot, type SlotQuery, type SlotRules, type WeeklyPeriod, computeSlots, offeredAt } from "../../domain/slots.ts";
import { addDays, wallClockToInstant } from "../../domain/timezone.ts";
import { DomainError, notFound, validationFailed } from "../../errors.ts";
import type { AvailabilityCache, CachedAvailability } from "./cache.ts";

/** The service fields availability depends on. */
export interface ServiceInfo {
  id: string;
  name: string;
  durationMin: number;
  providerId: string | null;
  isActive: boolean;
  bufferBeforeMin: number;
  bufferAfterMin: number;
  slotStepMin: number | null;
  minNoticeMin: number;
  bookingHorizonDays: number | null;
}

const serviceInfoColumns = {
  id: services.id,
  name: services.name,
  durationMin: services.durationMin,
  providerId: services.providerId,
  isActive: services.isActive,
  bufferBeforeMin: services.bufferBeforeMin,
  bufferAfterMin: services.bufferAfterMin,
  slotStepMin: services.slotStepMin,
  minNoticeMin: services.minNoticeMin,
  bookingHorizonDays: services.bookingHorizonDays,
};

/** The slot engine's rules of a service. */
export const rulesOf = (service: ServiceInfo): SlotRules => ({
  durationMin: service.durationMin,
  stepMin: service.slotStepMin,
  bufferBeforeMin: service.bufferBeforeMin,
  bufferAfterMin: service.bufferAfterMin,
  noticeMin: service.minNoticeMin,
  horizonDays: service.bookingHorizonDays,
});

/** A service of the clinic that is not deleted; 404 otherwise. */
export async function loadService(db: Db, clinicId: string, serviceId: string): Promise<ServiceInfo> {
  const [row] = await db
    .select(serviceInfoColumns)
    .from(services)
    .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId), isNull(services.deletedAt)));
  if (!row) throw notFound("service");
  return row;
}

/** Loads a service of the clinic that is not deleted; 404 otherwise, 422 when inactive. */
export async function loadBookableService(db: Db, clinicId: string, serviceId: string): Promise<ServiceInfo> {
  const service = await loadService(db, clinicId, serviceId);
  if (!service.isActive) throw new DomainError("SERVICE_INACTIVE", "the service is inactive and cannot be booked");
  return service;
}

/** A provider who may deliver a service, whatever their status. */
export interface Candidate {
  userId: string;
  fullName: string;
  status: MemberStatus;
}

/**
 * The providers that may deliver the service: its assigned provider, or every provider of the
 * clinic for an unassigned service; narrowed to `providerId` when given; whatever their status
 * (only approved ones produce slots). Naming a provider the service cannot have is 422
 * NOT_A_PROVIDER.
 */
export async function candidatesOf(db: Db, clinicId: string, service: ServiceInfo, providerId: string | undefined): Promise<Candidate[]> {
  if (service.providerId && providerId && providerId !== service.providerId) {
    throw new DomainError("NOT_A_PROVIDER", "provider_id is not the provider assigned to this service");
  }
  const wanted = service.providerId ?? providerId;
  const rows = await db
    .select({ userId: clinicMembers.userId, fullName: clinicMembers.fullName, status: clinicMembers.status })
    .from(clinicMembers)
    .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.isProvider, true), wanted ? eq(clinicMembers.userId, wanted) : undefined))
    .orderBy(asc(clinicMembers.userId));
  if (providerId && !service.providerId && rows.length === 0) {
    throw new DomainError("NOT_A_PROVIDER", "provider_id is not a provider of this clinic");
  }
  return rows;
}

/** The approved candidates' ids: who offers slots. */
export async function candidateProviders(db: Db, clinicId: string, service: ServiceInfo, providerId: string | undefined): Promise<string[]> {
  return (await candidatesOf(db, clinicId, service, providerId)).filter((c) => c.status === "approved").map((c) => c.userId);
}

/** "Booked appointments of these providers of the clinic": what occupies a provider's time. */
export function bookedAppointmentsOf(clinicId: string, providerIds: string[]): SQL | undefined {
  return and(eq(appointments.clinicId, clinicId), eq(appointments.status, "booked"), inArray(appointments.providerId, providerIds));
}

/** Where and when: the clinic, its zone and the local dates to read schedules for. */
export interface ScheduleScope {
  clinicId: string;
  timeZone: string;
  fromDate: string;
  toDate: string;
  /** An appointment to leave out, as if it did not exist (a reschedule's own). */
  excludeAppointmentId?: string | undefined;
}

/** A closure as the engine sees it, with what an explanation says about it. */
export interface ClosureInterval extends Interval {
  reason: string | null;
}

/** Everything the slot engine needs for the scope, but the clock. */
export type LoadedSchedule = Omit<SlotQuery, "nowMs"> & { clinicClosures: ClosureInterval[] };

const HOUR = 3_600_000;

/**
 * Reads the clinic's and the candidates' hours, date overrides, closures and booked appointments
 * for the scope, and builds the engine's query with the service's rules. Providers carry whether
 * they are approved (only approved ones offer slots; explanations name the others).
 */
export async function loadSchedule(db: Db, scope: ScheduleScope, service: ServiceInfo, candidates: readonly Pick<Candidate, "userId" | "status">[]): Promise<LoadedSchedule> {
  const { clinicId } = scope;
  const providerIds = candidates.map((c) => c.userId);
  // Instants that surely cover every local date of the range in any time zone (UTC−12 … +14),
  // widened by the longest buffers (4 h each side) for the bookings.
  const rangeStart = new Date(wallClockToInstant(scope.fromDate, 0, "UTC") - 44 * HOUR);
  const rangeEnd = new Date(wallClockToInstant(addDays(scope.toDate, 1), 0, "UTC") + 44 * HOUR);
  const hasProviders = providerIds.length > 0;
  const ownedByScope = (providerColumn: typeof workHours.providerId | typeof closures.providerId | typeof dateOverrides.providerId) =>
    hasProviders ? or(isNull(providerColumn), inArray(providerColumn, providerIds)) : isNull(providerColumn);
  const [hours, overrideRows, closureRows, booked] = await Promise.all([
    db
      .select({ providerId: workHours.providerId, weekday: workHours.weekday, opensMin: workHours.opensMin, closesMin: workHours.closesMin })
      .from(workHours)
      .where(and(eq(workHours.clinicId, clinicId), ownedByScope(workHours.providerId))),
    db
      .select({ providerId: dateOverrides.providerId, date: dateOverrides.date, opensMin: dateOverridePeriods.opensMin, closesMin: dateOverridePeriods.closesMin })
      .from(dateOverrides)
      .leftJoin(dateOverridePeriods, and(eq(dateOverridePeriods.clinicId, dateOverrides.clinicId), eq(dateOverridePeriods.overrideId, dateOverrides.id)))
      .where(and(eq(dateOverrides.clinicId, clinicId), between(dateOverrides.date, scope.fromDate, scope.toDate), ownedByScope(dateOverrides.providerId))),
    db
      .select({ providerId: closures.providerId, startsAt: closures.startsAt, endsAt: closures.endsAt, reason: closures.reason })
      .from(closures)
      .where(and(eq(closures.clinicId, clinicId), lt(closures.startsAt, rangeEnd), gt(closures.endsAt, rangeStart), ownedByScope(closures.providerId))),
    hasProviders
      ? db
          .select({
            id: appointments.id,
            providerId: appointments.providerId,
            startsAt: appointments.startsAt,
            endsAt: appointments.endsAt,
            bufferBeforeMin: appointments.bufferBeforeMin,
            bufferAfterMin: appointments.bufferAfterMin,
          })
          .from(appointments)
          .where(
            and(
              bookedAppointmentsOf(clinicId, providerIds),
              lt(appointments.occupiedStart, rangeEnd),
              gt(appointments.occupiedEnd, rangeStart),
              scope.excludeAppointmentId ? ne(appointments.id, scope.excludeAppointmentId) : undefined,
            ),
          )
      : Promise.resolve([]),
  ]);

  const byProvider = <T>() => new Map<string, T[]>(providerIds.map((id) => [id, []]));
  const clinicHours: WeeklyPeriod[] = [];
  const providerHours = byProvider<WeeklyPeriod>();
  for (const h of hours) {
    const period = { weekday: h.weekday, opensMin: h.opensMin, closesMin: h.closesMin };
    if (h.providerId === null) clinicHours.push(period);
    else providerHours.get(h.providerId)?.push(period);
  }
  // One override per owner and date; a left-joined row without a period is a closed day.
  const overrides = new Map<string, DateOverride>();
  for (const o of overrideRows) {
    const key = `${o.providerId ?? ""}|${o.date}`;
    let override = overrides.get(key);
    if (!override) {
      override = { date: o.date, periods: [] };
      overrides.set(key, override);
    }
    if (o.opensMin !== null && o.closesMin !== null) (override.periods as { opensMin: number; closesMin: number }[]).push({ opensMin: o.opensMin, closesMin: o.closesMin });
  }
  const overridesOf = (providerId: string | null) => [...overrides.entries()].filter(([key]) => key.startsWith(`${providerId ?? ""}|`)).map(([, o]) => o);
  const clinicClosures: ClosureInterval[] = [];
  const providerClosures = byProvider<ClosureInterval>();
  for (const c of closureRows) {
    const interval = { start: c.startsAt.getTime(), end: c.endsAt.getTime(), reason: c.reason };
    if (c.providerId === null) clinicClosures.push(interval);
    else providerClosures.get(c.providerId)?.push(interval);
  }
  const bookings = byProvider<Booking>();
  for (const a of booked) {
    bookings.get(a.providerId)?.push({ id: a.id, start: a.startsAt.getTime(), end: a.endsAt.getTime(), bufferBeforeMin: a.bufferBeforeMin, bufferAfterMin: a.bufferAfterMin });
  }
  return {
    ...rulesOf(service),
    timeZone: scope.timeZone,
    fromDate: scope.fromDate,
    toDate: scope.toDate,
    clinicHours,
    clinicOverrides: overridesOf(null),
    clinicClosures,
    providers: candidates.map(
      (c): ProviderSchedule => ({
        providerId: c.userId,
        approved: c.status === "approved",
        hours: providerHours.get(c.userId) ?? [],
        overrides: overridesOf(c.userId),
        closures: providerClosures.get(c.userId) ?? [],
        bookings: bookings.get(c.userId) ?? [],
      }),
    ),
  };
}

/** The bookable slots of the scope at `now`, with every rule of the service (booking and rescheduling re-check with this). */
export async function computeAvailability(db: Db, scope: ScheduleScope, service: ServiceInfo, providerIds: readonly string[], now: Date): Promise<Slot[]> {
  const schedule = await loadSchedule(
    db,
    scope,
    service,
    providerIds.map((userId) => ({ userId, status: "approved" as const })),
  );
  return computeSlots({ ...schedule, nowMs: now.getTime() });
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
