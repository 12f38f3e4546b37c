// Booking questions as FHIR (CONTRACT §19, docs/fhir.md#questionnaires): a service's questions
// are a Questionnaire (its id the HealthcareService's), an appointment's answers a
// QuestionnaireResponse (its id the Appointment's), and $book's `questionnaire-response` part is
// read back into the `answers` the booking procedure checks. The procedures decide who reads what
// and whether the answers are right; this file only maps, and names the element at fault.
import type {
  Questionnaire,
  QuestionnaireItem,
  QuestionnaireResponse,
  QuestionnaireResponseItemAnswer,
} from "fhir/r4.js";
import { z } from "zod";
import { toDomainError } from "@clinic/api";
import { appointmentView } from "./appointments.ts";
import { pairId, parsePairId } from "./ids.ts";
import { type ParametersInput, invalid, invalidAt, pathText, quoted } from "./input.ts";
import { type AppointmentView, type ClinicView, type ServiceView, metaOf, questionnaireUrl } from "./mapping.ts";
import { fhirString } from "./outcome.ts";
import { type Params, clinicIdsOf, valuesOf } from "./params.ts";
import { type Caller, acrossClinics, clinicViewOf, namedBy, narrowedClinics } from "./scope.ts";
import { allServices, notFound } from "./slots.ts";

type Question = ServiceView["questions"][number];
type Answer = AppointmentView["answers"][number];

/** The $book part that carries the answers (CONTRACT §19). */
export const responsePart = "questionnaire-response";

/** R4's core extension for an answer's pattern (e-mail, E.164 phone): a hint for form renderers. */
const regexExtension = "http://hl7.org/fhir/StructureDefinition/regex";
const emailPattern = "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$";
const phonePattern = "^\\+[1-9][0-9]{1,14}$";

/** One question as a Questionnaire item: linkId = key, text = label. */
function itemOf(question: Question): QuestionnaireItem {
  const base = { linkId: question.key, text: fhirString(question.label), required: question.required };
  const maxLength = question.max_length === undefined ? {} : { maxLength: question.max_length };
  const options = (question.options ?? []).map((option) => ({ valueString: fhirString(option) }));
  switch (question.type) {
    case "text":
      return { ...base, type: "string", ...maxLength };
    case "long_text":
      return { ...base, type: "text", ...maxLength };
    case "choice":
      return { ...base, type: "choice", answerOption: options };
    case "multi_choice":
      return { ...base, type: "choice", repeats: true, answerOption: options };
    case "boolean":
      return { ...base, type: "boolean" };
    case "date":
      return { ...base, type: "date" };
    case "number":
      return { ...base, type: "decimal" };
    case "email":
      return { ...base, type: "string", extension: [{ url: regexExtension, valueString: emailPattern }] };
    case "phone":
      return { ...base, type: "string", extension: [{ url: regexExtension, valueString: phonePattern }] };
  }
}

/** A service that asks questions as a Questionnaire (active while the service is). */
export function toQuestionnaire(base: string, clinic: ClinicView, service: ServiceView): Questionnaire {
  const id = pairId(clinic.id, service.id);
  return {
    resourceType: "Questionnaire",
    id,
    meta: metaOf(service.updated_at),
    url: questionnaireUrl(base, clinic.id, service.id),
    title: fhirString(service.name),
    status: service.is_active ? "active" : "retired",
    subjectType: ["Patient"],
    date: service.updated_at.toISOString(),
    publisher: fhirString(clinic.name),
    useContext: [
      {
        code: { system: "http://terminology.hl7.org/CodeSystem/usage-context-type", code: "venue" },
        valueReference: { reference: `HealthcareService/${id}`, display: fhirString(service.name) },
      },
    ],
    item: service.questions.map(itemOf),
  };
}

/** One kept answer as QuestionnaireResponse answers (several for a multi_choice). */
function answersOf(answer: Answer): QuestionnaireResponseItemAnswer[] {
  const value = answer.value;
  if (Array.isArray(value)) return value.map((v) => ({ valueString: fhirString(v) }));
  if (typeof value === "boolean") return [{ valueBoolean: value }];
  if (typeof value === "number") return [{ valueDecimal: value }];
  return [answer.type === "date" ? { valueDate: value } : { valueString: fhirString(value) }];
}

