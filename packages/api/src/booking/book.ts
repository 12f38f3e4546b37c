import { createHash } from "node:crypto";
import { and, asc, count, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { appointments, clinicMembers, type Db, idempotencyKeys, pgErrorInfo, services } from "@clinic/db";
import { candidateProviders, computeAvailability, loadBookableService } from "../availability/compute.ts";
import { invalidateAvailability } from "../availability/versions.ts";
import { addDays, localDateOf, wallClockToInstant } from "../domain/timezone.ts";
import { DomainError } from "../errors.ts";

export interface PatientInput {
  name: string;
  email?: string | undefined;
  phone_e164?: string | undefined;
}

export interface BookingRequest {
  clinicId: string;
  timeZone: string;
  userId: string;
  serviceId: string;
  start: Date;
  providerId?: string | undefined;
  patient: PatientInput;
  notes?: string | undefined;
  idempotencyKey?: string | undefined;
}

/** What the API shows of an appointment. */
export interface AppointmentView {
  id: string;
  clinic_id: string;
  service_id: string;
  service_name: string;
  provider_id: string;
  provider_name: string;
  start: Date;
  end: Date;
  status: "booked" | "canceled";
  patient: { name: string; email: string | null; phone_e164: string | null };
  notes: string | null;
  created_at: Date;
  updated_at: Date;
  canceled_at: Date | null;
}

export const appointmentColumns = {
  id: appointments.id,
  clinicId: appointments.clinicId,
  serviceId: appointments.serviceId,
  serviceName: services.name,
  providerId: appointments.providerId,
  providerName: clinicMembers.fullName,
  startsAt: appointments.startsAt,
  endsAt: appointments.endsAt,
  status: appointments.status,
  patientName: appointments.patientName,
  patientEmail: appointments.patientEmail,
  patientPhone: appointments.patientPhoneE164,
  notes: appointments.notes,
  createdAt: appointments.createdAt,
  updatedAt: appointments.updatedAt,
  canceledAt: appointments.canceledAt,
};

type AppointmentRow = {
  [K in keyof typeof appointmentColumns]: (typeof appointmentColumns)[K]["_"]["data"] | ((typeof appointmentColumns)[K]["_"]["notNull"] extends true ? never : null);
};

export const toAppointment = (row: AppointmentRow): AppointmentView => ({
  id: row.id,
  clinic_id: row.clinicId,
  service_id: row.serviceId,
  service_name: row.serviceName,
  provider_id: row.providerId,
  provider_name: row.providerName,
  start: row.startsAt,
  end: row.endsAt,
  status: row.status,
  patient: { name: row.patientName, email: row.patientEmail, phone_e164: row.patientPhone },
  notes: row.notes,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  canceled_at: row.canceledAt,
});

/** The appointments query joined with service and provider names, scoped to a clinic. */
export function selectAppointments(db: Db) {
  return db
    .select(appointmentColumns)
    .from(appointments)
    .innerJoin(services, and(eq(services.clinicId, appointments.clinicId), eq(services.id, appointments.serviceId)))
    .innerJoin(clinicMembers, and(eq(clinicMembers.clinicId, appointments.clinicId), eq(clinicMembers.userId, appointments.providerId)));
}

/** One appointment of the clinic; 404 when absent or in another clinic. */
export async function getAppointment(db: Db, clinicId: string, id: string): Promise<AppointmentView> {
  const [row] = await selectAppointments(db).where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, id)));
  if (!row) throw new DomainError("NOT_FOUND", "appointment not found");
  return toAppointment(row);
}

