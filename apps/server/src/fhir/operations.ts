// Appointment writes of the facade (docs/fhir.md#operations): $find, $hold, $book and PATCH of
// status, each mapped onto the procedures /v1 uses (availability.get, appointments.hold, book
// with hold_id, setStatus, cancel), so every booking rule and guarantee is theirs. Every body is
// read through input.ts's schemas first: a wrong shape is a 400 naming the element.
import type { Appointment, Bundle } from "fhir/r4.js";
import { DomainError } from "@clinic/api";
import { appointmentView } from "./appointments.ts";
import { isUuid, parsePairId, parseSlotId, referenceId } from "./ids.ts";
import {
  type AppointmentInput,
  type ParameterPart,
  type ParametersInput,
  appointmentInput,
  invalid,
  parametersInput,
  parseInput,
} from "./input.ts";
import {
  type AppointmentView,
  type ServiceView,
  ourStatusOf,
  serviceSystem,
  toAppointment,
  toProposedAppointment,
} from "./mapping.ts";
import { inServedYears } from "./params.ts";
import { answersErrorOf, answersOfResponse, givenResponse, responsePart } from "./questionnaires.ts";
import type { Caller } from "./scope.ts";
import { allServices, serviceOfPrefix, slotsOf } from "./slots.ts";

/** The resource type of a body, or 400 when it is not a FHIR resource of one of the given types. */
function resourceTypeOf<T extends string>(body: unknown, types: readonly T[]): T {
  const type =
    typeof body === "object" && body !== null && !Array.isArray(body) && "resourceType" in body
      ? body.resourceType
      : undefined;
  if (type === undefined) throw invalid("(body)", `must be a FHIR resource: ${types.join(" or ")}`);
  const known = types.find((t) => t === type);
  if (known === undefined) throw invalid("resourceType", `must be ${types.join(" or ")}`);
  return known;
}

function partsOf(parameters: ParametersInput, name: string): ParameterPart[] {
  return (parameters.parameter ?? []).filter((p) => p.name === name);
}

/** The one value of a part as text (dates, strings, codes, a Coding's or CodeableConcept's code, a reference). */
function partText(parameters: ParametersInput, name: string): string | undefined {
  const parts = partsOf(parameters, name);
  if (parts.length > 1) throw invalid(name, "given more than once");
  const part = parts[0];
  if (!part) return undefined;
  const integer = part.valueInteger ?? part.valueUnsignedInt ?? part.valuePositiveInt;
  const value =
    part.valueDateTime ??
    part.valueInstant ??
    part.valueString ??
    part.valueCode ??
    part.valueUri ??
    part.valueId ??
    part.valueReference?.reference ??
    part.valueCoding?.code ??
    part.valueCodeableConcept?.coding?.[0]?.code ??
    (integer === undefined ? undefined : String(integer));
  if (value === undefined) throw invalid(name, "has no value of a supported type");
  return value;
}

function required(parameters: ParametersInput, name: string): string {
  const value = partText(parameters, name);
  if (value === undefined) throw invalid(name, "is required");
  return value;
}

function instantOf(value: string, name: string): Date {
  const at = /(?:Z|[+-]\d{2}:\d{2})$/.test(value) && /T/.test(value) ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime()) || !inServedYears(at)) {
    throw invalid(name, "must be an instant with a time zone offset");
  }
  return at;
}

function serviceCode(value: string, name: string): string {
  const code = value.startsWith(`${serviceSystem}|`) ? value.slice(serviceSystem.length + 1) : value;
  if (!isUuid(code)) throw invalid(name, "must be a service id (HealthcareService type code)");
  return code;
}

/** A searchset Bundle of the Appointments an operation answers. */
export function appointmentBundle(base: string, appointments: readonly Appointment[]): Bundle {
  return {
    resourceType: "Bundle",
    type: "searchset",
    total: appointments.length,
    entry: appointments.map((resource) => ({
      ...(resource.id ? { fullUrl: `${base}/Appointment/${resource.id}` } : {}),
      resource,
      search: { mode: "match" as const },
    })),
  };
}

/**
 * $find: proposed Appointments, one per free slot of the service between start and end, in the
 * clinic named by `location`, `practitioner` or `clinic`.
 */
