// What the facade reads from a request body, checked before anything is read from it: a body of
// the wrong shape (a part that is not an object, a reference that is a number, no participant)
// is a 400 OperationOutcome naming the element, never a TypeError answered as 500.
import { z } from "zod";
import { DomainError } from "@clinic/api";
import { expressionKey } from "./outcome.ts";

/** 400 VALIDATION_FAILED naming the one parameter or element that is wrong (said once: docs/fhir.md#errors). */
export function invalid(parameter: string, message: string): DomainError {
  return new DomainError("VALIDATION_FAILED", `${parameter}: ${message}`, { errors: [{ path: parameter, message }] });
}

/**
 * 400 VALIDATION_FAILED as `invalid`, also naming the element at fault as a FHIRPath expression
 * (OperationOutcome.issue.expression), e.g. `Parameters.parameter[2].resource.item[0]`.
 */
export function invalidAt(parameter: string, message: string, expression: string): DomainError {
  return new DomainError("VALIDATION_FAILED", `${parameter}: ${message}`, {
    errors: [{ path: parameter, message }],
    extra: { [expressionKey]: [expression] },
  });
}

/** A value as an error message may quote it: JSON, cut short. */
export function quoted(value: string): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export const referenceInput = z.object({ reference: z.string().optional(), display: z.string().optional() });
const codingInput = z.object({ system: z.string().optional(), code: z.string().optional() });
const codeableConceptInput = z.object({ coding: z.array(codingInput).optional(), text: z.string().optional() });

/** The elements of an Appointment the operations read ($hold, $book); others are ignored. */
export const appointmentInput = z.object({
  resourceType: z.literal("Appointment"),
  id: z.string().optional(),
  status: z.string({ error: "is required (a string)" }),
  serviceType: z.array(codeableConceptInput).optional(),
  start: z.string().optional(),
  comment: z.string().optional(),
  slot: z.array(referenceInput).optional(),
  participant: z.array(z.object({ actor: referenceInput.optional() })).optional(),
});
export type AppointmentInput = z.infer<typeof appointmentInput>;

const parameterPart = z.object({
  name: z.string({ error: "is required (a string)" }),
  valueDateTime: z.string().optional(),
  valueInstant: z.string().optional(),
  valueString: z.string().optional(),
  valueCode: z.string().optional(),
  valueUri: z.string().optional(),
  valueId: z.string().optional(),
  valueInteger: z.number().optional(),
  valueUnsignedInt: z.number().optional(),
  valuePositiveInt: z.number().optional(),
  valueReference: referenceInput.optional(),
  valueCoding: codingInput.optional(),
  valueCodeableConcept: codeableConceptInput.optional(),
  /** Read by the part's own schema (an Appointment for appointment-resource). */
  resource: z.unknown().optional(),
});
export type ParameterPart = z.infer<typeof parameterPart>;

export const parametersInput = z.object({
  resourceType: z.literal("Parameters"),
  parameter: z.array(parameterPart).optional(),
});
export type ParametersInput = z.infer<typeof parametersInput>;

/** A zod issue's path as FHIRPath-like text: `Appointment.participant[0].actor.reference`. */
export function pathText(root: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) => (typeof key === "number" ? `${text}[${String(key)}]` : `${text}.${String(key)}`),
    root,
  );
}

/** The body read by `schema`, or 400 naming every element that is wrong (at most ten). */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, root: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.slice(0, 10).map((issue) => ({
    path: pathText(root, issue.path),
    message: issue.message,
  }));
  const [first] = errors;
  return fail(first ? `${first.path}: ${first.message}` : `${root}: is not valid`, errors);
}

function fail(message: string, errors: { path: string; message: string }[]): never {
  throw new DomainError("VALIDATION_FAILED", message, { errors });
}
