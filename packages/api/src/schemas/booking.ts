// The inputs every booking route shares (staff book B1 and reschedule B5; patients book O4 and move U4).
import { z } from "zod";
import { type AppointmentStatus, appointmentStatuses } from "@clinic/db";
import { answersInput } from "./questions.ts";
import { instantInput, phoneE164, uuid } from "./wire.ts";

export const idempotencyKey = z.string().min(1).max(255).optional();
export const appointmentNotes = z.string().max(2000).optional();
const patientName = z.string().trim().min(1).max(200);

/** The patient of a staff booking: anyone, with optional contact details. */
export const patientInput = z.strictObject({
  name: patientName,
  email: z.email().max(320).optional(),
  phone_e164: phoneE164.optional(),
});

/**
 * The patient of an online booking (O4): signed in, the e-mail is the token's (leave it out); a
 * guest gives it, and the confirm link goes there.
 */
export const onlinePatientInput = patientInput;

/** What to hold (T2, T3): a start of a service, optionally with one provider; a retry with its Idempotency-Key answers the same hold. */
export const holdTarget = {
  service_id: uuid,
  start: instantInput,
  provider_id: uuid.optional(),
  idempotency_key: idempotencyKey,
};

/** What to book: a start of a service, optionally with one provider, or the caller's hold of it. */
export const bookingTarget = {
  ...holdTarget,
  notes: appointmentNotes,
  /** The caller's own unexpired hold, which becomes this booking (same id; service and start must be the hold's). */
  hold_id: uuid.optional(),
  /** `{key: value}` answering the service's questions (§19); checked against them, errors at `answers.<key>`. */
  answers: answersInput.optional(),
};

/** `status=booked,arrived`: a comma-separated set of appointment statuses (§13). */
export const statusSet = z
  .string()
  .regex(
    new RegExp(`^(${appointmentStatuses.join("|")})(,(${appointmentStatuses.join("|")}))*$`),
    `must be one or more of ${appointmentStatuses.join(", ")}, separated by commas`,
  )
  .transform((text) => appointmentStatuses.filter((status: AppointmentStatus) => text.split(",").includes(status)));

export const bookingErrors = [
  "SLOT_UNAVAILABLE",
  "IDEMPOTENCY_KEY_REUSED",
  "NOT_A_PROVIDER",
  "SERVICE_INACTIVE",
  "CONFLICT",
  "HOLD_EXPIRED",
  "PATIENT_DOUBLE_BOOKED",
  "NOT_FOUND",
] as const;

/** What a patient's move of their appointment may answer (U4, and L4 by manage link), besides its limit's 429. */
export const patientMoveErrors = [
  "CANCELLATION_CUTOFF",
  "SLOT_UNAVAILABLE",
  "INVALID_TRANSITION",
  "IDEMPOTENCY_KEY_REUSED",
  "SERVICE_INACTIVE",
] as const;
