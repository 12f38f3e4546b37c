// The FHIR R4 facade (CONTRACT §16, docs/fhir.md): a mapping layer over the same tRPC procedures
// the /v1 routes call, through a caller built on the request's own context. Nothing here reads
// the database: authorization, clinic scoping and every rule stay the procedures'.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { Bundle, CapabilityStatement, FhirResource, OperationOutcome } from "fhir/r4.js";
import { type Context, DomainError, appRouter, createCallerFactory, toDomainError } from "@clinic/api";
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

export const fhirContentType = "application/fhir+json; charset=utf-8";
const fhirVersion = "4.0.1";
const createCaller = createCallerFactory(appRouter);
type Caller = ReturnType<typeof createCaller>;

export interface FhirOptions {
  createContext: (request: FastifyRequest) => Promise<Context>;
  now?: () => Date;
}

type Params = Record<string, string[]>;

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
const commonParams = new Set(["_count", "_offset", "_format"]);

function invalid(parameter: string, message: string): DomainError {
  return new DomainError("VALIDATION_FAILED", `${parameter}: ${message}`, { errors: [{ path: parameter, message }] });
}

const notFound = (type: string, id: string) => new DomainError("NOT_FOUND", `${type}/${id} not found`);

/** Every value of a parameter, comma lists split (FHIR's OR). */
function valuesOf(params: Params, name: string): string[] {
  return (params[name] ?? []).flatMap((value) => value.split(","));
}

