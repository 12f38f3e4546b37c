import type { Db } from "@clinic/db";
import { localDateOf } from "../../domain/timezone.ts";
import { DomainError, forbidden, notFound } from "../../errors.ts";
import type { RateLimit } from "../ratelimit/index.ts";
import type { AppointmentActor, AppointmentView } from "./appointments.ts";
import { type ScheduleContext, assertCandidate } from "../availability/index.ts";
import { occupancyFields } from "./book.ts";
import {
  WriteAttempts,
  freeAt,
  readStartContext,
  replayOrRefuse,
  resourcesWanted,
  scheduleOf,
  write,
} from "./clinicFunctions.ts";
import { requestHash } from "./idempotency.ts";

export interface RescheduleRequest {
  clinicId: string;
  timeZone: string;
  appointmentId: string;
  start: Date;
  /** Another candidate provider of the service; absent = the same provider. */
  providerId?: string | undefined;
  idempotencyKey?: string | undefined;
  /** The caller's booking-write limit, counted by the read (absent: not counted). */
  rateLimit?: RateLimit | undefined;
}

/**
 * Moves a booked appointment, in two statements like a booking (docs/performance.md#the-booking-path):
 * the new start must be a slot of its service computed as if this appointment did not exist (so
 * a move by less than its duration works), for the same provider unless another candidate is
 * named. Either it moves (new time, the service's current duration and buffers, `rescheduled_at`)
 * and its old time is free, or nothing changes (409 SLOT_UNAVAILABLE). A canceled appointment
 * does not move (409 INVALID_TRANSITION). The write moves it only if it is still as the read saw
 * it (its revision), under its row lock and the exclusion constraint; otherwise it reads again.
 */
export async function rescheduleAppointment(
  db: Db,
  request: RescheduleRequest,
  actor: AppointmentActor,
  now: Date,
): Promise<{ appointment: AppointmentView; replayed: boolean }> {
  const fn = "clinic_reschedule_appointment";
  const { clinicId, appointmentId } = request;
  const date = localDateOf(request.start.getTime(), request.timeZone);
  const idem =
    request.idempotencyKey === undefined
      ? null
      : {
          key: request.idempotencyKey,
          hash: requestHash(["reschedule", appointmentId, request.start.toISOString(), request.providerId ?? null]),
        };
  for (const attempts = new WriteAttempts(); attempts.next();) {
    let checked: { context: ScheduleContext; providerId: string; revision: number };
    try {
      const context = await readStartContext(
        db,
        { ...request, date, rateLimit: attempts.first ? request.rateLimit : undefined },
        now,
      );
      checked = { context, ...checkMove(context, request, actor, now) };
    } catch (error) {
      if (error instanceof DomainError && idem !== null && error.domainCode !== "RATE_LIMITED")
        return replayOrRefuse(db, fn, clinicId, actor.userId, idem, error);
      throw error;
    }
    const written = await write(db, fn, clinicId, {
      user_id: actor.userId,
      idem,
      appointment_id: appointmentId,
      revision: checked.revision,
      provider_id: checked.providerId,
      ...occupancyFields(request.start, checked.context.service),
      schedule: scheduleOf(checked.context, clinicId, [checked.providerId]),
      resources: resourcesWanted(checked.context, request.start),
      now: now.toISOString(),
    });
    if (typeof written !== "string") return written;
    await attempts.after(db, written);
  }
  throw new DomainError("CONFLICT", "the appointment or its schedule kept changing while moving it; retry");
}

/** Who may move it, whether it can move, and to whom: the provider it moves to, and the revision the check was made on. */
function checkMove(
  context: ScheduleContext,
  request: RescheduleRequest,
  actor: AppointmentActor,
  now: Date,
): { providerId: string; revision: number } {
  const current = context.appointment;
  if (!current || (actor.may === "mine-as-patient" && current.patientUserId !== actor.userId))
    throw notFound("appointment");
  if (actor.may === "booked-by-me" && current.bookedByUserId !== actor.userId)
    throw forbidden("your role may change only the appointments you booked");
  if (
    actor.cutoffMin !== undefined &&
    actor.now &&
    (current.status === "booked" || current.status === "pending") &&
    current.startsAt.getTime() - actor.now.getTime() < actor.cutoffMin * 60_000
  ) {
    throw new DomainError(
      "CANCELLATION_CUTOFF",
      `changes are possible until ${String(actor.cutoffMin)} minutes before the start; please contact the clinic`,
      {
        extra: { cutoff_min: actor.cutoffMin },
      },
    );
  }
  if (current.status !== "booked" && current.status !== "pending") {
    throw new DomainError("INVALID_TRANSITION", `an appointment that is ${current.status} cannot be rescheduled`, {
      extra: { status: current.status, current_status: current.status },
    });
  }
  const { service, candidates } = context;
  if (!service.isActive) throw new DomainError("SERVICE_INACTIVE", "the service is inactive and cannot be booked");
  const providerId = request.providerId ?? current.providerId;
  // A named provider must be a candidate of the service (else 422); the provider it moves to must
  // take bookings (approved) and still provide the service.
  assertCandidate(service, request.providerId, candidates);
  const target = candidates.find((c) => c.userId === providerId);
  if (target?.status !== "approved") {
    throw new DomainError(
      "SLOT_UNAVAILABLE",
      target
        ? `the provider is ${target.status} and takes no bookings`
        : "the appointment's provider no longer provides this service; name another provider",
    );
  }
  if (!freeAt(context, request.start, now).has(providerId)) {
    throw new DomainError(
      "SLOT_UNAVAILABLE",
      `${request.start.toISOString()} is not an available slot of this service for that provider`,
    );
  }
  return { providerId, revision: current.revision };
}