function requestHash(request: BookingRequest): string {
  const canonical = JSON.stringify([
    request.serviceId,
    request.start.toISOString(),
    request.providerId ?? null,
    request.patient.name,
    request.patient.email ?? null,
    request.patient.phone_e164 ?? null,
    request.notes ?? null,
  ]);
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * Providers free for `start`, in the order the any-provider rule picks them: fewest booked
 * appointments that local date first, then by full name.
 */
async function rankFreeProviders(db: Db, clinicId: string, timeZone: string, providerIds: string[], start: Date): Promise<string[]> {
  if (providerIds.length <= 1) return providerIds;
  const date = localDateOf(start.getTime(), timeZone);
  const dayStart = new Date(wallClockToInstant(date, 0, timeZone));
  const dayEnd = new Date(wallClockToInstant(addDays(date, 1), 0, timeZone));
  const load = await db
    .select({ providerId: appointments.providerId, n: count() })
    .from(appointments)
    .where(
      and(
        eq(appointments.clinicId, clinicId),
        eq(appointments.status, "booked"),
        inArray(appointments.providerId, providerIds),
        gte(appointments.startsAt, dayStart),
        lt(appointments.startsAt, dayEnd),
      ),
    )
    .groupBy(appointments.providerId);
  const names = await db
    .select({ userId: clinicMembers.userId, fullName: clinicMembers.fullName })
    .from(clinicMembers)
    .where(and(eq(clinicMembers.clinicId, clinicId), inArray(clinicMembers.userId, providerIds)))
    .orderBy(asc(clinicMembers.fullName), asc(clinicMembers.userId));
  const loadOf = new Map(load.map((l) => [l.providerId, l.n]));
  const byName = names.map((n) => n.userId);
  return [...byName].sort((a, b) => (loadOf.get(a) ?? 0) - (loadOf.get(b) ?? 0) || byName.indexOf(a) - byName.indexOf(b));
}

/**
 * True when an insert lost the race for a provider's time: the exclusion constraint refused it,
 * or PostgreSQL broke a deadlock between two conflicting inserts (each waits for the other's
 * uncommitted index entry) by aborting this one — the other transaction keeps the slot.
 */
function lostTheSlot(error: unknown): boolean {
  const info = pgErrorInfo(error);
  return info?.constraint === "appointments_no_double_booking" || info?.code === "40P01";
}

/**
 * Books an appointment. In one transaction: re-computes the availability of the start's local
 * date with the same engine that lists slots (so an offered slot is a bookable slot), picks the
 * provider, inserts — the exclusion constraint refuses a concurrent double booking, in which case
 * an any-provider booking moves on to the next free provider — and invalidates the provider's
 * availability. With an idempotency key, a retry returns the stored response.
 */
export async function bookAppointment(db: Db, request: BookingRequest, now: Date): Promise<{ appointment: AppointmentView; replayed: boolean }> {
  const hash = requestHash(request);
  return db.transaction(async (tx) => {
    if (request.idempotencyKey) {
      // Claim the key first: a concurrent request with the same key waits here until this
      // transaction ends, then sees the stored response instead of booking a second time.
      const claimed = await tx
        .insert(idempotencyKeys)
        .values({ clinicId: request.clinicId, userId: request.userId, key: request.idempotencyKey, requestHash: hash, statusCode: 0, response: {} })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (claimed.length === 0) {
        const [stored] = await tx
          .select()
          .from(idempotencyKeys)
          .where(and(eq(idempotencyKeys.clinicId, request.clinicId), eq(idempotencyKeys.userId, request.userId), eq(idempotencyKeys.key, request.idempotencyKey)));
        if (!stored) throw new DomainError("CONFLICT", "the idempotency key is in use by a concurrent request; retry");
        if (stored.requestHash !== hash) {
          throw new DomainError("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with a different request body");
        }
        const appointmentId = typeof stored.response === "object" && stored.response !== null && "appointment_id" in stored.response ? stored.response.appointment_id : undefined;
        if (typeof appointmentId !== "string") throw new DomainError("CONFLICT", "the original request with this key did not complete; retry");
        return { appointment: await getAppointment(tx, request.clinicId, appointmentId), replayed: true };
      }
    }

    const service = await loadBookableService(tx, request.clinicId, request.serviceId);
    const providerIds = await candidateProviders(tx, request.clinicId, service, request.providerId);
    const date = localDateOf(request.start.getTime(), request.timeZone);
    const slots = await computeAvailability(tx, {
      clinicId: request.clinicId,
      timeZone: request.timeZone,
      service,
      providerIds,
      fromDate: date,
      toDate: date,
      now,
    });
    const startMs = request.start.getTime();
    const slot = slots.find((s) => s.start === startMs);
    if (!slot) {
      throw new DomainError("SLOT_UNAVAILABLE", `${request.start.toISOString()} is not an available slot of this service${request.providerId ? " for that provider" : ""}`);
    }
    const order = await rankFreeProviders(tx, request.clinicId, request.timeZone, slot.providerIds, request.start);
    let bookedId: string | undefined;
    let bookedProvider: string | undefined;
    for (const providerId of order) {
      try {
        // A savepoint per attempt: losing the race for one provider must not abort the transaction.
        const [row] = await tx.transaction(async (attempt) =>
          attempt
            .insert(appointments)
            .values({
              clinicId: request.clinicId,
              serviceId: service.id,
              providerId,
              startsAt: new Date(slot.start),
              endsAt: new Date(slot.end),
              patientName: request.patient.name,
              patientEmail: request.patient.email ?? null,
              patientPhoneE164: request.patient.phone_e164 ?? null,
              notes: request.notes ?? null,
            })
            .returning({ id: appointments.id }),
        );
        bookedId = row?.id;
        bookedProvider = providerId;
        break;
      } catch (error) {
        if (!lostTheSlot(error)) throw error;
      }
    }
    if (!bookedId || !bookedProvider) throw new DomainError("SLOT_UNAVAILABLE", `${request.start.toISOString()} was just booked by someone else`);
    await invalidateAvailability(tx, request.clinicId, [bookedProvider]);
    if (request.idempotencyKey) {
      await tx
        .update(idempotencyKeys)
        .set({ statusCode: 201, response: { appointment_id: bookedId } })
        .where(and(eq(idempotencyKeys.clinicId, request.clinicId), eq(idempotencyKeys.userId, request.userId), eq(idempotencyKeys.key, request.idempotencyKey)));
    }
    return { appointment: await getAppointment(tx, request.clinicId, bookedId), replayed: false };
  });
}

/** Cancels an appointment (idempotent) and frees its slot. */
export async function cancelAppointment(db: Db, clinicId: string, id: string): Promise<AppointmentView> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(appointments)
      .set({ status: "canceled", canceledAt: sql`coalesce(${appointments.canceledAt}, now())`, updatedAt: new Date() })
      .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, id)))
      .returning({ providerId: appointments.providerId });
    if (!row) throw new DomainError("NOT_FOUND", "appointment not found");
    await invalidateAvailability(tx, clinicId, [row.providerId]);
    return getAppointment(tx, clinicId, id);
  });
}
