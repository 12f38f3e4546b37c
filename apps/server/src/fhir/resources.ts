// The resources the facade serves (docs/fhir.md#mapping): for each type its read, its search and
// its search parameters, all through the procedures of a caller on the request's context.
import { DomainError, appRouter, createCallerFactory } from "@clinic/api";
import type { FhirResource } from "fhir/r4.js";
import { isUuid, parsePairId, parseSlotId, referenceId } from "./ids.ts";
import {
  type AppointmentView,
  type ClinicView,
  type ProviderView,
  type ServiceView,
  ourStatusOf,
  serviceSystem,
  toAppointment,
  toHealthcareService,
  toLocation,
  toOrganization,
  toPractitioner,
  toPractitionerRole,
  toSchedule,
  toSlot,
} from "./mapping.ts";
export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;

export type Params = Record<string, string[]>;

interface SearchRequest {
  caller: Caller;
  params: Params;
  now: Date;
}

/** A search parameter we serve: its FHIR type (for the CapabilityStatement) and what it means. */
interface ParamDef {
  type: "token" | "reference" | "date" | "string" | "number";
  documentation: string;
}

interface ResourceDef {
  search: Record<string, ParamDef>;
  read: (caller: Caller, id: string, now: Date) => Promise<FhirResource>;
  searchAll: (search: SearchRequest) => Promise<FhirResource[]>;
}

const clinicParam: ParamDef = {
  type: "token",
  documentation: "The clinic (Organization id). Needed unless another parameter's reference names it (docs/fhir.md)",
};
export const commonParams = new Set(["_count", "_offset", "_format"]);

export function invalid(parameter: string, message: string): DomainError {
  return new DomainError("VALIDATION_FAILED", `${parameter}: ${message}`, { errors: [{ path: parameter, message }] });
}

export const notFound = (type: string, id: string) => new DomainError("NOT_FOUND", `${type}/${id} not found`);

/** Every value of a parameter, comma lists split (FHIR's OR). */
function valuesOf(params: Params, name: string): string[] {
  return (params[name] ?? []).flatMap((value) => value.split(","));
}

export function single(params: Params, name: string): string | undefined {
  const values = params[name] ?? [];
  if (values.length > 1) throw invalid(name, "given more than once");
  return values[0];
}

/**
 * The clinic a search works in: the `clinic` parameter, or the clinic a reference parameter
 * names; all of them must agree (else 400), and one must be there.
 */
function clinicOfSearch(params: Params, fromReferences: (string | undefined)[]): string {
  const named = valuesOf(params, "clinic");
  for (const clinic of named) if (!isUuid(clinic)) throw invalid("clinic", "must be a clinic id (UUID)");
  const candidates = new Set([...named, ...fromReferences.filter((c): c is string => c !== undefined)]);
  if (candidates.size > 1) throw invalid("clinic", "the parameters name different clinics");
  const [clinic] = [...candidates];
  if (clinic === undefined) {
    throw invalid("clinic", "name the clinic: clinic=<Organization id>, or a reference that names it");
  }
  return clinic;
}

/** The clinic named by `Organization/{id}` or `Location/{id}` references. */
function clinicsOfOrgRefs(params: Params, name: string, types: string[]): string[] {
  return valuesOf(params, name).map((value) => {
    const id = referenceId(value, types, name);
    if (!isUuid(id)) throw invalid(name, "not a clinic's id");
    return id;
  });
}

/** The (clinic, local id) pairs of references to pair-id resources. */
function pairsOf(params: Params, name: string, types: string[]) {
  return valuesOf(params, name).map((value) => {
    const pair = parsePairId(referenceId(value, types, name));
    if (!pair) throw invalid(name, `not an id of this server: ${value}`);
    return pair;
  });
}

/** A service named by a `service-type` token (`code` or `system|code`). */
function serviceIdsOf(params: Params): string[] {
  return valuesOf(params, "service-type").map((token) => {
    const bar = token.indexOf("|");
    if (bar >= 0 && token.slice(0, bar) !== "" && token.slice(0, bar) !== serviceSystem) {
      throw invalid("service-type", `unknown code system; use ${serviceSystem}`);
    }
    const code = bar >= 0 ? token.slice(bar + 1) : token;
    if (!isUuid(code)) throw invalid("service-type", "must be a service id");
    return code;
  });
}

