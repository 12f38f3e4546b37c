// X2: a patient erased from one clinic (§21, docs/patient-data.md#erasure), in one call of
// clinic_erase_patient on the clinic's shard.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type Db, callClinicJsonFunction } from "@clinic/db";
import { scrubCounts } from "./counts.ts";
import { type PatientMatch, identifierOf, pseudonymOf } from "./pseudonym.ts";

/** X2's answer: the pseudonym and how many rows of each kind lost personal values. */
export const erasureOutput = z.object({
  pseudonym: z.string(),
  erased: scrubCounts,
});
export type ErasureView = z.infer<typeof erasureOutput>;

export interface ErasureRequest {
  clinicId: string;
  match: PatientMatch;
  reason: string;
  /** Who erases (the audit entry's user_email). */
  actorEmail: string;
  /** GUEST_ADDRESS_KEY, which keys the pseudonyms. */
  key: string | undefined;
}

/**
 * Cancels the patient's future appointments without a message, then removes or pseudonymizes every
 * personal value of theirs the clinic holds, and records `patient.erased` (audit and event).
 * Idempotent: the same request again erases nothing and answers the same pseudonym.
 */
export async function erasePatient(db: Db, request: ErasureRequest, now: Date): Promise<ErasureView> {
  const pseudonym = pseudonymOf(request.key, request.clinicId, identifierOf(request.match));
  const m = request.match;
  const answer = await callClinicJsonFunction(db, "clinic_erase_patient", request.clinicId, {
    user_id: "patient_user_id" in m ? m.patient_user_id : null,
    email: "email" in m ? m.email : null,
    phone: "phone_e164" in m ? m.phone_e164 : null,
    pseudonym,
    reason: request.reason,
    actor_email: request.actorEmail,
    now: now.toISOString(),
    // The erased appointments' new manage key: known to nobody, so their links are dead.
    manage_key: randomUUID(),
  });
  return erasureOutput.parse(answer);
}
