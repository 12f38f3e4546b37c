// Appointment writes of the facade (docs/fhir.md#operations): $find, $hold, $book and PATCH of
// status, each mapped onto the procedures /v1 uses (availability.get, appointments.hold, book
// with hold_id, setStatus, cancel), so every booking rule and guarantee is theirs.
import type { Appointment, Bundle, Parameters, ParametersParameter } from "fhir/r4.js";
import { DomainError } from "@clinic/api";
import { isUuid, parsePairId, parseSlotId, referenceId } from "./ids.ts";
import { type AppointmentView, contentMeta, ourStatusOf, serviceSystem, toAppointment } from "./mapping.ts";
import { type Caller, allServices, invalid, slotsOf } from "./resources.ts";

/** A body that must be a FHIR resource of one of the given types. */
export function resourceBody<T extends string>(
  body: unknown,
  types: readonly T[],
): Record<string, unknown> & { resourceType: T } {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("resourceType" in body)) {
    throw invalid("(body)", `must be a FHIR resource: ${types.join(" or ")}`);
  }
  const type = body.resourceType;
  if (typeof type !== "string" || !types.includes(type as T)) {
    throw invalid("resourceType", `must be ${types.join(" or ")}`);
  }
  return body as Record<string, unknown> & { resourceType: T };
}

function partsOf(parameters: Parameters, name: string): ParametersParameter[] {
  return (parameters.parameter ?? []).filter((p) => p.name === name);
}

/** The one value of a part as text (dates, strings, codes, a Coding's or CodeableConcept's code, a reference). */
function partText(parameters: Parameters, name: string): string | undefined {
  const parts = partsOf(parameters, name);
  if (parts.length > 1) throw invalid(name, "given more than once");
  const part = parts[0];
  if (!part) return undefined;
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
    (part.valueInteger === undefined ? undefined : String(part.valueInteger));
  if (value === undefined) throw invalid(name, "has no value of a supported type");
  return value;
}

function required(parameters: Parameters, name: string): string {
  const value = partText(parameters, name);
  if (value === undefined) throw invalid(name, "is required");
  return value;
}

function instantOf(value: string, name: string): Date {
  const at = /(?:Z|[+-]\d{2}:\d{2})$/.test(value) && /T/.test(value) ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw invalid(name, "must be an instant with a time zone offset");
  return at;
}

function serviceCode(value: string, name: string): string {
  const code = value.startsWith(`${serviceSystem}|`) ? value.slice(serviceSystem.length + 1) : value;
  if (!isUuid(code)) throw invalid(name, "must be a service id (HealthcareService type code)");
  return code;
}

/**
 * $find: proposed Appointments, one per free slot of the service between start and end, in the
 * clinic named by `location`, `practitioner` or `clinic`.
 */
export async function findAppointments(caller: Caller, body: unknown, now: Date): Promise<Bundle> {
  const parameters = resourceBody(body, ["Parameters"]) as unknown as Parameters;
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
  const clinics = new Set([practitioner?.clinicId, location, clinicText].filter((c): c is string => c !== undefined));
  if (clinics.size !== 1) throw invalid("location", "name one clinic: location, practitioner or clinic");
  const [clinicId] = [...clinics];
  if (clinicId === undefined || !isUuid(clinicId)) throw invalid("clinic", "must be a clinic id");
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
  const proposed = slots.slice(0, count).map((slot) => {
    const content: Appointment = {
      resourceType: "Appointment",
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
        { actor: { reference: `Location/${clinic.id}`, display: clinic.name }, status: "needs-action" },
      ],
    };
    return { ...content, meta: contentMeta(content, now) };
  });
  return {
    resourceType: "Bundle",
    type: "searchset",
    total: proposed.length,
    entry: proposed.map((resource) => ({ resource, search: { mode: "match" as const } })),
  };
}

/** The Appointment of a $hold or $book: the body itself, or the `appointment` part of Parameters. */
function appointmentOf(body: unknown): Appointment {
  const resource = resourceBody(body, ["Appointment", "Parameters"]);
  if (resource.resourceType === "Appointment") return resource as unknown as Appointment;
  const parts = partsOf(resource as unknown as Parameters, "appointment");
  const inner = parts[0]?.resource;
  if (parts.length !== 1 || inner?.resourceType !== "Appointment") {
    throw invalid("appointment", "Parameters need one part `appointment` with an Appointment resource");
  }
  return inner;
}

