// A pending appointment's confirmation expires (CONTRACT §13): not confirmed within 48 hours of
// the request, or by its start, it becomes canceled with reason `confirmation_expired`. The job is
// written to the outbox by the booking's own transaction (clinic_book_appointment), so it is never
// lost; running it twice changes nothing the second time.
import { z } from "zod";
import type { Db } from "@clinic/db";
import { callClinicFunction } from "./clinicFunctions.ts";

/** What a confirmation-expiry job carries. */
export interface ConfirmationExpiryJob {
  clinicId: string;
  appointmentId: string;
}

/** Cancels the appointment if it is still pending and its confirmation is due; true when it did. */
export async function runConfirmationExpiry(db: Db, job: ConfirmationExpiryJob, now: Date = new Date()) {
  const answer = z.object({ expired: z.boolean() }).parse(
    await callClinicFunction(db, "clinic_expire_confirmation", job.clinicId, {
      id: job.appointmentId,
      now: now.toISOString(),
    }),
  );
  return answer.expired;
}
