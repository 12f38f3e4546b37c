// Our views → FHIR R4 resources (docs/fhir.md has the table). Pure functions: no I/O.
import { createHash } from "node:crypto";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@clinic/api";
import type {
  Appointment,
  HealthcareService,
  Location,
  Meta,
  Organization,
  Practitioner,
  PractitionerRole,
  Schedule,
  Slot,
} from "fhir/r4.js";
import { pairId, slotId } from "./ids.ts";

type Outputs = inferRouterOutputs<AppRouter>;
export type ClinicView = Outputs["clinics"]["get"];
export type ProviderView = Outputs["providers"]["list"]["providers"][number];
export type ServiceView = Outputs["services"]["get"];
export type AppointmentView = Outputs["appointments"]["get"];
export type AvailableSlot = Outputs["availability"]["get"]["slots"][number];

/** The code system of our services (HealthcareService.type, Schedule/Slot/Appointment.serviceType). */
export const serviceSystem = "urn:clinic-scheduling:service";
/** The identifier system of an Appointment's /v1 id (CONTRACT §16 v1.3). */
export const appointmentIdentifierSystem = "urn:clinic-scheduling:appointment";
export const heldUntilExtension = "urn:clinic-scheduling:fhir:StructureDefinition/held-until";
export const timezoneExtension = "urn:clinic-scheduling:fhir:StructureDefinition/timezone";
/** On a HealthcareService whose service asks questions: its Questionnaire's canonical URL (§19). */
export const questionnaireExtension = "urn:clinic-scheduling:fhir:StructureDefinition/questionnaire";

/**
 * The canonical URL of a service's Questionnaire (docs/fhir.md#questionnaires): where it is read,
 * `{base}/Questionnaire/{id}`, its id the HealthcareService's.
 */
export const questionnaireUrl = (base: string, clinicId: string, serviceId: string): string =>
  `${base}/Questionnaire/${pairId(clinicId, serviceId)}`;

/** A version id and last-updated time from the record's `updated_at` (the ETag is the version id). */
export function metaOf(updatedAt: Date): Meta & { versionId: string } {
  return { versionId: String(updatedAt.getTime()), lastUpdated: updatedAt.toISOString() };
}

/** A computed resource's version: a hash of its content. */
export function contentMeta(content: unknown, at: Date): Meta & { versionId: string } {
  const hash = createHash("sha256").update(JSON.stringify(content)).digest("hex").slice(0, 32);
  return { versionId: hash, lastUpdated: at.toISOString() };
}

/** §16 status mapping; the reverse is its inverse (canceled ↔ cancelled and so on). */
export const fhirStatusOf = {
  held: "pending",
  pending: "proposed",
  booked: "booked",
  arrived: "arrived",
  completed: "fulfilled",
  no_show: "noshow",
  canceled: "cancelled",
} as const satisfies Record<AppointmentView["status"], Appointment["status"]>;

export type OurStatus = keyof typeof fhirStatusOf;

export function ourStatusOf(fhirStatus: string): OurStatus | undefined {
  return (Object.keys(fhirStatusOf) as OurStatus[]).find((status) => fhirStatusOf[status] === fhirStatus);
}

const ref = (type: string, id: string, display?: string) => ({
  reference: `${type}/${id}`,
  ...(display ? { display } : {}),
});

export const organizationRef = (clinic: { id: string; name?: string }) => ref("Organization", clinic.id, clinic.name);
export const locationRef = (clinic: { id: string; name?: string }) => ref("Location", clinic.id, clinic.name);

const serviceCoding = (id: string, name: string) => ({ system: serviceSystem, code: id, display: name });

export function toOrganization(clinic: ClinicView): Organization {
  return {
    resourceType: "Organization",
    id: clinic.id,
    meta: metaOf(clinic.updated_at),
    active: true,
    name: clinic.name,
  };
}

export function toLocation(clinic: ClinicView): Location {
  return {
    resourceType: "Location",
    id: clinic.id,
    meta: metaOf(clinic.updated_at),
    extension: [{ url: timezoneExtension, valueCode: clinic.timezone }],
    status: "active",
    mode: "instance",
    name: clinic.name,
    managingOrganization: organizationRef(clinic),
  };
}

export function toPractitioner(clinicId: string, provider: ProviderView): Practitioner {
  const telecom = [
    { system: "email" as const, value: provider.email },
    ...(provider.phone_e164 ? [{ system: "phone" as const, value: provider.phone_e164 }] : []),
  ];
  return {
    resourceType: "Practitioner",
    id: pairId(clinicId, provider.user_id),
    meta: metaOf(provider.updated_at),
    active: provider.status === "approved",
    name: [{ text: provider.full_name }],
    telecom,
  };
}

export function toPractitionerRole(clinic: ClinicView, provider: ProviderView): PractitionerRole {
  const id = pairId(clinic.id, provider.user_id);
  return {
    resourceType: "PractitionerRole",
    id,
    meta: metaOf(provider.updated_at),
    active: provider.status === "approved",
    practitioner: ref("Practitioner", id, provider.full_name),
    organization: organizationRef(clinic),
    location: [locationRef(clinic)],
  };
}

