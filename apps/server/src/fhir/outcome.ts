// Every answer of the facade that is an error: an OperationOutcome (CONTRACT §16) with our §2 code
// in issue[0].details.text, each problem told once. Also used below the routes (transport.ts), for
// what Fastify's router refuses before a /fhir/R4 route is found (a malformed %-encoding).
import type { FastifyReply } from "fastify";
import type { OperationOutcome } from "fhir/r4.js";
import type { FieldError } from "@clinic/api";

export const fhirContentType = "application/fhir+json; charset=utf-8";

/**
 * A value as FHIR JSON may carry it (R4 §2.6.2 "JSON"): no empty arrays, no empty objects, no
 * null or undefined properties; a property without a value is left out. Applied recursively, so an
 * object that only held empty values is left out too (an element of an array as well). Every
 * answer of the facade goes through here (`sendFhir`), so no route has to remember it.
 */
export function fhirJson(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(fhirJson).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "object" || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const pruned = fhirJson(item);
    if (pruned !== undefined) out[key] = pruned;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Sends a FHIR resource (or Bundle) as the answer: the one place the facade writes FHIR JSON. */
export function sendFhir(reply: FastifyReply, status: number, resource: object) {
  return reply
    .code(status)
    .type(fhirContentType)
    .send(fhirJson(resource) ?? {});
}

/** Where the facade is mounted (apps/server/src/app.ts registers it under this prefix). */
export const fhirPrefix = "/fhir/R4";

/** True for a request URL under the facade. */
export function isFhirUrl(url: string): boolean {
  const path = url.split("?")[0] ?? "";
  return path === fhirPrefix || path.startsWith(`${fhirPrefix}/`);
}

/** FHIR issue type of an HTTP status. */
function issueCodeOf(status: number): OperationOutcome["issue"][number]["code"] {
  if (status === 400) return "invalid";
  if (status === 413 || status === 414 || status === 431) return "too-long";
  if (status === 405 || status === 415) return "not-supported";
  if (status === 401) return "login";
  if (status === 403) return "forbidden";
  if (status === 404) return "not-found";
  if (status === 409 || status === 412) return "conflict";
  if (status === 422) return "business-rule";
  if (status === 429) return "throttled";
  return status >= 500 ? "exception" : "processing";
}

/**
 * The diagnostics of an error: its message and each field error, every text once (a field error
 * is usually the message itself, `path: message`, which must not be said twice).
 */
export function diagnosticsOf(message: string, errors: readonly FieldError[] = []): string {
  const parts = [message, ...errors.map((e) => `${e.path}: ${e.message}`)].filter((p) => p !== "");
  return [...new Set(parts)].join("; ");
}

/**
 * Text a FHIR string may hold: no control characters but tab and line breaks (R4's string is
 * `[\r\n\t\u0020-\uFFFF]+`), which diagnostics quoting a request's input could otherwise carry.
 */
export function fhirString(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "\uFFFD");
}

/**
 * An OperationOutcome carrying our §2 code in issue[].details.text, and, where the facade knows
 * it, the FHIRPath of the element at fault in `expression` (a questionnaire-response's items).
 */
export function operationOutcome(
  status: number,
  code: string,
  text: string,
  expression: readonly string[] = [],
): OperationOutcome {
  const diagnostics = fhirString(text).trim();
  return {
    resourceType: "OperationOutcome",
    issue: [
      {
        severity: status >= 500 ? "fatal" : "error",
        code: issueCodeOf(status),
        details: { text: code },
        ...(diagnostics === "" ? {} : { diagnostics }),
        ...(expression.length > 0 ? { expression: expression.map(fhirString) } : {}),
      },
    ],
  };
}

/** Sends an OperationOutcome as the answer. */
export function sendOutcome(
  reply: FastifyReply,
  status: number,
  code: string,
  diagnostics: string,
  expression: readonly string[] = [],
) {
  return sendFhir(reply, status, operationOutcome(status, code, diagnostics, expression));
}

/** Where an error of the facade carries its FHIRPath expressions (input.ts `invalidAt`). */
export const expressionKey = "fhir_expression";

/** The FHIRPath expressions an error names, if the facade gave it any. */
export function expressionsOf(extra: Record<string, unknown> | undefined): string[] {
  const value = extra?.[expressionKey];
  return Array.isArray(value) ? value.filter((e): e is string => typeof e === "string") : [];
}
