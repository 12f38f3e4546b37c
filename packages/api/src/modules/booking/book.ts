import { and, asc, count, eq, gt, gte, inArray, lt, sql } from "drizzle-orm";
import { appointments, clinicMembers, clinicPatients, type Db, pgErrorInfo } from "@clinic/db";
import type { Slot } from "../../domain/slots.ts";
import { addDays, localDateOf, wallClockToInstant } from "../../domain/timezone.ts";
import { DomainError } from "../../errors.ts";
import {
  type ScheduleScope,
  type ServiceInfo,
  bookedAppointmentsOf,
  candidateProviders,
  computeAvailability,
  invalidateAvailability,
  loadBookableService,
} from "../availability/index.ts";
import { type AppointmentView, getAppointment } from "./appointments.ts";
import { recordChanges } from "../events/index.ts";
import { onceForKey } from "./idempotency.ts";
import { planReminders } from "./reminders.ts";

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
  /** The registered patient it is for (a patient booking for themselves, or staff for them). */
  patientUserId?: string | undefined;
  /** For a patient's own booking: the most future booked appointments they may hold in the clinic. */
  openBookingLimit?: number | undefined;
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
    .where(and(bookedAppointmentsOf(clinicId, providerIds), gte(appointments.startsAt, dayStart), lt(appointments.startsAt, dayEnd)))
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
export function lostTheSlot(error: unknown): boolean {
  const info = pgErrorInfo(error);
  return info?.constraint === "appointments_no_double_booking" || info?.code === "40P01";
}

/**
 * Refuses a patient who already holds `limit` booked appointments in the future in the clinic
 * (409 BOOKING_LIMIT). The patient's row of the clinic is locked first, so one patient's parallel
 * bookings are counted one after the other and can never exceed the limit together.
 */
async function assertBelowOpenBookingLimit(tx: Db, clinicId: string, userId: string, limit: number, now: Date): Promise<void> {
  await tx
    .insert(clinicPatients)
    .values({ clinicId, userId })
    .onConflictDoUpdate({ target: [clinicPatients.clinicId, clinicPatients.userId], set: { lastBookedAt: sql`excluded.last_booked_at` } });
  const [open] = await tx
    .select({ n: count() })
    .from(appointments)
    .where(and(eq(appointments.clinicId, clinicId), eq(appointments.patientUserId, userId), eq(appointments.status, "booked"), gt(appointments.startsAt, now)));
  if ((open?.n ?? 0) >= limit) {
    throw new DomainError("BOOKING_LIMIT", `you already hold ${String(open?.n ?? 0)} upcoming appointments with this clinic, its maximum; cancel one to book another`, {
      extra: { max_open_bookings: limit },
    });
  }
}

/** The time a booking occupies its provider: its own, widened by its service's buffers. */
export function occupancyOf(start: Date, service: ServiceInfo) {
  const end = new Date(start.getTime() + service.durationMin * 60_000);
  return {
    startsAt: start,
    endsAt: end,
    bufferBeforeMin: service.bufferBeforeMin,
    bufferAfterMin: service.bufferAfterMin,
    occupiedStart: new Date(start.getTime() - service.bufferBeforeMin * 60_000),
    occupiedEnd: new Date(end.getTime() + service.bufferAfterMin * 60_000),
  };
}

/** The slot starting at `start` of the service on its local date, at `now`, or 409 SLOT_UNAVAILABLE. */
export async function requireSlot(db: Db, scope: Omit<ScheduleScope, "fromDate" | "toDate">, service: ServiceInfo, providerIds: readonly string[], start: Date, now: Date, what: string): Promise<Slot> {
  const date = localDateOf(start.getTime(), scope.timeZone);
  const slots = await computeAvailability(db, { ...scope, fromDate: date, toDate: date }, service, providerIds, now);
  const slot = slots.find((s) => s.start === start.getTime());
  if (!slot) throw new DomainError("SLOT_UNAVAILABLE", `${start.toISOString()} is not an available slot of this service${what}`);
  return slot;
}

/**
 * Books an appointment. In one transaction: re-computes the availability of the start's local
 * date with the same engine that lists slots (so an offered slot is a bookable slot), picks the
 * provider, inserts — the exclusion constraint refuses a concurrent booking whose occupied time
 * overlaps, in which case an any-provider booking moves on to the next free provider — and
 * invalidates the provider's availability. With an idempotency key, a retry returns the stored
 * response.
 */
export async function bookAppointment(db: Db, request: BookingRequest, now: Date): Promise<{ appointment: AppointmentView; replayed: boolean }> {
  return db.transaction(async (tx) => {
    const { appointmentId, replayed } = await onceForKey(
      tx,
      {
        clinicId: request.clinicId,
        userId: request.userId,
        key: request.idempotencyKey,
        request: [
          "book",
          request.serviceId,
          request.start.toISOString(),
          request.providerId ?? null,
          request.patient.name,
          request.patient.email ?? null,
          request.patient.phone_e164 ?? null,
          request.notes ?? null,
          request.patientUserId ?? null,
        ],
      },
      async () => {
        const service = await loadBookableService(tx, request.clinicId, request.serviceId);
        if (request.openBookingLimit !== undefined && request.patientUserId !== undefined) {
          await assertBelowOpenBookingLimit(tx, request.clinicId, request.patientUserId, request.openBookingLimit, now);
        }
        const providerIds = await candidateProviders(tx, request.clinicId, service, request.providerId);
        const slot = await requireSlot(tx, request, service, providerIds, request.start, now, request.providerId ? " for that provider" : "");
        const order = await rankFreeProviders(tx, request.clinicId, request.timeZone, slot.providerIds, request.start);
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
                  ...occupancyOf(request.start, service),
                  patientName: request.patient.name,
                  patientEmail: request.patient.email ?? null,
                  patientPhoneE164: request.patient.phone_e164 ?? null,
                  notes: request.notes ?? null,
                  bookedByUserId: request.userId,
                  patientUserId: request.patientUserId ?? null,
                })
                .returning({ id: appointments.id }),
            );
            if (row) {
              await invalidateAvailability(tx, request.clinicId, [providerId]);
              await planReminders(tx, request.clinicId, { id: row.id, start: request.start }, now);
              await recordChanges(tx, request.clinicId, [{ type: "appointment.booked", data: await getAppointment(tx, request.clinicId, row.id) }]);
              return row.id;
            }
          } catch (error) {
            if (!lostTheSlot(error)) throw error;
          }
        }
        throw new DomainError("SLOT_UNAVAILABLE", `${request.start.toISOString()} was just booked by someone else`);
      },
    );
    return { appointment: await getAppointment(tx, request.clinicId, appointmentId), replayed };
  });
}
