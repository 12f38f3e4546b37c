/**
 * The API's stable, machine-readable error codes (the `code` of every problem+json body; the
 * table is in docs/errors.md). No imports: the typed client bundles this list as it is, so a
 * front-end and the server can never disagree about it.
 */
export const domainCodes = [
  "VALIDATION_FAILED",
  "UNAUTHENTICATED",
  "SIGN_IN_FAILED",
  "FORBIDDEN",
  "NOT_FOUND",
  "STALE_UPDATED_AT",
  "WORK_HOUR_OVERLAP",
  "INVALID_TRANSITION",
  "ALREADY_ASSIGNED",
  "ALREADY_MEMBER",
  "PROVIDER_HAS_SERVICES",
  "SLOT_UNAVAILABLE",
  "IDEMPOTENCY_KEY_REUSED",
  "CANCELLATION_CUTOFF",
  "BOOKING_LIMIT",
  "HOLD_EXPIRED",
  "NO_SHOW_LIMIT",
  "PATIENT_DOUBLE_BOOKED",
  "CONFLICT",
  "INVALID_TIME_RANGE",
  "NOT_A_PROVIDER",
  "SERVICE_INACTIVE",
  "PRECONDITION_REQUIRED",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "INTERNAL",
] as const;

/** One of the API's error codes, e.g. `"SLOT_UNAVAILABLE"`. */
export type DomainCode = (typeof domainCodes)[number];