function single(params: Params, name: string): string | undefined {
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

const allServices = (caller: Caller, clinicId: string, includeInactive: boolean): Promise<ServiceView[]> =>
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
function pairOrNotFound(type: string, id: string) {
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
function localDate(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
}

async function slotsOf(
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
export function capabilityStatement(baseUrl: string, at: Date): CapabilityStatement {
  return {
    resourceType: "CapabilityStatement",
    status: "active",
    date: at.toISOString(),
    kind: "instance",
    software: { name: "Clinic Scheduling Service" },
    implementation: { description: "FHIR R4 facade over the clinic scheduling API", url: baseUrl },
    fhirVersion,
    format: ["application/fhir+json"],
    rest: [
      {
        mode: "server",
        security: {
          description:
            "Authorization: Bearer <JWT> (or the access_token cookie), the same tokens and clinic roles as /v1 (docs/fhir.md)",
        },
        resource: Object.entries(resources).map(([type, def]) => ({
          type,
          interaction: [{ code: "read" as const }, { code: "search-type" as const }],
          versioning: "versioned" as const,
          readHistory: false,
          searchParam: [
            ...Object.entries(def.search).map(([name, param]) => ({
              name,
              type: param.type,
              documentation: param.documentation,
            })),
            { name: "_count", type: "number" as const, documentation: "Page size, 0–500 (default 50)" },
            { name: "_offset", type: "number" as const, documentation: "Paging position (from Bundle.link next)" },
          ],
        })),
      },
    ],
  };
}

/** FHIR issue type of an HTTP status. */
function issueCodeOf(status: number): OperationOutcome["issue"][number]["code"] {
  if (status === 400) return "invalid";
  if (status === 401) return "login";
  if (status === 403) return "forbidden";
  if (status === 404) return "not-found";
  if (status === 409 || status === 412) return "conflict";
  if (status === 422) return "business-rule";
  if (status === 429) return "throttled";
  return status >= 500 ? "exception" : "processing";
}

/** An OperationOutcome carrying our §2 code in issue[].details.text. */
export function operationOutcome(status: number, code: string, diagnostics: string): OperationOutcome {
  return {
    resourceType: "OperationOutcome",
    issue: [
      { severity: status >= 500 ? "fatal" : "error", code: issueCodeOf(status), details: { text: code }, diagnostics },
    ],
  };
}

function paramsOf(request: FastifyRequest): Params {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const params: Params = {};
  for (const [name, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    params[name] = values.filter((v): v is string => typeof v === "string");
  }
  return params;
}

function countOf(params: Params, name: string, fallback: number, max: number): number {
  const value = single(params, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) throw invalid(name, `must be a whole number 0–${max}`);
  return Number(value);
}

function send(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).type(fhirContentType).send(body);
}

/** Registers /fhir/R4 (under the prefix the caller gives) with its own error and 404 answers. */
export function fhirRoutes(app: FastifyInstance, options: FhirOptions): Promise<void> {
  const now = options.now ?? (() => new Date());
  const baseOf = (request: FastifyRequest) => `${request.protocol}://${request.host}/fhir/R4`;

  app.setErrorHandler(async (error: unknown, request, reply) => {
    const status =
      typeof error === "object" && error !== null && "statusCode" in error && typeof error.statusCode === "number"
        ? error.statusCode
        : undefined;
    const fastifyCode = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    if (status === 429) return send(reply, 429, operationOutcome(429, "RATE_LIMITED", "rate limit exceeded"));
    if (status !== undefined && status >= 400 && status < 500 && fastifyCode.startsWith("FST_")) {
      const message = error instanceof Error ? error.message : "bad request";
      return send(reply, status, operationOutcome(status, "VALIDATION_FAILED", message));
    }
    const domain = error instanceof DomainError ? error : toDomainError(error);
    const httpStatus = getHTTPStatusCodeFromError(domain);
    if (httpStatus >= 500) request.log.error({ err: error, code: domain.domainCode }, "fhir request failed");
    const diagnostics =
      httpStatus >= 500 && domain.domainCode === "INTERNAL"
        ? `internal error; request id ${request.id}`
        : [domain.message, ...(domain.errors ?? []).map((e) => `${e.path}: ${e.message}`)].join("; ");
    return send(reply, httpStatus, operationOutcome(httpStatus, domain.domainCode, diagnostics));
  });

  app.setNotFoundHandler((request, reply) =>
    send(
      reply,
      404,
      operationOutcome(404, "NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0] ?? ""}`),
    ),
  );

  app.get("/metadata", (request, reply) => send(reply, 200, capabilityStatement(baseOf(request), now())));

  for (const [type, def] of Object.entries(resources)) {
    app.get(`/${type}/:id`, async (request, reply) => {
      const { id } = request.params as { id: string };
      const caller = createCaller(await options.createContext(request));
      const resource = await def.read(caller, id, now());
      const version = resource.meta?.versionId;
      if (version) void reply.header("etag", `W/"${version}"`);
      if (resource.meta?.lastUpdated)
        void reply.header("last-modified", new Date(resource.meta.lastUpdated).toUTCString());
      return send(reply, 200, resource);
    });

    app.get(`/${type}`, async (request, reply) => {
      const params = paramsOf(request);
      const allowed = new Set([...Object.keys(def.search), ...commonParams]);
      const unknown = Object.keys(params).filter((name) => !allowed.has(name));
      if (unknown.length > 0) {
        throw invalid(unknown.join(", "), `unknown search parameter of ${type}; see /fhir/R4/metadata`);
      }
      const format = single(params, "_format");
      if (format !== undefined && !["json", "application/fhir+json", "application/json"].includes(format)) {
        throw invalid("_format", "only JSON is served");
      }
      const count = countOf(params, "_count", 50, 500);
      const offset = countOf(params, "_offset", 0, Number.MAX_SAFE_INTEGER);
      const caller = createCaller(await options.createContext(request));
      const all = await def.searchAll({ caller, params, now: now() });
      const page = all.slice(offset, offset + count);
      const base = baseOf(request);
      const linkFor = (at: number) => {
        const query = new URLSearchParams();
        for (const [name, values] of Object.entries(params)) {
          if (name === "_offset") continue;
          for (const value of values) query.append(name, value);
        }
        query.set("_offset", String(at));
        return `${base}/${type}?${query.toString()}`;
      };
      const bundle: Bundle = {
        resourceType: "Bundle",
        type: "searchset",
        total: all.length,
        link: [
          { relation: "self", url: linkFor(offset) },
          ...(count > 0 && offset + count < all.length ? [{ relation: "next", url: linkFor(offset + count) }] : []),
        ],
        entry: page.map((resource) => ({
          fullUrl: `${base}/${type}/${resource.id ?? ""}`,
          resource,
          search: { mode: "match" as const },
        })),
      };
      return send(reply, 200, bundle);
    });
  }
  return Promise.resolve();
}
