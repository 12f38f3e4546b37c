import { type SQL, and, asc, eq, inArray, isNull } from "drizzle-orm";
import { z } from "zod";
import { type Db, clinicMembers, services } from "@clinic/db";
import { notFound } from "../../errors.ts";
import { keyset } from "../../pagination.ts";
import { questionOutput, storedQuestions } from "../../schemas/questions.ts";
import { instantOutput } from "../../schemas/wire.ts";

/** A service as the API shows it. */
export const serviceOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  name: z.string(),
  duration_min: z.number().int(),
  /** Decimal string with exactly two decimals, or null. */
  price: z.string().nullable(),
  /** User id of the assigned provider, or null (any provider). */
  provider_id: z.string().nullable(),
  /** The provider's per-clinic full name. */
  provider_name: z.string().nullable(),
  is_active: z.boolean(),
  buffer_before_min: z.number().int(),
  buffer_after_min: z.number().int(),
  /** Distance between slot starts; null = duration_min. */
  slot_step_min: z.number().int().nullable(),
  min_notice_min: z.number().int(),
  /** How many days ahead (clinic dates) slots are offered; null = no limit. */
  booking_horizon_days: z.number().int().nullable(),
  /** Patients' own bookings are `pending` until the clinic confirms them (§13). */
  requires_confirmation: z.boolean(),
  /** Seats of one slot: a group session when > 1 (§14). */
  capacity: z.number().int(),
  /** Kinds of resources a booking needs, one of each (§14); [] = none. */
  required_resource_kinds: z.array(z.string()),
  /** What a booking of it asks the patient (§19); [] = nothing. */
  questions: z.array(questionOutput),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type ServiceView = z.infer<typeof serviceOutput>;

/** The one column list of a service: its row plus the assigned provider's per-clinic name. */
export const serviceColumns = {
  id: services.id,
  clinicId: services.clinicId,
  name: services.name,
  durationMin: services.durationMin,
  price: services.price,
  providerId: services.providerId,
  providerName: clinicMembers.fullName,
  isActive: services.isActive,
  bufferBeforeMin: services.bufferBeforeMin,
  bufferAfterMin: services.bufferAfterMin,
  slotStepMin: services.slotStepMin,
  minNoticeMin: services.minNoticeMin,
  bookingHorizonDays: services.bookingHorizonDays,
  requiresConfirmation: services.requiresConfirmation,
  capacity: services.capacity,
  requiredResourceKinds: services.requiredResourceKinds,
  questions: services.questions,
  createdAt: services.createdAt,
  updatedAt: services.updatedAt,
};

function servicesWithProvider(db: Db) {
  return db
    .select(serviceColumns)
    .from(services)
    .leftJoin(
      clinicMembers,
      and(eq(clinicMembers.clinicId, services.clinicId), eq(clinicMembers.userId, services.providerId)),
    )
    .$dynamic();
}
export type ServiceRow = Awaited<ReturnType<typeof servicesWithProvider>>[number];

/** Formats a joined service row for the API. */
export const toService = (row: ServiceRow): ServiceView => ({
  id: row.id,
  clinic_id: row.clinicId,
  name: row.name,
  duration_min: row.durationMin,
  price: row.price,
  provider_id: row.providerId,
  provider_name: row.providerId === null ? null : row.providerName,
  is_active: row.isActive,
  buffer_before_min: row.bufferBeforeMin,
  buffer_after_min: row.bufferAfterMin,
  slot_step_min: row.slotStepMin,
  min_notice_min: row.minNoticeMin,
  booking_horizon_days: row.bookingHorizonDays,
  requires_confirmation: row.requiresConfirmation,
  capacity: row.capacity,
  required_resource_kinds: row.requiredResourceKinds,
  questions: storedQuestions.parse(row.questions),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** Services are listed by name, then id. */
export const servicePages = keyset<ServiceRow>(
  "asc",
  { column: services.name, kind: "text", of: (r) => r.name },
  { column: services.id, kind: "uuid", of: (r) => r.id },
);

/** Live services of one clinic joined with their provider's membership; deleted ones never show. */
export function selectServices(db: Db, clinicId: string) {
  return {
    where: (...conditions: (SQL | undefined)[]) =>
      servicesWithProvider(db).where(and(eq(services.clinicId, clinicId), isNull(services.deletedAt), ...conditions)),
  };
}

/** One live service of the clinic; 404 when absent, soft-deleted or in another clinic. */
export async function getService(db: Db, clinicId: string, serviceId: string): Promise<ServiceView> {
  const [row] = await selectServices(db, clinicId).where(eq(services.id, serviceId));
  if (!row) throw notFound("service");
  return toService(row);
}

/** Live services of the clinic with these ids, by name then id. */
export async function servicesByIds(db: Db, clinicId: string, ids: readonly string[]): Promise<ServiceView[]> {
  if (ids.length === 0) return [];
  const rows = await selectServices(db, clinicId)
    .where(inArray(services.id, [...ids]))
    .orderBy(asc(services.name), asc(services.id));
  return rows.map(toService);
}