export async function findAppointments(caller: Caller, body: unknown, now: Date): Promise<Appointment[]> {
  resourceTypeOf(body, ["Parameters"]);
  const parameters = parseInput(parametersInput, body, "Parameters");
  const start = instantOf(required(parameters, "start"), "start");
  const end = instantOf(required(parameters, "end"), "end");
  if (end <= start) throw invalid("end", "must be after start");
  const serviceText = partText(parameters, "service-type") ?? partText(parameters, "specialty");
  if (serviceText === undefined) throw invalid("service-type", "is required (or specialty)");
  const serviceId = serviceCode(serviceText, "service-type");
  const practitionerText = partText(parameters, "practitioner");
  const practitioner =
    practitionerText === undefined
      ? undefined
      : parsePairId(referenceId(practitionerText, ["Practitioner", "PractitionerRole", "Schedule"], "practitioner"));
  if (practitionerText !== undefined && !practitioner) throw invalid("practitioner", "not an id of this server");
  const locationText = partText(parameters, "location");
  const location = locationText === undefined ? undefined : referenceId(locationText, ["Location"], "location");
  if (location !== undefined && !isUuid(location)) throw invalid("location", "not a clinic's id");
  const clinicText = partText(parameters, "clinic");
  if (clinicText !== undefined && !isUuid(clinicText)) throw invalid("clinic", "must be a clinic id");
  const clinics = new Set([practitioner?.clinicId, location, clinicText].filter((c): c is string => c !== undefined));
  const [clinicId] = [...clinics];
  if (clinics.size !== 1 || clinicId === undefined) {
    throw invalid("location", "name one clinic: location, practitioner or clinic");
  }
  const countText = partText(parameters, "_count");
  const count = countText === undefined ? 100 : Number(countText);
  if (!Number.isInteger(count) || count < 0 || count > 500) throw invalid("_count", "must be a whole number 0–500");

  const [clinic, services] = await Promise.all([
    caller.clinics.get({ clinic_id: clinicId }),
    allServices(caller, clinicId, false),
  ]);
  const service = services.find((s) => s.id === serviceId);
  if (!service) throw new DomainError("NOT_FOUND", `service ${serviceId} not found`);
  const slots = await slotsOf(
    caller,
    clinic,
    service,
    { from: start, to: end, ...(practitioner ? { providerId: practitioner.localId } : {}) },
    now,
  );
  return slots.slice(0, count).map((slot) => toProposedAppointment(clinic, slot, now));
}

/** The names of the part that carries the Appointment itself (IHE ITI-116/117; Argonaut's `appt-resource`; ours of v1.2). */
const resourceParts = ["appointment-resource", "appt-resource", "appointment"] as const;

/**
 * The Appointment a $hold or $book is about, and how it was asked: the body itself or the v1.2
 * `appointment` part ("resource": answered with the Appointment, as in v1.2), or IHE's
 * `appointment-resource` (Argonaut: `appt-resource`) or `appointment-reference` ("ihe":
 * answered with a Bundle). A reference is read: a proposed Appointment's id is its Slot's; a
 * held one's is read as GET /Appointment/{id} reads it.
 */
async function appointmentOf(
  caller: Caller,
  body: unknown,
): Promise<{ appointment: AppointmentInput; form: "resource" | "ihe"; parameters?: ParametersInput }> {
  if (resourceTypeOf(body, ["Appointment", "Parameters"]) === "Appointment") {
    return { appointment: parseInput(appointmentInput, body, "Appointment"), form: "resource" };
  }
  const parameters = parseInput(parametersInput, body, "Parameters");
  const given = [...resourceParts, "appointment-reference"].filter((name) => partsOf(parameters, name).length > 0);
  const [name] = given;
  if (given.length !== 1 || name === undefined || partsOf(parameters, name).length !== 1) {
    throw invalid(
      "appointment-reference",
      "Parameters need exactly one appointment-reference, appointment-resource (or appt-resource) part",
    );
  }
  if (name === "appointment-reference") {
    const reference = required(parameters, name);
    return { appointment: await referencedAppointment(caller, reference), form: "ihe", parameters };
  }
  const inner = partsOf(parameters, name)[0]?.resource;
  if (inner === undefined) throw invalid(name, "must hold the Appointment as its resource");
  const appointment = parseInput(appointmentInput, inner, `Parameters.parameter[${name}].resource`);
  return { appointment, form: name === "appointment" ? "resource" : "ihe", parameters };
}

/** The Appointment an `appointment-reference` names, as the operations read it. */
async function referencedAppointment(caller: Caller, reference: string): Promise<AppointmentInput> {
  const id = referenceId(reference, ["Appointment"], "appointment-reference");
  const pair = parsePairId(id);
  if (pair) return appointmentInputOf(toAppointment(await appointmentView(caller, pair)));
  if (!parseSlotId(id)) throw invalid("appointment-reference", "not an Appointment of this server");
  // A proposal is its Slot: what $hold and $book read of it is that one reference.
  return { resourceType: "Appointment", id, status: "proposed", slot: [{ reference: `Slot/${id}` }] };
}

function appointmentInputOf(appointment: Appointment): AppointmentInput {
  return parseInput(appointmentInput, appointment, "Appointment");
}

