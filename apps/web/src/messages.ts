// The words of the pages for the API's error codes, without the client itself (so code that only
// reads a refusal, and its tests, need no browser).
import { type ClinicErrorCode, errorCodeOf, problemOf } from "@clinic/client";

/** A message a person can act on, for every error code the pages can meet (docs/web.md). */
const messages: Partial<Record<ClinicErrorCode, string>> = {
  SLOT_UNAVAILABLE: "Sorry, that time was just taken. Please pick another one: the list shows the free times now.",
  BOOKING_LIMIT:
    "You already hold this clinic's maximum of upcoming appointments. Cancel one of them first, or call the clinic.",
  CANCELLATION_CUTOFF: "This appointment starts too soon to change it online. Please call the clinic.",
  HOLD_EXPIRED: "The time was kept for you only for a few minutes, and that has run out. Please pick a time again.",
  PATIENT_DOUBLE_BOOKED: "You already have an appointment at this clinic at that time.",
  NO_SHOW_LIMIT: "Online booking is not open to you at this clinic at the moment. Please call the clinic.",
  RATE_LIMITED: "Too many attempts in a short time. Please wait a minute and try again.",
  UNAUTHENTICATED: "Please sign in first.",
  FORBIDDEN: "Your account may not do this here.",
  NOT_FOUND: "Not found: this clinic does not take bookings online, or the item is gone.",
  SERVICE_INACTIVE: "This service cannot be booked at the moment.",
  VALIDATION_FAILED: "Please check your entries.",
  UNAVAILABLE: "The service is briefly unavailable. Please try again in a moment.",
};

export function messageOf(error: unknown): string {
  const code = errorCodeOf(error);
  const known = code ? messages[code] : undefined;
  if (known) return known;
  return problemOf(error)?.detail ?? "Something went wrong. Please try again.";
}

/**
 * Like `messageOf`, for a guest's booking (O4 without a token): its BOOKING_LIMIT is about bookings
 * still waiting for their e-mailed confirmation (§15), not an account's upcoming appointments.
 */
export function guestMessageOf(error: unknown): string {
  if (errorCodeOf(error) !== "BOOKING_LIMIT") return messageOf(error);
  return "A booking made from here, or for this e-mail address, is still waiting for its confirmation. Please follow the link in the e-mail we sent, or try again once that booking has lapsed.";
}

/**
 * Like `messageOf`, and for a validation failure also which entry is wrong and why, under the
 * form's own labels (`labels`: the API's field name → the label the person sees).
 */
export function messageWithFields(error: unknown, labels: Record<string, string>): string {
  const problem = problemOf(error);
  if (problem?.code !== "VALIDATION_FAILED" || problem.errors.length === 0) return messageOf(error);
  const fields = problem.errors.map((e) => `${labels[e.path] ?? e.path} ${e.message}`);
  return `${messageOf(error)} ${fields.join("; ")}.`;
}