export function toHealthcareService(clinic: ClinicView, service: ServiceView, base: string): HealthcareService {
  return {
    resourceType: "HealthcareService",
    id: pairId(clinic.id, service.id),
    meta: metaOf(service.updated_at),
    ...(service.questions.length > 0
      ? { extension: [{ url: questionnaireExtension, valueCanonical: questionnaireUrl(base, clinic.id, service.id) }] }
      : {}),
    active: service.is_active,
    providedBy: organizationRef(clinic),
    location: [locationRef(clinic)],
    name: service.name,
    type: [{ coding: [serviceCoding(service.id, service.name)], text: service.name }],
  };
}

/** A provider in a clinic: the schedule its slots and appointments hang on. */
export function toSchedule(clinic: ClinicView, provider: ProviderView, services: readonly ServiceView[]): Schedule {
  const id = pairId(clinic.id, provider.user_id);
  return {
    resourceType: "Schedule",
    id,
    meta: metaOf(provider.updated_at),
    active: provider.status === "approved",
    ...(services.length > 0
      ? { serviceType: services.map((s) => ({ coding: [serviceCoding(s.id, s.name)], text: s.name })) }
      : {}),
    actor: [ref("PractitionerRole", id, provider.full_name), locationRef(clinic)],
  };
}

export function toSlot(
  clinic: ClinicView,
  service: ServiceView,
  providerId: string,
  slot: AvailableSlot,
  at: Date,
): Slot {
  const content = {
    resourceType: "Slot" as const,
    id: slotId(clinic.id, providerId, service.id, slot.start),
    serviceType: [{ coding: [serviceCoding(service.id, service.name)], text: service.name }],
    schedule: ref("Schedule", pairId(clinic.id, providerId)),
    status: "free" as const,
    start: slot.start.toISOString(),
    end: slot.end.toISOString(),
  };
  return { ...content, meta: contentMeta(content, at) };
}

export function toAppointment(appointment: AppointmentView): Appointment {
  const clinicId = appointment.clinic_id;
  const practitioner = pairId(clinicId, appointment.provider_id);
  const patient = appointment.patient_user_id
    ? { actor: ref("Patient", appointment.patient_user_id, appointment.patient.name || undefined) }
    : appointment.patient.name
      ? { actor: { display: appointment.patient.name } }
      : undefined;
  return {
    resourceType: "Appointment",
    id: pairId(clinicId, appointment.id),
    meta: metaOf(appointment.updated_at),
    ...(appointment.held_until
      ? { extension: [{ url: heldUntilExtension, valueInstant: appointment.held_until.toISOString() }] }
      : {}),
    identifier: [{ system: appointmentIdentifierSystem, value: appointment.id }],
    status: fhirStatusOf[appointment.status],
    ...(appointment.status === "canceled" ? { cancelationReason: { text: cancelReasonOf(appointment) } } : {}),
    serviceType: [
      {
        coding: [serviceCoding(appointment.service_id, appointment.service_name)],
        text: appointment.service_name,
      },
    ],
    start: appointment.start.toISOString(),
    end: appointment.end.toISOString(),
    minutesDuration: Math.round((appointment.end.getTime() - appointment.start.getTime()) / 60_000),
    created: appointment.created_at.toISOString(),
    ...(appointment.notes ? { comment: appointment.notes } : {}),
    participant: [
      { actor: ref("Practitioner", practitioner, appointment.provider_name), status: "accepted" },
      { actor: ref("Location", clinicId), status: "accepted" },
      ...(patient ? [{ ...patient, status: "accepted" as const }] : []),
    ],
    // Its answers (§19), read as GET /QuestionnaireResponse/{the Appointment's id}.
    ...(appointment.answers.length > 0
      ? { supportingInformation: [{ reference: `QuestionnaireResponse/${pairId(clinicId, appointment.id)}` }] }
      : {}),
  };
}

/**
 * A proposed Appointment ($find's answer, CONTRACT §16): what booking this free Slot would make.
 * Its id is the Slot's (which names clinic, provider, service and start), so that
 * `appointment-reference` can point at it; nothing is stored.
 */
export function toProposedAppointment(clinic: ClinicView, slot: Slot, at: Date): Appointment {
  const content: Appointment = {
    resourceType: "Appointment",
    ...(slot.id ? { id: slot.id } : {}),
    status: "proposed",
    ...(slot.serviceType ? { serviceType: slot.serviceType } : {}),
    start: slot.start,
    end: slot.end,
    slot: [{ reference: `Slot/${slot.id ?? ""}` }],
    participant: [
      {
        actor: { reference: `Practitioner/${slot.schedule.reference?.split("/")[1] ?? ""}` },
        status: "needs-action",
      },
      { actor: locationRef(clinic), status: "needs-action" },
    ],
  };
  return { ...content, meta: contentMeta(content, at) };
}

function cancelReasonOf(appointment: AppointmentView): string {
  const last = appointment.status_history.at(-1);
  return last?.reason ?? "canceled";
}
