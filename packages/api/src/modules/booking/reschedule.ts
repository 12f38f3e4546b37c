import { and, eq, sql } from "drizzle-orm";
import { appointments, type Db } from "@clinic/db";
import { DomainError } from "../../errors.ts";
import { candidatesOf, invalidateAvailability, loadBookableService } from "../availability/index.ts";
import { type AppointmentActor, type AppointmentView, getAppointment, lockAppointment } from "./appointments.ts";
import { lostTheSlot, occupancyOf, requireSlot } from "./book.ts";
import { recordChanges } from "../events/index.ts";
import { onceForKey } from "./idempotency.ts";
import { dropReminders, planReminders } from "./reminders.ts";

export interface RescheduleRequest {
  clinicId: string;
  timeZone: string;
  appointmentId: string;
  start: Date;
  /** Another candidate provider of the service; absent = the same provider. */
  providerId?: string | undefined;
  idempotencyKey?: string | undefined;
}

/**
 * Moves a booked appointment, in one transaction: the new start must be a slot of its service
 * computed as if this appointment did not exist (so a move by less than its duration works), for
 * the same provider unless another candidate is named. Either it moves (new time, the service's
 * current duration and buffers, `rescheduled_at`) and its old time is free, or nothing changes
 * (409 SLOT_UNAVAILABLE). A canceled appointment does not move (409 INVALID_TRANSITION).
 */
export async function rescheduleAppointment(db: Db, request: RescheduleRequest, actor: AppointmentActor, now: Date): Promise<{ appointment: AppointmentView; replayed: boolean }> {
  const { clinicId, appointmentId } = request;
  return db.transaction(async (tx) => {
    const { replayed } = await onceForKey(
      tx,
      { clinicId, userId: actor.userId, key: request.idempotencyKey, request: ["reschedule", appointmentId, request.start.toISOString(), request.providerId ?? null] },
      async () => {
        const current = await lockAppointment(tx, clinicId, appointmentId, actor);
        if (current.status !== "booked") {
          throw new DomainError("INVALID_TRANSITION", "a canceled appointment cannot be rescheduled", { extra: { status: current.status } });
        }
        const service = await loadBookableService(tx, clinicId, current.serviceId);
        const providerId = request.providerId ?? current.providerId;
        // A named provider must be a candidate of the service (else 422); the provider it moves to
        // must take bookings (approved) and still provide the service.
        const candidates = await candidatesOf(tx, clinicId, service, request.providerId);
        const target = candidates.find((c) => c.userId === providerId);
        if (target?.status !== "approved") {
          throw new DomainError("SLOT_UNAVAILABLE", target ? `the provider is ${target.status} and takes no bookings` : "the appointment's provider no longer provides this service; name another provider");
        }
        await requireSlot(tx, { ...request, excludeAppointmentId: appointmentId }, service, [providerId], request.start, now, " for that provider");
        try {
          // A savepoint: a concurrent booking of the new time refuses this one, and nothing changes.
          await tx.transaction((attempt) =>
            attempt
              .update(appointments)
              .set({ providerId, ...occupancyOf(request.start, service), rescheduledAt: sql`now()`, revision: sql`${appointments.revision} + 1` })
              .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, appointmentId))),
          );
        } catch (error) {
          if (lostTheSlot(error)) throw new DomainError("SLOT_UNAVAILABLE", `${request.start.toISOString()} was just booked by someone else`, { cause: error });
          throw error;
        }
        await invalidateAvailability(tx, clinicId, [current.providerId, providerId]);
        await dropReminders(tx, clinicId, appointmentId);
        await planReminders(tx, clinicId, { id: appointmentId, start: request.start }, now);
        const moved = await getAppointment(tx, clinicId, appointmentId);
        await recordChanges(tx, clinicId, [
          { type: "appointment.rescheduled", data: { ...moved, previous_start: current.startsAt, previous_end: current.endsAt } },
        ]);
        return appointmentId;
      },
    );
    return { appointment: await getAppointment(tx, clinicId, appointmentId), replayed };
  });
}
