// The service being asked about and the providers who may deliver it.
import { and, asc, eq, isNull } from "drizzle-orm";
import { type MemberStatus, clinicMembers, type Db, services } from "@clinic/db";
import type { SlotRules } from "../../domain/slots.ts";
import { DomainError, notFound } from "../../errors.ts";
import { type Question, storedQuestions } from "../../schemas/questions.ts";

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
  /** Seats of a slot: a group session when > 1 (§14). */
  capacity: number;
  /** Kinds of resources a booking needs one of each (§14). */
  requiredResourceKinds: string[];
  /** What a booking asks the patient (§19); the booking checks its answers against these. */
  questions: Question[];
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
  capacity: services.capacity,
  requiredResourceKinds: services.requiredResourceKinds,
  questions: services.questions,
};

/** The slot engine's rules of a service. */
export const rulesOf = (service: ServiceInfo): SlotRules => ({
  durationMin: service.durationMin,
  stepMin: service.slotStepMin,
  bufferBeforeMin: service.bufferBeforeMin,
  bufferAfterMin: service.bufferAfterMin,
  noticeMin: service.minNoticeMin,
  horizonDays: service.bookingHorizonDays,
  capacity: service.capacity,
  serviceId: service.id,
});

/** A service of the clinic that is not deleted; 404 otherwise. */
export async function loadService(db: Db, clinicId: string, serviceId: string): Promise<ServiceInfo> {
  const [row] = await db
    .select(serviceInfoColumns)
    .from(services)
    .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId), isNull(services.deletedAt)));
  if (!row) throw notFound("service");
  return { ...row, questions: storedQuestions.parse(row.questions) };
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
  /** Their daily limit (CONTRACT §8 v1.4); null or absent: none. */
  maxDailyAppointments?: number | null;
}

/**
 * The providers that may deliver the service: its assigned provider, or every provider of the
 * clinic for an unassigned service; narrowed to `providerId` when given; whatever their status
 * (only approved ones produce slots). Naming a provider the service cannot have is 422
 * NOT_A_PROVIDER.
 */
export async function candidatesOf(
  db: Db,
  clinicId: string,
  service: ServiceInfo,
  providerId: string | undefined,
): Promise<Candidate[]> {
  const wanted = service.providerId ?? providerId;
  const rows = await db
    .select({ userId: clinicMembers.userId, fullName: clinicMembers.fullName, status: clinicMembers.status })
    .from(clinicMembers)
    .where(
      and(
        eq(clinicMembers.clinicId, clinicId),
        eq(clinicMembers.isProvider, true),
        wanted ? eq(clinicMembers.userId, wanted) : undefined,
      ),
    )
    .orderBy(asc(clinicMembers.userId));
  assertCandidate(service, providerId, rows);
  return rows;
}

/** The approved candidates' ids: who offers slots. */
export async function candidateProviders(
  db: Db,
  clinicId: string,
  service: ServiceInfo,
  providerId: string | undefined,
): Promise<string[]> {
  return (await candidatesOf(db, clinicId, service, providerId))
    .filter((c) => c.status === "approved")
    .map((c) => c.userId);
}

/** NOT_A_PROVIDER when a named provider cannot deliver the service (the service's assigned one, or a provider of the clinic). */
export function assertCandidate(
  service: ServiceInfo,
  providerId: string | undefined,
  candidates: readonly unknown[],
): void {
  if (service.providerId && providerId && providerId !== service.providerId) {
    throw new DomainError("NOT_A_PROVIDER", "provider_id is not the provider assigned to this service");
  }
  if (providerId && !service.providerId && candidates.length === 0) {
    throw new DomainError("NOT_A_PROVIDER", "provider_id is not a provider of this clinic");
  }
}