function booleanOf(params: Params, name: string): boolean | undefined {
  const value = single(params, name);
  if (value === undefined) return undefined;
  if (value !== "true" && value !== "false") throw invalid(name, "must be true or false");
  return value === "true";
}

/** A date parameter's bounds: ge/gt → from, lt/le → to; values are instants with an offset. */
function instantBounds(params: Params, name: string): { from?: Date; to?: Date } {
  const bounds: { from?: Date; to?: Date } = {};
  for (const value of params[name] ?? []) {
    const match = /^(ge|gt|lt|le)(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))$/.exec(
      value,
    );
    const instant = match?.[2] ? new Date(match[2]) : undefined;
    if (!match || !instant || Number.isNaN(instant.getTime())) {
      throw invalid(name, "must be ge, gt, lt or le followed by an instant with a time zone offset");
    }
    if (match[1] === "ge" || match[1] === "gt") bounds.from = instant;
    else bounds.to = match[1] === "le" ? new Date(instant.getTime() + 1) : instant;
  }
  return bounds;
}

async function everyPage<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const answer = await page(cursor);
    all.push(...answer.items);
    cursor = answer.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return all;
}

const allProviders = (caller: Caller, clinicId: string): Promise<ProviderView[]> =>
  everyPage(async (cursor) => {
    const answer = await caller.providers.list({ clinic_id: clinicId, limit: 500, ...(cursor ? { cursor } : {}) });
    return { items: answer.providers, next_cursor: answer.next_cursor };
  });