/** What a proposed Appointment asks for: its Slot names the clinic, provider, service and start. */
async function targetOf(caller: Caller, appointment: AppointmentInput) {
  const slots = appointment.slot ?? [];
  const reference = slots[0]?.reference;
  if (slots.length !== 1 || reference === undefined) throw invalid("slot", "a proposed Appointment needs one slot");
  const key = parseSlotId(referenceId(reference, ["Slot"], "slot"));
  if (!key || !inServedYears(key.start)) throw invalid("slot", `not a slot of this server: ${reference.slice(0, 100)}`);
  if (appointment.start !== undefined && instantOf(appointment.start, "start").getTime() !== key.start.getTime()) {
    throw invalid("start", "differs from the slot's start");
  }
  const services = await allServices(caller, key.clinicId, false);
  const service = serviceOfPrefix(services, key.servicePrefix);
  if (!service) throw new DomainError("NOT_FOUND", `${reference.slice(0, 100)} not found`);
  return { clinicId: key.clinicId, providerId: key.providerId, serviceId: service.id, service, start: key.start };
}

/** An operation's answer: the Appointment, and whether it is to be answered as a Bundle (IHE's parts). */
export interface OperationAnswer {
  appointment: Appointment;
  asBundle: boolean;
}

/** $hold: a proposed Appointment becomes our hold (FHIR status pending, held_until as an extension). */
export async function holdAppointment(
  caller: Caller,
  body: unknown,
  idempotencyKey: string | undefined,
): Promise<OperationAnswer> {
  const { appointment, form, parameters } = await appointmentOf(caller, body);
  if (appointment.status !== "proposed") throw invalid("status", "$hold takes a proposed Appointment");
  if (givenResponse(parameters) !== undefined) {
    throw invalid(responsePart, "a hold takes no answers: give them when you $book it");
  }
  const target = await targetOf(caller, appointment);
  const held = await caller.appointments.hold({
    clinic_id: target.clinicId,
    service_id: target.serviceId,
    start: target.start.toISOString(),
    provider_id: target.providerId,
    ...(idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey }),
  });
  return { appointment: toAppointment(held), asBundle: form === "ihe" };
}

/** A patient named by a reference and/or display: `Patient/{user id}` needs the display (their name). */
function patientOfActor(actor: { reference?: string | undefined; display?: string | undefined }, path: string) {
  if (actor.reference !== undefined) {
    const id = referenceId(actor.reference, ["Patient"], path);
    if (!isUuid(id)) throw invalid(path, "not a patient id of this server");
    if (!actor.display) throw invalid(path, "the patient's display (their name) is required");
    return { name: actor.display, userId: id };
  }
  return actor.display ? { name: actor.display } : undefined;
}

/**
 * The patient of a booking: a `patient` part of the Parameters (a Reference with display, or a
 * string: their name) when there is one, else the Appointment's `Patient/{user id}` participant
 * and/or a participant's display (a reference read by `appointment-reference` has no patient).
 */
function patientOf(appointment: AppointmentInput, parameters: ParametersInput | undefined) {
  const parts = parameters === undefined ? [] : partsOf(parameters, "patient");
  if (parts.length > 1) throw invalid("patient", "given more than once");
  const [part] = parts;
  if (part !== undefined) {
    const patient = part.valueReference
      ? patientOfActor(part.valueReference, "patient")
      : part.valueString
        ? { name: part.valueString }
        : undefined;
    if (!patient) throw invalid("patient", "must be a Reference to Patient/{user id} with a display, or a name");
    return patient;
  }
  for (const participant of appointment.participant ?? []) {
    const actor = participant.actor;
    if (actor === undefined) continue;
    if (actor.reference !== undefined && !actor.reference.startsWith("Patient/")) continue;
    const patient = patientOfActor(actor, "participant");
    if (patient) return patient;
  }
  throw invalid(
    "participant",
    "the patient is required: a participant with a Patient reference and display, or a display (or a patient part)",
  );
}

