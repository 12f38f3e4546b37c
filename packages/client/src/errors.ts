import { type DomainCode, domainCodes } from "@clinic/api/error-codes";

/**
 * The API's stable error codes (docs/errors.md). The list is the server's own, bundled into the
 * client at build time (it is a module without imports), so the two cannot disagree.
 */
export const clinicErrorCodes: readonly ClinicErrorCode[] = domainCodes;

/** A machine-readable error code of the API, e.g. `"SLOT_UNAVAILABLE"`. */
export type ClinicErrorCode = DomainCode;

const knownCodes: ReadonlySet<string> = new Set(clinicErrorCodes);

/** True when `value` is one of the contract's error codes. */
export function isClinicErrorCode(value: unknown): value is ClinicErrorCode {
  return typeof value === "string" && knownCodes.has(value);
}

/** One failed input field of a `VALIDATION_FAILED` error. */
export interface ClinicFieldError {
  path: string;
  message: string;
}

/** What the API said about a failed call, read from a client error. */
export interface ClinicProblem {
  code: ClinicErrorCode;
  /** The human-readable detail (the problem's `detail`). */
  detail: string;
  /** HTTP status of the failure, when known. */
  status: number | undefined;
  /** Field errors of a validation failure (empty otherwise). */
  errors: ClinicFieldError[];
  /** Extra members of the problem, e.g. `current_updated_at` or `service_ids`. */
  extra: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function fieldErrorsOf(value: unknown): ClinicFieldError[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) =>
    isRecord(item) && typeof item.path === "string" && typeof item.message === "string"
      ? [{ path: item.path, message: item.message }]
      : [],
  );
}

/**
 * Reads the API's problem from anything a client call rejected with. Duck-typed rather than
 * `instanceof TRPCClientError`, so it also works when an application bundles a second copy of
 * `@trpc/client`. Two sources, in order: the tRPC error `data` that the server's error formatter
 * fills (`domain_code`, `errors`, `extra`), and a problem+json body answered before tRPC ran
 * (e.g. 429 from the rate limiter), which the client keeps in `meta.responseJSON`.
 */
export function problemOf(error: unknown): ClinicProblem | undefined {
  if (!isRecord(error)) return undefined;
  const message = typeof error.message === "string" ? error.message : "";
  const data = error.data;
  if (isRecord(data) && isClinicErrorCode(data.domain_code)) {
    return {
      code: data.domain_code,
      detail: message,
      status: typeof data.httpStatus === "number" ? data.httpStatus : undefined,
      errors: fieldErrorsOf(data.errors),
      extra: isRecord(data.extra) ? data.extra : {},
    };
  }
  const body = isRecord(error.meta) ? error.meta.responseJSON : undefined;
  if (isRecord(body) && isClinicErrorCode(body.code)) {
    return {
      code: body.code,
      detail: typeof body.detail === "string" ? body.detail : message,
      status: typeof body.status === "number" ? body.status : undefined,
      errors: fieldErrorsOf(body.errors),
      extra: {},
    };
  }
  return undefined;
}

/**
 * The contract's error code of a failed call (`error.data.domain_code` of a TRPCClientError), or
 * undefined for anything else (a network failure, a bug in the caller). Lets callers `switch`:
 *
 * ```ts
 * try { await api.appointments.book(input) } catch (e) {
 *   if (errorCodeOf(e) === "SLOT_UNAVAILABLE") showOtherSlots();
 *   else throw e;
 * }
 * ```
 */
export function errorCodeOf(error: unknown): ClinicErrorCode | undefined {
  return problemOf(error)?.code;
}
