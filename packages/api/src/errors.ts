import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";
import { isConnectionError, pgErrorInfo } from "@clinic/db";

/** The contract's stable, machine-readable error codes (CONTRACT §2). */
export const domainCodes = [
  "VALIDATION_FAILED",
  "UNAUTHENTICATED",
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
  "CONFLICT",
  "INVALID_TIME_RANGE",
  "NOT_A_PROVIDER",
  "SERVICE_INACTIVE",
  "PRECONDITION_REQUIRED",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "INTERNAL",
] as const;
export type DomainCode = (typeof domainCodes)[number];

/** Domain code → tRPC code; the tRPC code fixes the HTTP status of both /trpc and /v1. */
export const trpcCodeOf = {
  VALIDATION_FAILED: "BAD_REQUEST",
  UNAUTHENTICATED: "UNAUTHORIZED",
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
  CONFLICT: "CONFLICT",
  INVALID_TIME_RANGE: "UNPROCESSABLE_CONTENT",
  NOT_A_PROVIDER: "UNPROCESSABLE_CONTENT",
  SERVICE_INACTIVE: "UNPROCESSABLE_CONTENT",
  PRECONDITION_REQUIRED: "PRECONDITION_REQUIRED",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
  INTERNAL: "INTERNAL_SERVER_ERROR",
} as const satisfies Record<DomainCode, TRPC_ERROR_CODE_KEY>;

/** One failed field of a validation error. */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * An expected failure: carries the contract's code, a human-readable detail and optional extra
 * members of the problem body (e.g. `current_updated_at`, `service_ids`).
 */
export class DomainError extends TRPCError {
  readonly domainCode: DomainCode;
  readonly errors: FieldError[] | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    code: DomainCode,
    detail: string,
    options: { errors?: FieldError[]; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super({ code: trpcCodeOf[code], message: detail, cause: options.cause });
    this.name = "DomainError";
    this.domainCode = code;
    this.errors = options.errors;
    this.extra = options.extra;
  }
}

export const notFound = (what: string) => new DomainError("NOT_FOUND", `${what} not found`);
export const forbidden = (detail: string) => new DomainError("FORBIDDEN", detail);
export const validationFailed = (path: string, message: string) =>
  new DomainError("VALIDATION_FAILED", `${path}: ${message}`, { errors: [{ path, message }] });

/** Field errors of a zod validation failure, with dotted paths. */
export function fieldErrorsOf(error: ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
}

/** Which domain code a constraint violation means; unlisted constraints fall back by SQLSTATE. */
const constraintCodes: Record<string, DomainCode> = {
  work_hours_no_overlap: "WORK_HOUR_OVERLAP",
  appointments_no_double_booking: "SLOT_UNAVAILABLE",
  work_hours_time_range: "INVALID_TIME_RANGE",
  closures_time_range: "INVALID_TIME_RANGE",
  appointments_time_range: "INVALID_TIME_RANGE",
  services_provider_fk: "NOT_A_PROVIDER",
  work_hours_provider_fk: "NOT_A_PROVIDER",
  closures_provider_fk: "NOT_A_PROVIDER",
  appointments_provider_fk: "NOT_A_PROVIDER",
  clinic_members_clinic_user_key: "ALREADY_MEMBER",
};

/**
 * Turns anything a procedure threw into a DomainError: domain errors pass through, input
 * validation becomes VALIDATION_FAILED, constraint violations their contract code, a lost
 * database UNAVAILABLE, and anything else INTERNAL (whose detail is never shown to clients).
 */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof DomainError) return cause;
  if (cause instanceof ZodError) {
    const errors = fieldErrorsOf(cause);
    const first = errors[0];
    return new DomainError("VALIDATION_FAILED", first ? `${first.path}: ${first.message}` : "invalid input", { errors });
  }
  if (error instanceof TRPCError && error.code !== "INTERNAL_SERVER_ERROR") {
    switch (error.code) {
      case "BAD_REQUEST":
      case "PARSE_ERROR":
        return new DomainError("VALIDATION_FAILED", error.message, { cause: error });
      case "UNAUTHORIZED":
        return new DomainError("UNAUTHENTICATED", error.message, { cause: error });
      case "FORBIDDEN":
        return new DomainError("FORBIDDEN", error.message, { cause: error });
      case "NOT_FOUND":
        return new DomainError("NOT_FOUND", error.message, { cause: error });
      case "TOO_MANY_REQUESTS":
        return new DomainError("RATE_LIMITED", error.message, { cause: error });
      default:
        return new DomainError("CONFLICT", error.message, { cause: error });
    }
  }
  const pg = pgErrorInfo(cause);
  if (pg) {
    const byConstraint = pg.constraint ? constraintCodes[pg.constraint] : undefined;
    if (byConstraint === "WORK_HOUR_OVERLAP") {
      return new DomainError("WORK_HOUR_OVERLAP", "overlap detected, the period overlaps with an existing period", { cause });
    }
    if (byConstraint === "SLOT_UNAVAILABLE") {
      return new DomainError("SLOT_UNAVAILABLE", "the provider is already booked at that time", { cause });
    }
    if (byConstraint === "INVALID_TIME_RANGE") return new DomainError("INVALID_TIME_RANGE", "the end must be after the start", { cause });
    if (byConstraint === "NOT_A_PROVIDER") return new DomainError("NOT_A_PROVIDER", "provider_id is not a provider of this clinic", { cause });
    if (byConstraint === "ALREADY_MEMBER") return new DomainError("ALREADY_MEMBER", "the user is already a member of this clinic", { cause });
    if (pg.code === "23505" || pg.code === "23P01" || pg.code === "40001" || pg.code === "40P01") {
      return new DomainError("CONFLICT", "the request conflicts with the current state; retry", { cause });
    }
    if (pg.code === "23503") return new DomainError("NOT_FOUND", "a referenced resource does not exist", { cause });
    if (pg.code.startsWith("22") || pg.code === "23514" || pg.code === "23502") {
      return new DomainError("VALIDATION_FAILED", "a value is out of range or malformed", { cause });
    }
  }
  if (isConnectionError(cause)) return new DomainError("UNAVAILABLE", "the database is unavailable; retry shortly", { cause });
  return new DomainError("INTERNAL", "internal error", { cause: error });
}