/** When the answers were given: when the appointment stopped being a hold (booked with hold_id), else its creation. */
function answeredAt(appointment: AppointmentView): string {
  const given = appointment.status_history.find((entry) => entry.status !== "held");
  const at = given === undefined ? appointment.created_at : new Date(given.at);
  return (Number.isNaN(at.getTime()) ? appointment.created_at : at).toISOString();
}

/** An appointment's answers, as asked and answered at booking, as a QuestionnaireResponse. */
export function toQuestionnaireResponse(base: string, appointment: AppointmentView): QuestionnaireResponse {
  const patient = appointment.patient_user_id
    ? {
        reference: `Patient/${appointment.patient_user_id}`,
        ...(appointment.patient.name ? { display: fhirString(appointment.patient.name) } : {}),
      }
    : appointment.patient.name
      ? { display: fhirString(appointment.patient.name) }
      : undefined;
  const byPatient =
    appointment.patient_user_id !== null && appointment.booked_by_user_id === appointment.patient_user_id;
  return {
    resourceType: "QuestionnaireResponse",
    id: pairId(appointment.clinic_id, appointment.id),
    meta: metaOf(appointment.updated_at),
    questionnaire: questionnaireUrl(base, appointment.clinic_id, appointment.service_id),
    status: "completed",
    ...(patient ? { subject: patient } : {}),
    authored: answeredAt(appointment),
    ...(byPatient && patient ? { source: patient } : {}),
    item: appointment.answers.map((answer) => ({
      linkId: answer.key,
      text: fhirString(answer.label),
      answer: answersOf(answer),
    })),
  };
}

/** GET Questionnaire/{id}: the service's, as HealthcareService reads it; 404 when it asks nothing. */
export async function readQuestionnaire(caller: Caller, id: string, base: string): Promise<Questionnaire> {
  const pair = parsePairId(id);
  if (!pair) throw notFound("Questionnaire", id);
  const [clinic, service] = await Promise.all([
    caller.clinics.get({ clinic_id: pair.clinicId }),
    caller.services.get({ clinic_id: pair.clinicId, id: pair.localId }),
  ]);
  if (service.questions.length === 0) throw notFound("Questionnaire", id);
  return toQuestionnaire(base, clinic, service);
}

/** The Questionnaire id a canonical URL (or reference) names: `…/Questionnaire/{id}[|version]`. */
function questionnaireIdOf(canonical: string): string | undefined {
  return /(?:^|\/)Questionnaire\/([A-Za-z0-9\-.]{1,64})(?:\|[^|]*)?$/.exec(canonical)?.[1];
}

/** GET Questionnaire?…: the services that ask questions, in the clinics of the search. */
export async function searchQuestionnaires(caller: Caller, params: Params, base: string): Promise<Questionnaire[]> {
  const wanted = valuesOf(params, "url").map((url) => parsePairId(questionnaireIdOf(url) ?? ""));
  const named = wanted.filter((pair): pair is NonNullable<typeof pair> => pair !== undefined);
  // A url that names no Questionnaire of ours matches nothing (no clinic is asked).
  if (params.url !== undefined && named.length === 0) return [];
  const narrowed = narrowedClinics(
    namedBy(params, "clinic", () => clinicIdsOf(params)),
    namedBy(params, "url", () => named.map((pair) => pair.clinicId)),
  );
  return acrossClinics(caller, narrowed, async (scope) => {
    const [clinic, services] = await Promise.all([clinicViewOf(caller, scope), allServices(caller, scope.id, true)]);
    return services
      .filter((s) => s.questions.length > 0)
      .filter((s) => named.length === 0 || named.some((p) => p.clinicId === scope.id && p.localId === s.id))
      .map((s) => toQuestionnaire(base, clinic, s));
  });
}

/**
 * GET QuestionnaireResponse/{id}: the answers of the Appointment with that id, read as
 * `GET /Appointment/{id}` reads it (the clinic's STAFF, or its patient); 404 when it has none.
 */
