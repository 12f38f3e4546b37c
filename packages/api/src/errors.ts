import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";
import { isConnectionError, pgErrorInfo } from "@clinic/db";
import { type DomainCode, domainCodes } from "./errorCodes.ts";

export { type DomainCode, domainCodes };

/** Domain code → tRPC code; the tRPC code fixes the HTTP status of both /trpc and /v1. */
export const trpcCodeOf = {
  VALIDATION_FAILED: "BAD_REQUEST",
  UNAUTHENTICATED: "UNAUTHORIZED",
  SIGN_IN_FAILED: "BAD_REQUEST",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  STALE_UPDATED_AT: "CONFLICT",
  WORK_HOUR_OVERLAP: "CONFLICT",
  INVALID_TRANSITION: "CONFLICT",
  ALREADY_ASSIGNED: "CONFLICT",
  ALREADY_MEMBER: "CONFLICT",
  PROVIDER_HAS_SERVICES: "CONFLICT",
  SLOT_UNAVAILABLE: "CONFLICT",
  IDEMPOTENCY_KEY_REUSED: "CONFLICT",
  CANCELLATION_CUTOFF: "CONFLICT",
  BOOKING_LIMIT: "CONFLICT",
  HOLD_EXPIRED: "CONFLICT",
  NO_SHOW_LIMIT: "CONFLICT",
  PATIENT_DOUBLE_BOOKED: "CONFLICT",
  CONFLICT: "CONFLICT",
  INVALID_TIME_RANGE: "UNPROCESSABLE_CONTENT",
  NOT_A_PROVIDER: "UNPROCESSABLE_CONTENT",
  SERVICE_INACTIVE: "UNPROCESSABLE_CONTENT",
  PRECONDITION_REQUIRED: "PRECONDITION_REQUIRED",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
  INTERNAL: "INTERNAL_SERVER_ERROR",
} as const satisfies Record<DomainCode, TRPC_ERROR_CODE_KEY>;

/**
 * tRPC code → domain code, for errors raised by tRPC itself (a wrong method on /trpc, a body it
 * cannot read, a timeout). Each keeps its own HTTP status (see `DomainError`'s `status`) and gets
 * the domain code of its HTTP meaning: client-side mistakes and limits are VALIDATION_FAILED,
 * upstream trouble is UNAVAILABLE. Checked by the compiler, so a tRPC code added upstream fails to
 * build here instead of falling into a default.
 */
const domainCodeOfTrpc = {
  PARSE_ERROR: "VALIDATION_FAILED",
  BAD_REQUEST: "VALIDATION_FAILED",
  METHOD_NOT_SUPPORTED: "VALIDATION_FAILED",
  TIMEOUT: "VALIDATION_FAILED",
  PAYLOAD_TOO_LARGE: "VALIDATION_FAILED",
  UNSUPPORTED_MEDIA_TYPE: "VALIDATION_FAILED",
  UNPROCESSABLE_CONTENT: "VALIDATION_FAILED",
  PRECONDITION_FAILED: "VALIDATION_FAILED",
  CLIENT_CLOSED_REQUEST: "VALIDATION_FAILED",
  UNAUTHORIZED: "UNAUTHENTICATED",
  PAYMENT_REQUIRED: "FORBIDDEN",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  PRECONDITION_REQUIRED: "PRECONDITION_REQUIRED",
  TOO_MANY_REQUESTS: "RATE_LIMITED",
  BAD_GATEWAY: "UNAVAILABLE",
  SERVICE_UNAVAILABLE: "UNAVAILABLE",
  GATEWAY_TIMEOUT: "UNAVAILABLE",
  INTERNAL_SERVER_ERROR: "INTERNAL",
  NOT_IMPLEMENTED: "INTERNAL",
} as const satisfies Record<TRPC_ERROR_CODE_KEY, DomainCode>;

/** One failed field of a validation error. */
export interface FieldError {
  path: string;
  message: string;
}

export interface DomainErrorOptions {
  errors?: FieldError[];
  /** Extra members of the problem body, e.g. `current_updated_at`, `service_ids`. */
  extra?: Record<string, unknown>;
  cause?: unknown;
  /** The tRPC code (hence HTTP status) when it is not the domain code's usual one (413, 405 …). */
  status?: TRPC_ERROR_CODE_KEY;
}

/** An expected failure: the API's error code, a human-readable detail and optional extras. */
export class DomainError extends TRPCError {
  readonly domainCode: DomainCode;
  readonly errors: FieldError[] | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: DomainCode, detail: string, options: DomainErrorOptions = {}) {
    super({ code: options.status ?? trpcCodeOf[code], message: detail, cause: options.cause });
    this.name = "DomainError";
    this.domainCode = code;
    this.errors = options.errors;
    this.extra = options.extra;
  }
}

// One helper per common failure, so each reads the same everywhere.

/** 404 for a resource that is absent, deleted, or in another clinic. */
export const notFound = (what: string) => new DomainError("NOT_FOUND", `${what} not found`);
/** 403 with the reason. */
export const forbidden = (detail: string) => new DomainError("FORBIDDEN", detail);
/** 400 naming the one field that is wrong. */
export const validationFailed = (path: string, message: string) =>
  new DomainError("VALIDATION_FAILED", `${path}: ${message}`, { errors: [{ path, message }] });