/** What a proposed Appointment asks for: its Slot names the clinic, provider, service and start. */
async function targetOf(caller: Caller, appointment: Appointment) {
  const slots = appointment.slot ?? [];
  const reference = slots[0]?.reference;
  if (slots.length !== 1 || reference === undefined) throw invalid("slot", "a proposed Appointment needs one slot");
  const key = parseSlotId(referenceId(reference, ["Slot"], "slot"));
  if (!key) throw invalid("slot", `not a slot of this server: ${reference}`);
  if (appointment.start !== undefined && instantOf(appointment.start, "start").getTime() !== key.start.getTime()) {
    throw invalid("start", "differs from the slot's start");
  }
  const services = await allServices(caller, key.clinicId, false);
  const matching = services.filter((s) => s.id.replaceAll("-", "").startsWith(key.servicePrefix));
  const [service] = matching;
  if (!service || matching.length > 1) throw new DomainError("NOT_FOUND", `${reference} not found`);
  return { clinicId: key.clinicId, providerId: key.providerId, serviceId: service.id, start: key.start };
}

/** $hold: a proposed Appointment becomes our hold (FHIR status pending, held_until as an extension). */
export async function holdAppointment(
  caller: Caller,
  body: unknown,
  idempotencyKey: string | undefined,
): Promise<Appointment> {
  const appointment = appointmentOf(body);
  if (appointment.status !== "proposed") throw invalid("status", "$hold takes a proposed Appointment");
  const target = await targetOf(caller, appointment);
  const held = await caller.appointments.hold({
    clinic_id: target.clinicId,
    service_id: target.serviceId,
    start: target.start.toISOString(),
    provider_id: target.providerId,
    ...(idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey }),
  });
  return toAppointment(held);
}

/** The patient of a booking: a `Patient/{user id}` participant and/or a display name. */
function patientOf(appointment: Appointment): { name: string; userId?: string } {
  for (const participant of appointment.participant) {
    const actor = participant.actor;
    const reference = actor?.reference;
    if (reference?.startsWith("Patient/")) {
      const id = referenceId(reference, ["Patient"], "participant");
      if (!isUuid(id)) throw invalid("participant", "not a patient id of this server");
      if (!actor?.display) throw invalid("participant", "the patient's display (their name) is required");
      return { name: actor.display, userId: id };
    }
    if (reference === undefined && actor?.display) return { name: actor.display };
  }
  throw invalid("participant", "the patient is required: a Patient reference with a display, or a display");
}

/** $book: a proposed Appointment (booked now) or a held one (its hold becomes the booking). */
export async function bookAppointment(
  caller: Caller,
  body: unknown,
  idempotencyKey: string | undefined,
): Promise<Appointment> {
  const appointment = appointmentOf(body);
  const patient = patientOf(appointment);
  const notes = appointment.comment === undefined ? {} : { notes: appointment.comment };
  const who = { patient: { name: patient.name }, ...(patient.userId ? { patient_user_id: patient.userId } : {}) };
  const key = idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey };
  if (appointment.status === "pending") {
    // A hold of ours: its id names it, and its service and start must be the hold's.
    const hold = appointment.id === undefined ? undefined : parsePairId(appointment.id);
    if (!hold) throw invalid("id", "a held Appointment needs its id");
    const code = appointment.serviceType?.[0]?.coding?.find((c) => c.system === serviceSystem)?.code;
    if (code === undefined || appointment.start === undefined) {
      throw invalid("serviceType", "a held Appointment needs its serviceType and start");
    }
    const booked = await caller.appointments.book({
      clinic_id: hold.clinicId,
      service_id: serviceCode(code, "serviceType"),
      start: instantOf(appointment.start, "start").toISOString(),
      hold_id: hold.localId,
      ...who,
      ...notes,
      ...key,
    });
    return toAppointment(booked);
  }
  if (appointment.status !== "proposed")
    throw invalid("status", "$book takes a proposed or a held (pending) Appointment");
  const target = await targetOf(caller, appointment);
  const booked = await caller.appointments.book({
    clinic_id: target.clinicId,
    service_id: target.serviceId,
    start: target.start.toISOString(),
    provider_id: target.providerId,
    ...who,
    ...notes,
    ...key,
  });
  return toAppointment(booked);
}

/** The version an If-Match names (`W/"<versionId>"`, `"<versionId>"` or bare), as our updated_at. */
function ifMatchOf(header: string | undefined): Date | undefined {
  if (header === undefined) return undefined;
  const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(header.trim());
  if (!match?.[1]) throw invalid("If-Match", 'must be the ETag of a read: W/"<versionId>"');
  return new Date(Number(match[1]));
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
    const entry = typeof op === "object" && op !== null ? (op as Record<string, unknown>) : {};
    if (entry.path !== "/status" || (entry.op !== "replace" && entry.op !== "add") || typeof entry.value !== "string") {
      throw invalid(`${index}`, "only { op: replace, path: /status, value: <status> } is supported");
    }
    target = entry.value;
  }
  const status = target === undefined ? undefined : ourStatusOf(target);
  if (!status || status === "held")
    throw invalid("/status", `not a status an appointment can be changed to: ${target ?? ""}`);
  const pair = parsePairId(id);
  if (!pair) throw new DomainError("NOT_FOUND", `Appointment/${id} not found`);
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
