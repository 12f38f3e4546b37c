// X1's FHIR form (CONTRACT §21, docs/patient-data.md#the-fhir-form): the patient export as a FHIR R4
// Bundle of type `collection` — the Patient, their Appointments and the QuestionnaireResponses of
// the ones with answers — chosen on GET /v1/clinics/{cid}/patients/export by
// `Accept: application/fhir+json`. The Appointments and QuestionnaireResponses are the facade's own
// mappings (mapping.ts, questionnaires.ts), pointed at the Bundle's Patient. Pure functions: no I/O.
import { createHash } from "node:crypto";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@clinic/api";
import type { Bundle, BundleEntry, FhirResource, Patient, Reference } from "fhir/r4.js";
import { toAppointment } from "./mapping.ts";
import { fhirString } from "./outcome.ts";
import { toQuestionnaireResponse } from "./questionnaires.ts";

export type PatientExportView = inferRouterOutputs<AppRouter>["patientData"]["export"];

/** The identifier system of a user account (a Patient's, CONTRACT §16: `Patient/{user id}`). */
export const userIdentifierSystem = "urn:clinic-scheduling:user";

/** The facade's base URL, which the Bundle's fullUrls and canonical URLs are made of. */
export const fhirBaseOf = (origin: string): string => `${origin}/fhir/R4`;

/** A UUID-shaped name of a patient without an account: a hash of the clinic and their addresses. */
function guestPatientId(view: PatientExportView): string {
  const hex = createHash("sha256")
    .update(JSON.stringify([view.clinic.id, view.patient.emails, view.patient.phones, view.patient.names]))
    .digest("hex");
  // RFC 9562 version 8 (custom) and variant bits: a well-formed UUID that is no account's.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The Patient: their account id (the facade's `Patient/{user id}`; a patient without one gets a
 * stable id of its own), every account as an identifier, every name and address the clinic holds.
 */
export function toExportedPatient(view: PatientExportView): Patient {
  const [first] = view.patient.user_ids;
  return {
    resourceType: "Patient",
    id: first ?? guestPatientId(view),
    ...(view.patient.user_ids.length > 0
      ? { identifier: view.patient.user_ids.map((id) => ({ system: userIdentifierSystem, value: id })) }
      : {}),
    ...(view.patient.names.length > 0 ? { name: view.patient.names.map((name) => ({ text: fhirString(name) })) } : {}),
    ...(view.patient.emails.length + view.patient.phones.length > 0
      ? {
          telecom: [
            ...view.patient.emails.map((value) => ({ system: "email" as const, value: fhirString(value) })),
            ...view.patient.phones.map((value) => ({ system: "phone" as const, value })),
          ],
        }
      : {}),
  };
}

/** X1 as a Bundle (collection): the Patient first, then each Appointment by start, then the QuestionnaireResponses. */
export function toPatientExportBundle(view: PatientExportView, base: string): Bundle {
  const patient = toExportedPatient(view);
  const patientRef = (display: string | undefined): Reference => ({
    reference: `Patient/${patient.id ?? ""}`,
    ...(display ? { display: fhirString(display) } : {}),
  });
  const appointments = view.appointments.map((a) => {
    const resource = toAppointment(a);
    const display = a.patient.name || undefined;
    // Every appointment of the export is this patient's: its patient participant is the Bundle's Patient.
    const others = resource.participant.filter((p) => {
      const reference = p.actor?.reference;
      return reference !== undefined && !reference.startsWith("Patient/");
    });
    return { ...resource, participant: [...others, { actor: patientRef(display), status: "accepted" as const }] };
  });
  const responses = view.appointments
    .filter((a) => a.answers.length > 0)
    .map((a) => {
      const response = toQuestionnaireResponse(base, a);
      const subject = patientRef(a.patient.name || undefined);
      return { ...response, subject, ...(response.source ? { source: subject } : {}) };
    });
  const entry = (resource: FhirResource): BundleEntry => ({
    fullUrl: `${base}/${resource.resourceType}/${resource.id ?? ""}`,
    resource,
  });
  return {
    resourceType: "Bundle",
    meta: { lastUpdated: view.exported_at.toISOString() },
    type: "collection",
    timestamp: view.exported_at.toISOString(),
    entry: [entry(patient), ...appointments.map(entry), ...responses.map(entry)],
  };
}

/** The q of the most specific media range of `accept` that matches `type` (0 when none does). */
function qualityOf(ranges: readonly { range: string; q: number }[], type: string): number {
  const [major = ""] = type.split("/");
  let best = -1;
  let q = 0;
  for (const entry of ranges) {
    const specificity = entry.range === type ? 2 : entry.range === `${major}/*` ? 1 : entry.range === "*/*" ? 0 : -1;
    if (specificity > best) {
      best = specificity;
      q = entry.q;
    }
  }
  return q;
}

/**
 * Whether the answer is FHIR: Accept (RFC 9110 §12.5.1) rates application/fhir+json above
 * application/json. JSON stays the answer when both rate equally (`*\/*`, no Accept, both named).
 */
export function wantsFhir(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(",").flatMap((part) => {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!range) return [];
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    return [{ range, q: Number.isFinite(q) ? q : 0 }];
  });
  return qualityOf(ranges, "application/fhir+json") > qualityOf(ranges, "application/json");
}

/** The FHIR forms of /v1 answers, by the name a route's `meta.rest.fhir` gives. */
export const fhirRepresentations = {
  "patient-export": (result: unknown, base: string): Bundle => toPatientExportBundle(result as PatientExportView, base),
} as const;