/** 422: an end that is not after its start. */
export const invalidTimeRange = (path: string, message: string) =>
  new DomainError("INVALID_TIME_RANGE", `${path} ${message}`, { errors: [{ path, message }] });
/** 428: an optimistic-concurrency write without the stamp it needs. */
export const preconditionRequired = (what: string) =>
  new DomainError("PRECONDITION_REQUIRED", `if_updated_at is required: send the ${what}'s current updated_at`);
/** 409: the record changed since the caller read it. */
export const staleUpdatedAt = (what: string, current: Date) =>
  new DomainError("STALE_UPDATED_AT", `the ${what} was changed by someone else; re-read updated_at and retry`, {
    extra: { current_updated_at: current.toISOString() },
  });

/**
 * The one row a write returned. An INSERT … RETURNING without a conflict clause always returns its
 * row, so an empty result is a bug, answered as 500 (the detail stays in the log).
 */
export function returnedRow<T>(rows: readonly T[], what: string): T {
  const [row] = rows;
  if (row === undefined) throw new DomainError("INTERNAL", `the write of ${what} returned no row`);
  return row;
}

/** Field errors of a zod validation failure, with dotted paths. */
export function fieldErrorsOf(error: ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
}

/** What a constraint violation means, by constraint name; unlisted constraints fall back by SQLSTATE. */
const constraintErrors: Record<string, { code: DomainCode; detail: string }> = {
  work_hours_no_overlap: {
    code: "WORK_HOUR_OVERLAP",
    detail: "overlap detected, the period overlaps with an existing period",
  },
  date_override_periods_no_overlap: {
    code: "WORK_HOUR_OVERLAP",
    detail: "overlap detected, the period overlaps with an existing period",
  },
  appointments_no_double_booking: { code: "SLOT_UNAVAILABLE", detail: "the provider is already booked at that time" },
  work_hours_time_range: { code: "INVALID_TIME_RANGE", detail: "the end must be after the start" },
  closures_time_range: { code: "INVALID_TIME_RANGE", detail: "the end must be after the start" },
  appointments_time_range: { code: "INVALID_TIME_RANGE", detail: "the end must be after the start" },
  date_override_periods_time_range: { code: "INVALID_TIME_RANGE", detail: "the end must be after the start" },
  services_provider_fk: { code: "NOT_A_PROVIDER", detail: "provider_id is not a provider of this clinic" },
  work_hours_provider_fk: { code: "NOT_A_PROVIDER", detail: "provider_id is not a provider of this clinic" },
  closures_provider_fk: { code: "NOT_A_PROVIDER", detail: "provider_id is not a provider of this clinic" },
  date_overrides_provider_fk: { code: "NOT_A_PROVIDER", detail: "provider_id is not a provider of this clinic" },
  appointments_provider_fk: { code: "NOT_A_PROVIDER", detail: "provider_id is not a provider of this clinic" },
  appointments_patient_user_fk: { code: "VALIDATION_FAILED", detail: "patient_user_id: not a registered user" },
  clinic_members_clinic_user_key: { code: "ALREADY_MEMBER", detail: "the user is already a member of this clinic" },
};

/** A failed statement as a domain error, or undefined when it is not a statement's failure. */
function fromDatabase(cause: unknown): DomainError | undefined {
  const pg = pgErrorInfo(cause);
  if (!pg) return undefined;
  const byConstraint = pg.constraint ? constraintErrors[pg.constraint] : undefined;
  if (byConstraint) return new DomainError(byConstraint.code, byConstraint.detail, { cause });
  if (pg.code === "23505" || pg.code === "23P01" || pg.code === "40001" || pg.code === "40P01") {
    return new DomainError("CONFLICT", "the request conflicts with the current state; retry", { cause });
  }
  if (pg.code === "23503") return new DomainError("NOT_FOUND", "a referenced resource does not exist", { cause });
  if (pg.code.startsWith("22") || pg.code === "23514" || pg.code === "23502") {
    return new DomainError("VALIDATION_FAILED", "a value is out of range or malformed", { cause });
  }
  return undefined;
}

/**
 * Turns anything a procedure threw into a DomainError: domain errors pass through, input
 * validation becomes VALIDATION_FAILED, tRPC's own errors the code of their HTTP meaning (keeping
 * their status), constraint violations their API code, a lost database UNAVAILABLE, and anything
 * else INTERNAL (whose detail is never shown to clients).
 */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof DomainError) return cause;
  if (cause instanceof ZodError) {
    const errors = fieldErrorsOf(cause);
    const first = errors[0];
    return new DomainError("VALIDATION_FAILED", first ? `${first.path}: ${first.message}` : "invalid input", {
      errors,
    });
  }
  if (error instanceof TRPCError && error.code !== "INTERNAL_SERVER_ERROR") {
    return new DomainError(domainCodeOfTrpc[error.code], error.message, { cause: error, status: error.code });
  }
  const database = fromDatabase(cause);
  if (database) return database;
  if (isConnectionError(cause))
    return new DomainError("UNAVAILABLE", "the database is unavailable; retry shortly", { cause });
  return new DomainError("INTERNAL", "internal error", { cause: error });
}
