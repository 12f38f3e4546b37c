// The appointment's life at the desk (CONTRACT §13, docs/front-desk.md): status changes (T1) and
// releasing a hold (T4), each one statement of a database function (drizzle/0009_front_desk.sql)
// after the clinic's authorization, so two round trips.
import { z } from "zod";
import type { AppointmentStatus, Db } from "@clinic/db";
import { domainCodes } from "../../errorCodes.ts";
import { DomainError } from "../../errors.ts";
import type { AppointmentView } from "./appointments.ts";
import { appointmentFromJson, callClinicFunction } from "./clinicFunctions.ts";

const refusal = z.object({ error: z.enum(domainCodes), detail: z.string(), extra: z.record(z.string(), z.unknown()) });
const statusAnswer = z.union([z.object({ appointment: z.record(z.string(), z.unknown()) }), refusal]);
const releaseAnswer = z.union([z.object({ released: z.literal(true) }), refusal]);

export interface StatusChange {
  clinicId: string;
  appointmentId: string;
  status: AppointmentStatus;
  reason?: string | undefined;
  /** The `updated_at` the caller saw (If-Match): a change since is 409 STALE_UPDATED_AT. */
  ifMatch?: Date | undefined;
  userId: string;
  /** STAFF and above may make every change; others only those of their own appointments as its provider. */
  staff: boolean;
}

/**
 * Changes an appointment's status by the transition table of §13, under its row lock: 404 when it
 * is not the clinic's, 409 INVALID_TRANSITION for a change the table (or the time) does not allow,
 * 403 when the caller may not make it, 409 STALE_UPDATED_AT when If-Match is not its updated_at.
 * Records `appointment.status_changed` with the previous status; a decline frees the time, a
 * confirmation plans the reminders.
 */
export async function changeAppointmentStatus(db: Db, change: StatusChange, now: Date): Promise<AppointmentView> {
  const answer = statusAnswer.parse(
    await callClinicFunction(db, "clinic_set_status", change.clinicId, {
      user_id: change.userId,
      id: change.appointmentId,
      status: change.status,
      reason: change.reason ?? null,
      if_match: change.ifMatch?.toISOString() ?? null,
      staff: change.staff,
      now: now.toISOString(),
    }),
  );
  if ("error" in answer) throw new DomainError(answer.error, answer.detail, { extra: answer.extra });
  return appointmentFromJson(answer.appointment);
}

/**
 * Releases a hold in one statement: the caller's own (a patient's too), or for the clinic's staff
 * (and a global admin) anyone's, decided by the database function from the membership; 404 when
 * there is no such hold for the caller.
 */
export async function releaseHold(
  db: Db,
  hold: { clinicId: string; id: string; userId: string | null; isAdmin: boolean },
): Promise<void> {
  const answer = releaseAnswer.parse(
    await callClinicFunction(db, "clinic_release_hold", hold.clinicId, {
      user_id: hold.userId,
      id: hold.id,
      admin: hold.isAdmin,
    }),
  );
  if ("error" in answer) throw new DomainError(answer.error, answer.detail, { extra: answer.extra });
}