export const allServices = (caller: Caller, clinicId: string, includeInactive: boolean): Promise<ServiceView[]> =>
  everyPage(async (cursor) => {
    const answer = await caller.services.list({
      clinic_id: clinicId,
      include_inactive: includeInactive,
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    return { items: answer.services, next_cursor: answer.next_cursor };
  });

/** The services a provider can be booked for: assigned to them, or to nobody. */
const servicesOfProvider = (services: ServiceView[], providerId: string) =>
  services.filter((s) => s.is_active && (s.provider_id === null || s.provider_id === providerId));

/** A pair id of the given clinic-scoped read, or 404. */
export function pairOrNotFound(type: string, id: string) {
  const pair = parsePairId(id);
  if (!pair) throw notFound(type, id);
  return pair;
}

async function providerOf(caller: Caller, type: string, id: string) {
  const pair = pairOrNotFound(type, id);
  const provider = await caller.providers.get({ clinic_id: pair.clinicId, user_id: pair.localId });
  return { clinicId: pair.clinicId, provider };
}

const clinicRead = async (caller: Caller, type: string, id: string): Promise<ClinicView> => {
  if (!isUuid(id)) throw notFound(type, id);
  return caller.clinics.get({ clinic_id: id });
};

const allClinics = (caller: Caller): Promise<ClinicView[]> =>
  everyPage(async (cursor) => {
    const answer = await caller.clinics.list({ limit: 500, ...(cursor ? { cursor } : {}) });
    return { items: answer.clinics, next_cursor: answer.next_cursor };
  });

/** Organization and Location searches: the caller's clinics (or those named). */
async function clinicsOfSearch(search: SearchRequest): Promise<ClinicView[]> {
  const ids = new Set([...valuesOf(search.params, "_id"), ...valuesOf(search.params, "clinic")]);
  const names = valuesOf(search.params, "name").map((n) => n.toLowerCase());
  const clinics =
    ids.size > 0
      ? await Promise.all(
          [...ids].filter(isUuid).map((id) => search.caller.clinics.get({ clinic_id: id }).catch(() => undefined)),
        )
      : await allClinics(search.caller);
  return clinics
    .filter((c): c is ClinicView => c !== undefined)
    .filter((c) => names.length === 0 || names.some((n) => c.name.toLowerCase().startsWith(n)));
}

/** The local date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
}

export async function slotsOf(
  caller: Caller,
  clinic: ClinicView,
  service: ServiceView,
  range: { from?: Date; to?: Date; providerId?: string },
  now: Date,
) {
  const answer = await caller.availability.get({
    clinic_id: clinic.id,
    service_id: service.id,
    ...(range.from ? { from: localDate(range.from, clinic.timezone) } : {}),
    ...(range.to ? { to: localDate(new Date(range.to.getTime() - 1), clinic.timezone) } : {}),
    ...(range.providerId ? { provider_id: range.providerId } : {}),
  });
  return answer.slots
    .filter((s) => (!range.from || s.start >= range.from) && (!range.to || s.start < range.to))
    .flatMap((s) =>
      s.provider_ids
        .filter((p) => !range.providerId || p === range.providerId)
        .map((p) => toSlot(clinic, service, p, s, now)),
    );
}

/** What is served: the routes and the CapabilityStatement are both made from this table. */
export const resources: Record<string, ResourceDef> = {
  Organization: {
    search: {
      _id: { type: "token", documentation: "The clinic's id" },
      name: { type: "string", documentation: "Start of the clinic's name" },
      clinic: clinicParam,
    },
    read: async (caller, id) => toOrganization(await clinicRead(caller, "Organization", id)),
    searchAll: async (search) => (await clinicsOfSearch(search)).map(toOrganization),
  },
  Location: {
    search: {
      _id: { type: "token", documentation: "The clinic's id" },
      name: { type: "string", documentation: "Start of the clinic's name" },
      clinic: clinicParam,
    },
    read: async (caller, id) => toLocation(await clinicRead(caller, "Location", id)),
    searchAll: async (search) => (await clinicsOfSearch(search)).map(toLocation),
  },
  Practitioner: {
    search: {
      clinic: clinicParam,
      name: { type: "string", documentation: "Part of the name (case-insensitive)" },
      active: { type: "token", documentation: "true: approved providers" },
    },
    read: async (caller, id) => {
      const { clinicId, provider } = await providerOf(caller, "Practitioner", id);
      return toPractitioner(clinicId, provider);
    },
    searchAll: async ({ caller, params }) => {
      const clinicId = clinicOfSearch(params, []);
      const name = single(params, "name")?.toLowerCase();
      const active = booleanOf(params, "active");
      return (await allProviders(caller, clinicId))
        .filter((p) => name === undefined || p.full_name.toLowerCase().includes(name))
        .filter((p) => active === undefined || (p.status === "approved") === active)
        .map((p) => toPractitioner(clinicId, p));
    },
  },
  PractitionerRole: {
    search: {
      clinic: clinicParam,
      organization: { type: "reference", documentation: "Organization/{clinic id}" },
      practitioner: { type: "reference", documentation: "Practitioner/{id}" },
      active: { type: "token", documentation: "true: approved providers" },
    },
    read: async (caller, id) => {
      const { clinicId, provider } = await providerOf(caller, "PractitionerRole", id);
      return toPractitionerRole(await caller.clinics.get({ clinic_id: clinicId }), provider);
    },
    searchAll: async ({ caller, params }) => {
      const practitioners = pairsOf(params, "practitioner", ["Practitioner"]);
      const clinicId = clinicOfSearch(params, [
        ...clinicsOfOrgRefs(params, "organization", ["Organization"]),
        ...practitioners.map((p) => p.clinicId),
      ]);
      const active = booleanOf(params, "active");
      const clinic = await caller.clinics.get({ clinic_id: clinicId });
      return (await allProviders(caller, clinicId))
        .filter((p) => practitioners.length === 0 || practitioners.some((r) => r.localId === p.user_id))
        .filter((p) => active === undefined || (p.status === "approved") === active)
        .map((p) => toPractitionerRole(clinic, p));
    },
  },
  HealthcareService: {
    search: {
      clinic: clinicParam,
      organization: { type: "reference", documentation: "Organization/{clinic id}" },
      active: { type: "token", documentation: "true: active services (default: all)" },
      name: { type: "string", documentation: "Part of the name (case-insensitive)" },
    },
    read: async (caller, id) => {
      const pair = pairOrNotFound("HealthcareService", id);
      const [clinic, service] = await Promise.all([
        caller.clinics.get({ clinic_id: pair.clinicId }),
        caller.services.get({ clinic_id: pair.clinicId, id: pair.localId }),
      ]);
      return toHealthcareService(clinic, service);
    },
    searchAll: async ({ caller, params }) => {
      const clinicId = clinicOfSearch(params, clinicsOfOrgRefs(params, "organization", ["Organization"]));
      const active = booleanOf(params, "active");
      const name = single(params, "name")?.toLowerCase();
      const clinic = await caller.clinics.get({ clinic_id: clinicId });
      return (await allServices(caller, clinicId, active !== true))
        .filter((s) => active === undefined || s.is_active === active)
        .filter((s) => name === undefined || s.name.toLowerCase().includes(name))
        .map((s) => toHealthcareService(clinic, s));
    },
  },
  Schedule: {
    search: {
      clinic: clinicParam,
      actor: { type: "reference", documentation: "PractitionerRole/{id}, Practitioner/{id} or Location/{clinic id}" },
      "service-type": { type: "token", documentation: `A service: ${serviceSystem}|{service id}` },
      active: { type: "token", documentation: "true: approved providers" },
    },
    read: async (caller, id) => {
      const { clinicId, provider } = await providerOf(caller, "Schedule", id);
      const [clinic, services] = await Promise.all([
        caller.clinics.get({ clinic_id: clinicId }),
        allServices(caller, clinicId, false),
      ]);
      return toSchedule(clinic, provider, servicesOfProvider(services, provider.user_id));
    },
    searchAll: async ({ caller, params }) => {
      const actors = valuesOf(params, "actor").map((value) => {
        const id = referenceId(value, ["PractitionerRole", "Practitioner", "Location"], "actor");
        if (isUuid(id)) return { clinicId: id, localId: undefined };
        const pair = parsePairId(id);
        if (!pair) throw invalid("actor", `not an id of this server: ${value}`);
        return pair;
      });
      const clinicId = clinicOfSearch(
        params,
        actors.map((a) => a.clinicId),
      );
      const wanted = actors.flatMap((a) => (a.localId ? [a.localId] : []));
      const serviceIds = serviceIdsOf(params);
      const active = booleanOf(params, "active");
      const [clinic, providers, services] = await Promise.all([
        caller.clinics.get({ clinic_id: clinicId }),
        allProviders(caller, clinicId),
        allServices(caller, clinicId, false),
      ]);
      return providers
        .filter((p) => wanted.length === 0 || wanted.includes(p.user_id))
        .filter((p) => active === undefined || (p.status === "approved") === active)
        .map((p) => ({ provider: p, services: servicesOfProvider(services, p.user_id) }))
        .filter((s) => serviceIds.length === 0 || s.services.some((v) => serviceIds.includes(v.id)))
        .map((s) => toSchedule(clinic, s.provider, s.services));
    },
  },
  Slot: {
    search: {
      clinic: clinicParam,
      schedule: { type: "reference", documentation: "Schedule/{id}" },
      "service-type": { type: "token", documentation: `A service: ${serviceSystem}|{service id}` },
      start: {
        type: "date",
        documentation: "ge/gt and lt/le bounds (instants with an offset); at most 62 local dates",
      },
      status: { type: "token", documentation: "free (the only status served: slots are computed free time)" },
    },
    read: async (caller, id, now) => {
      const key = parseSlotId(id);
      if (!key) throw notFound("Slot", id);
      const [clinic, services] = await Promise.all([
        caller.clinics.get({ clinic_id: key.clinicId }),
        allServices(caller, key.clinicId, false),
      ]);
      const matching = services.filter((s) => s.id.replaceAll("-", "").startsWith(key.servicePrefix));
      const [service] = matching;
      if (!service || matching.length > 1) throw notFound("Slot", id);
      const slots = await slotsOf(
        caller,
        clinic,
        service,
        { from: key.start, to: new Date(key.start.getTime() + 60_000), providerId: key.providerId },
        now,
      );
      const slot = slots.find((s) => s.id === id);
      if (!slot) throw notFound("Slot", id);
      return slot;
    },
    searchAll: async ({ caller, params, now }) => {
      const schedules = pairsOf(params, "schedule", ["Schedule"]);
      const clinicId = clinicOfSearch(
        params,
        schedules.map((s) => s.clinicId),
      );
      if (schedules.length > 1) throw invalid("schedule", "one schedule at a time");
      const statuses = valuesOf(params, "status");
      if (statuses.length > 0 && !statuses.includes("free")) return [];
      const serviceIds = serviceIdsOf(params);
      const bounds = instantBounds(params, "start");
      const [clinic, services] = await Promise.all([
        caller.clinics.get({ clinic_id: clinicId }),
        allServices(caller, clinicId, false),
      ]);
      const providerId = schedules[0]?.localId;
      const chosen = services
        .filter((s) => serviceIds.length === 0 || serviceIds.includes(s.id))
        .filter((s) => !providerId || s.provider_id === null || s.provider_id === providerId);
      const slots = [];
      for (const service of chosen) {
        slots.push(
          ...(await slotsOf(caller, clinic, service, { ...bounds, ...(providerId ? { providerId } : {}) }, now)),
        );
      }
      return slots.sort((a, b) => a.start.localeCompare(b.start) || (a.id ?? "").localeCompare(b.id ?? ""));
    },
  },
  Appointment: {
    search: {
      clinic: clinicParam,
      date: { type: "date", documentation: "ge/gt and lt/le bounds on the start (instants with an offset)" },
      status: { type: "token", documentation: "FHIR statuses, comma-separated" },
      practitioner: { type: "reference", documentation: "Practitioner/{id}" },
      patient: { type: "reference", documentation: "Patient/{user id}" },
      location: { type: "reference", documentation: "Location/{clinic id}" },
    },
    read: async (caller, id) => {
      const pair = pairOrNotFound("Appointment", id);
      return toAppointment(await caller.appointments.get({ clinic_id: pair.clinicId, id: pair.localId }));
    },
    searchAll: async ({ caller, params }) => {
      const practitioners = pairsOf(params, "practitioner", ["Practitioner"]);
      const clinicId = clinicOfSearch(params, [
        ...clinicsOfOrgRefs(params, "location", ["Location"]),
        ...practitioners.map((p) => p.clinicId),
      ]);
      if (practitioners.length > 1) throw invalid("practitioner", "one practitioner at a time");
      const patients = valuesOf(params, "patient").map((value) => {
        const id = referenceId(value, ["Patient"], "patient");
        if (!isUuid(id)) throw invalid("patient", "not a patient id of this server");
        return id;
      });
      const statuses = valuesOf(params, "status").map((status) => {
        const ours = ourStatusOf(status);
        if (!ours) throw invalid("status", `unknown status ${status}`);
        return ours;
      });
      const bounds = instantBounds(params, "date");
      const providerId = practitioners[0]?.localId;
      const all: AppointmentView[] = await everyPage(async (cursor) => {
        const answer = await caller.appointments.list({
          clinic_id: clinicId,
          ...(bounds.from ? { from: bounds.from.toISOString() } : {}),
          ...(bounds.to ? { to: bounds.to.toISOString() } : {}),
          ...(providerId ? { provider_id: providerId } : {}),
          ...(statuses.length > 0 ? { status: statuses.join(",") } : {}),
          limit: 500,
          ...(cursor ? { cursor } : {}),
        });
        return { items: answer.appointments, next_cursor: answer.next_cursor };
      });
      return all
        .filter((a) => patients.length === 0 || (a.patient_user_id !== null && patients.includes(a.patient_user_id)))
        .map(toAppointment);
    },
  },
};

/** The CapabilityStatement of exactly what `resources` serves. */