export async function readQuestionnaireResponse(
  caller: Caller,
  id: string,
  base: string,
): Promise<QuestionnaireResponse> {
  const pair = parsePairId(id);
  if (!pair) throw notFound("QuestionnaireResponse", id);
  const appointment = await appointmentView(caller, pair);
  if (appointment.answers.length === 0) throw notFound("QuestionnaireResponse", id);
  return toQuestionnaireResponse(base, appointment);
}

// $book's questionnaire-response: read before anything is booked, every fault a 400 whose
// OperationOutcome names the element as FHIRPath (issue.expression).

const codingAnswer = z.object({
  system: z.string().optional(),
  code: z.string().optional(),
  display: z.string().optional(),
});

/** The value[x] an answer may carry (which one a question takes is the booking procedure's check). */
const answerValueNames = [
  "valueString",
  "valueBoolean",
  "valueDate",
  "valueDecimal",
  "valueInteger",
  "valueCoding",
] as const;

const responseAnswerInput = z.looseObject({
  valueString: z.string().optional(),
  valueBoolean: z.boolean().optional(),
  valueDate: z.string().optional(),
  valueDecimal: z.number().optional(),
  valueInteger: z.number().int().optional(),
  valueCoding: codingAnswer.optional(),
  item: z.array(z.unknown()).optional(),
});
type ResponseAnswer = z.infer<typeof responseAnswerInput>;

const responseItemInput = z.object({
  linkId: z.string({ error: "is required (a string)" }),
  text: z.string().optional(),
  answer: z.array(responseAnswerInput).optional(),
  item: z.array(z.unknown()).optional(),
});

const questionnaireResponseInput = z.object({
  resourceType: z.literal("QuestionnaireResponse", { error: "must be QuestionnaireResponse" }),
  questionnaire: z.string().optional(),
  status: z.string().optional(),
  item: z.array(responseItemInput).optional(),
});
type ResponseInput = z.infer<typeof questionnaireResponseInput>;

/** A `questionnaire-response` part, its shape checked: where it sits (for expressions) and what it holds. */
export interface GivenResponse {
  /** FHIRPath of the resource: `Parameters.parameter[i].resource`. */
  at: string;
  response: ResponseInput;
}

/** The `questionnaire-response` part of $book's Parameters, its shape checked; undefined when there is none. */
export function givenResponse(parameters: ParametersInput | undefined): GivenResponse | undefined {
  const indexes = (parameters?.parameter ?? []).flatMap((part, index) => (part.name === responsePart ? [index] : []));
  const [index, second] = indexes;
  if (index === undefined) return undefined;
  const part = `Parameters.parameter[${index}]`;
  if (second !== undefined) {
    throw invalidAt(responsePart, "given more than once", `Parameters.parameter[${second}]`);
  }
  const resource = parameters?.parameter?.[index]?.resource;
  if (resource === undefined || resource === null || typeof resource !== "object" || Array.isArray(resource)) {
    throw invalidAt(responsePart, "must hold a QuestionnaireResponse as its resource", part);
  }
  const at = `${part}.resource`;
  const parsed = questionnaireResponseInput.safeParse(resource);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const path = issue?.path ?? [];
    throw invalidAt(pathText(responsePart, path), issue?.message ?? "is not valid", pathText(at, path));
  }
  const status = parsed.data.status;
  if (status !== undefined && status !== "completed" && status !== "amended") {
    throw invalidAt(`${responsePart}.status`, "must be completed (or amended): the answers are given", `${at}.status`);
  }
  return { at, response: parsed.data };
}

/** The one value an answer carries, as the booking procedure takes it (a Coding: its code, else its display). */
function answerValue(answer: ResponseAnswer, where: { path: string; at: string }): unknown {
  const names = Object.keys(answer).filter((name) => name.startsWith("value"));
  const [name] = names;
  if (names.length !== 1 || name === undefined) {
    throw invalidAt(where.path, "an answer needs exactly one value[x]", where.at);
  }
  if (!answerValueNames.some((known) => known === name)) {
    throw invalidAt(
      where.path,
      `${name.slice(0, 40)} is not read here: give ${answerValueNames.join(", ")}`,
      `${where.at}.${name.slice(0, 40)}`,
    );
  }
  if (answer.item !== undefined) throw invalidAt(where.path, "nested items are not asked here", `${where.at}.item`);
  if (name !== "valueCoding") return answer[name];
  const option = answer.valueCoding?.code ?? answer.valueCoding?.display;
  if (option === undefined)
    throw invalidAt(where.path, "a valueCoding needs its code (the option)", `${where.at}.valueCoding`);
  return option;
}

