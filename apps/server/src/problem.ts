import { STATUS_CODES } from "node:http";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { DomainError } from "@clinic/api";

/** RFC 9457 problem details, with the contract's `code` and optional field `errors`. */
export interface Problem {
  type: "about:blank";
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
  [extra: string]: unknown;
}

export const problemContentType = "application/problem+json; charset=utf-8";

/** The problem body of a domain error; internal failures say only the request id. */
export function problemOf(error: DomainError, requestId: string): Problem {
  const status = getHTTPStatusCodeFromError(error);
  const masked = status >= 500 && error.domainCode === "INTERNAL";
  return {
    ...(error.extra ?? {}),
    type: "about:blank",
    title: STATUS_CODES[status] ?? "Error",
    status,
    code: error.domainCode,
    detail: masked ? `internal error; request id ${requestId}` : error.message,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** A problem built directly from status, code and detail (for adapter-level failures). */
export function problem(status: number, code: string, detail: string, errors?: Problem["errors"]): Problem {
  return {
    type: "about:blank",
    title: STATUS_CODES[status] ?? "Error",
    status,
    code,
    detail,
    ...(errors ? { errors } : {}),
  };
}
