// The pseudonym an erased patient's name becomes (§21, docs/patient-data.md#the-pseudonym):
// `erased-<8 hex>` of a keyed hash of the clinic and the patient's identifier, so the same patient
// erased again in one clinic gets the same one (counts still add up), another clinic a different
// one, and nobody without GUEST_ADDRESS_KEY can tell from it whose it was.
import { createHmac } from "node:crypto";

/** The key when GUEST_ADDRESS_KEY is unset (development): the pseudonym is then only a hash. */
const unkeyed = "clinic-scheduling:unkeyed-pseudonyms";

/** What identifies a patient to an erasure: exactly one of these. */
export type PatientMatch = { patient_user_id: string } | { email: string } | { phone_e164: string };

/** The identifier as compared: a user id, an e-mail address (any case), a phone number. */
export function identifierOf(match: PatientMatch): string {
  if ("patient_user_id" in match) return `user:${match.patient_user_id.toLowerCase()}`;
  if ("email" in match) return `email:${match.email.toLowerCase()}`;
  return `phone:${match.phone_e164}`;
}

/** `erased-<8 hex>` for this patient in this clinic. */
export function pseudonymOf(key: string | undefined, clinicId: string, identifier: string): string {
  const digest = createHmac("sha256", key ?? unkeyed)
    .update(`${clinicId}:${identifier}`)
    .digest("hex");
  return `erased-${digest.slice(0, 8)}`;
}