/** $book: a proposed Appointment (booked now) or a held one (its hold becomes the booking). */
export async function bookAppointment(
  caller: Caller,
  body: unknown,
  idempotencyKey: string | undefined,
): Promise<OperationAnswer> {
  const { appointment, form, parameters } = await appointmentOf(caller, body);
  const asBundle = form === "ihe";
  if (appointment.status !== "pending" && appointment.status !== "proposed") {
    throw invalid("status", "$book takes a proposed or a held (pending) Appointment");
  }
  const patient = patientOf(appointment, parameters);
  // The answers (§19): the part's shape is checked before anything is read or booked.
  const response = givenResponse(parameters);
  const notes = appointment.comment === undefined ? {} : { notes: appointment.comment };
  const who = { patient: { name: patient.name }, ...(patient.userId ? { patient_user_id: patient.userId } : {}) };
  const key = idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey };
  /** Books with the answers; the procedure's refusal of them is told of the questionnaire-response. */
  const book = async (
    input: Omit<Parameters<Caller["appointments"]["book"]>[0], "answers">,
    service: () => Promise<ServiceView>,
  ) => {
    const answers =
      response === undefined ? {} : { answers: answersOfResponse(response, input.clinic_id, await service()) };
    try {
      return toAppointment(await caller.appointments.book({ ...input, ...answers }));
    } catch (error) {
      throw answersErrorOf(error, response, parameters !== undefined);
    }
  };
  if (appointment.status === "pending") {
    // A hold of ours: its id names it, and its service and start must be the hold's.
    const hold = appointment.id === undefined ? undefined : parsePairId(appointment.id);
    if (!hold) throw invalid("id", "a held Appointment needs its id");
    const code = appointment.serviceType?.[0]?.coding?.find((c) => c.system === serviceSystem)?.code;
    if (code === undefined || appointment.start === undefined) {
      throw invalid("serviceType", "a held Appointment needs its serviceType and start");
    }
    const serviceId = serviceCode(code, "serviceType");
    const booked = await book(
      {
        clinic_id: hold.clinicId,
        service_id: serviceId,
        start: instantOf(appointment.start, "start").toISOString(),
        hold_id: hold.localId,
        ...who,
        ...notes,
        ...key,
      },
      () => caller.services.get({ clinic_id: hold.clinicId, id: serviceId }),
    );
    return { appointment: booked, asBundle };
  }
  const target = await targetOf(caller, appointment);
  const booked = await book(
    {
      clinic_id: target.clinicId,
      service_id: target.serviceId,
      start: target.start.toISOString(),
      provider_id: target.providerId,
      ...who,
      ...notes,
      ...key,
    },
    () => Promise.resolve(target.service),
  );
  return { appointment: booked, asBundle };
}

/** The version an If-Match names (`W/"<versionId>"`, `"<versionId>"` or bare), as our updated_at. */
function ifMatchOf(header: string | undefined): Date | undefined {
  if (header === undefined) return undefined;
  const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(header.trim());
  const version = match?.[1] === undefined ? undefined : new Date(Number(match[1]));
  // A version outside the years we store is none of our ETags (and no instant the database takes).
  if (!version || !inServedYears(version)) throw invalid("If-Match", 'must be the ETag of a read: W/"<versionId>"');
  return version;
}

const stale = (current: AppointmentView) =>
  new DomainError("STALE_UPDATED_AT", "the appointment was changed by someone else; read it again and retry", {
    status: "PRECONDITION_FAILED",
    extra: { current_version_id: String(current.updated_at.getTime()) },
  });

/**
 * PATCH of an Appointment: a JSON Patch that replaces /status only. `cancelled` is our cancel;
 * every other status is a §13 transition (T1), with If-Match checked in its own statement.
 */
export async function patchAppointment(
  caller: Caller,
  id: string,
  body: unknown,
  ifMatchHeader: string | undefined,
): Promise<Appointment> {
  if (!Array.isArray(body) || body.length === 0) throw invalid("(body)", "must be a JSON Patch array");
  let target: string | undefined;
  for (const [index, op] of (body as unknown[]).entries()) {
    const entry: Record<string, unknown> = typeof op === "object" && op !== null && !Array.isArray(op) ? { ...op } : {};
    if (entry.path !== "/status" || (entry.op !== "replace" && entry.op !== "add") || typeof entry.value !== "string") {
      throw invalid(`${index}`, "only { op: replace, path: /status, value: <status> } is supported");
    }
    target = entry.value;
  }
  const status = target === undefined ? undefined : ourStatusOf(target);
  if (!status || status === "held")
    throw invalid("/status", `not a status an appointment can be changed to: ${(target ?? "").slice(0, 40)}`);
  const pair = parsePairId(id);
  if (!pair) throw new DomainError("NOT_FOUND", `Appointment/${id.slice(0, 100)} not found`);
  const ifMatch = ifMatchOf(ifMatchHeader);
  const ref = { clinic_id: pair.clinicId, id: pair.localId };
  if (status === "canceled") {
    if (ifMatch) {
      // Cancel takes no If-Match: compared here just before (a change in between is not seen).
      const current = await caller.appointments.get(ref);
      if (current.updated_at.getTime() !== ifMatch.getTime()) throw stale(current);
    }
    return toAppointment(await caller.appointments.cancel(ref));
  }
  try {
    return toAppointment(
      await caller.appointments.setStatus({ ...ref, status, ...(ifMatch ? { if_match: ifMatch } : {}) }),
    );
  } catch (error) {
    if (error instanceof DomainError && error.domainCode === "STALE_UPDATED_AT") {
      throw new DomainError("STALE_UPDATED_AT", error.message, { status: "PRECONDITION_FAILED", extra: error.extra });
    }
    throw error;
  }
}