/**
 * The answers `{key: value}` a questionnaire-response gives, for the booking procedure to check
 * against the service's questions (which judges types, options, lengths and required ones).
 * Refused here, before anything is booked: a response to another Questionnaire, an item that is
 * not a question of the service, the same linkId twice, nested items, more than one answer to a
 * question that is not multi_choice, an answer without exactly one supported value[x].
 */
export function answersOfResponse(
  given: GivenResponse,
  clinicId: string,
  service: ServiceView,
): Record<string, unknown> {
  const { at, response } = given;
  const questionnaireId = pairId(clinicId, service.id);
  if (response.questionnaire !== undefined && questionnaireIdOf(response.questionnaire) !== questionnaireId) {
    throw invalidAt(
      `${responsePart}.questionnaire`,
      `must be the booked service's Questionnaire (Questionnaire/${questionnaireId}), not ${quoted(response.questionnaire)}`,
      `${at}.questionnaire`,
    );
  }
  const questions = new Map(service.questions.map((q) => [q.key, q]));
  const answers: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [index, item] of (response.item ?? []).entries()) {
    const where = { path: `${responsePart}.item[${index}]`, at: `${at}.item[${index}]` };
    const question = questions.get(item.linkId);
    if (question === undefined) {
      const known = [...questions.keys()];
      throw invalidAt(
        where.path,
        `linkId ${quoted(item.linkId)} is not a question of this service (${known.length > 0 ? `its linkIds: ${known.join(", ")}` : "it asks none"})`,
        `${where.at}.linkId`,
      );
    }
    if (seen.has(item.linkId)) throw invalidAt(where.path, `linkId ${quoted(item.linkId)} is answered twice`, where.at);
    seen.add(item.linkId);
    if (item.item !== undefined && item.item.length > 0) {
      throw invalidAt(where.path, "nested items are not asked here", `${where.at}.item`);
    }
    const values = (item.answer ?? []).map((answer, i) =>
      answerValue(answer, { path: `${where.path}.answer[${i}]`, at: `${where.at}.answer[${i}]` }),
    );
    if (values.length === 0) continue;
    if (question.type === "multi_choice") {
      answers[question.key] = values;
      continue;
    }
    if (values.length > 1) {
      throw invalidAt(
        where.path,
        `linkId ${quoted(item.linkId)} takes one answer (repeats is for multi_choice only)`,
        where.at,
      );
    }
    answers[question.key] = values[0];
  }
  return answers;
}

/**
 * The booking procedure's refusal of the answers (`answers.<key>`), told of the
 * questionnaire-response: at the item that gave the answer, or at the response (or where it is
 * missing) for a question it did not answer. Any other error is answered as it is.
 */
export function answersErrorOf(error: unknown, given: GivenResponse | undefined, hasParameters: boolean): unknown {
  const domain = toDomainError(error);
  if (domain.domainCode !== "VALIDATION_FAILED") return error;
  const field = (domain.errors ?? []).find((e) => e.path === "answers" || e.path.startsWith("answers."));
  if (field === undefined) return error;
  const key = field.path.slice("answers.".length);
  const index = (given?.response.item ?? []).findIndex((item) => item.linkId === key);
  if (given !== undefined && index >= 0) {
    return invalidAt(
      `${responsePart}.item[${index}]`,
      `linkId ${quoted(key)}: ${field.message}`,
      `${given.at}.item[${index}]`,
    );
  }
  const message = `item ${quoted(key)} ${field.message}`;
  // A question the response does not answer: the response (or the missing part) is at fault.
  if (given !== undefined) return invalidAt(responsePart, message, given.at);
  if (hasParameters) return invalidAt(responsePart, `the service asks questions: ${message}`, "Parameters");
  return invalid(
    responsePart,
    `the service asks questions (${message}): book with Parameters holding a ${responsePart} part`,
  );
}
