// The resources the facade serves (docs/fhir.md#mapping): for each type its read, its search and
// its search parameters, all through the procedures of a caller on the request's context. Which
// clinics a search answers from is scope.ts's (docs/fhir.md#which-clinic).
import type { FhirResource } from "fhir/r4.js";
import { readAppointment, searchAppointments } from "./appointments.ts";
import { isUuid, parsePairId, referenceId } from "./ids.ts";
import { invalid } from "./input.ts";
import {
  type ClinicView,
  type ProviderView,
  type ServiceView,
  serviceSystem,
  toHealthcareService,
  toLocation,
  toOrganization,
  toPractitioner,
  toPractitionerRole,
  toSchedule,
} from "./mapping.ts";
import {
  type Params,
  booleanOf,
  clinicIdsOf,
  clinicsOfOrgRefs,
  instantBounds,
  pairsOf,
  serviceIdsOf,
  single,
  valuesOf,
} from "./params.ts";
import {
  type Caller,
  acrossClinics,
  clinicViewOf,
  everyPage,
  hasCode,
  inOrder,
  namedBy,
  narrowedClinics,
  visibleClinics,
} from "./scope.ts";
import { readQuestionnaire, readQuestionnaireResponse, searchQuestionnaires } from "./questionnaires.ts";
import { allServices, notFound, readSlot, slotsOf } from "./slots.ts";

interface SearchRequest {
  caller: Caller;
  params: Params;
  now: Date;
  /** The facade's base URL (`{scheme}://{host}/fhir/R4`): canonical URLs are made of it. */
  base: string;
}

/** A search parameter we serve: its FHIR type (for the CapabilityStatement) and what it means. */
interface ParamDef {
  type: "token" | "reference" | "date" | "string" | "number" | "uri";
  documentation: string;
}

interface ResourceDef {
  search: Record<string, ParamDef>;
  read: (caller: Caller, id: string, now: Date, base: string) => Promise<FhirResource>;
  /** Absent for a type that is only read (QuestionnaireResponse): no search route, no search-type. */
  searchAll?: (search: SearchRequest) => Promise<FhirResource[]>;
}

const clinicParam: ParamDef = {
  type: "token",
  documentation:
    "The clinic (Organization id) the search is narrowed to; without it, every clinic the caller may see (docs/fhir.md#which-clinic)",
};
export const commonParams = new Set(["_count", "_offset", "_format"]);

const allProviders = (caller: Caller, clinicId: string): Promise<ProviderView[]> =>
  everyPage(async (cursor) => {
    const answer = await caller.providers.list({ clinic_id: clinicId, limit: 500, ...(cursor ? { cursor } : {}) });
    return { items: answer.providers, next_cursor: answer.next_cursor };
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

/** Organization and Location searches: the caller's clinics, or those `_id`/`clinic` name among them. */
async function clinicsOfSearch(search: SearchRequest): Promise<ClinicView[]> {
  const ids = new Set([...valuesOf(search.params, "_id"), ...valuesOf(search.params, "clinic")]);
  const names = valuesOf(search.params, "name").map((n) => n.toLowerCase());
  const named = async (id: string) => {
    try {
      return [await search.caller.clinics.get({ clinic_id: id })];
    } catch (error) {
      // A clinic that is not the caller's (or none) is simply not among the matches.
      if (hasCode(error, "FORBIDDEN") || hasCode(error, "NOT_FOUND")) return [];
      throw error;
    }
  };
  const clinics =
    ids.size > 0 ? (await inOrder([...ids].filter(isUuid).sort(), named)).flat() : await visibleClinics(search.caller);
  return clinics.filter((c) => names.length === 0 || names.some((n) => c.name.toLowerCase().startsWith(n)));
}

/** The clinic-naming references of a Schedule's `actor`: a Location names a clinic, a role or practitioner one provider in it. */
function actorsOf(params: Params) {
  return valuesOf(params, "actor").map((value) => {
    const id = referenceId(value, ["PractitionerRole", "Practitioner", "Location"], "actor");
    if (isUuid(id)) return { clinicId: id, localId: undefined };
    const pair = parsePairId(id);
    if (!pair) throw invalid("actor", `not an id of this server: ${value.slice(0, 100)}`);
    return pair;
  });
}

const byStart = (a: { start: string; id?: string }, b: { start: string; id?: string }) =>
  a.start.localeCompare(b.start) || (a.id ?? "").localeCompare(b.id ?? "");

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
      const narrowed = narrowedClinics(namedBy(params, "clinic", () => clinicIdsOf(params)));
      const name = single(params, "name")?.toLowerCase();
      const active = booleanOf(params, "active");
      return acrossClinics(caller, narrowed, async ({ id }) =>
        (await allProviders(caller, id))
          .filter((p) => name === undefined || p.full_name.toLowerCase().includes(name))
          .filter((p) => active === undefined || (p.status === "approved") === active)
          .map((p) => toPractitioner(id, p)),
      );
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
      const practitioners = pairsOf(params, "practitioner", ["Practitioner", "PractitionerRole"]);
      const narrowed = narrowedClinics(
        namedBy(params, "clinic", () => clinicIdsOf(params)),
        namedBy(params, "organization", () => clinicsOfOrgRefs(params, "organization", ["Organization"])),
        namedBy(params, "practitioner", () => practitioners.map((p) => p.clinicId)),
      );
      const active = booleanOf(params, "active");
      return acrossClinics(caller, narrowed, async (scope) => {
        const [clinic, providers] = await Promise.all([clinicViewOf(caller, scope), allProviders(caller, scope.id)]);
        const wanted = practitioners.filter((r) => r.clinicId === scope.id).map((r) => r.localId);
        return providers
          .filter((p) => practitioners.length === 0 || wanted.includes(p.user_id))
          .filter((p) => active === undefined || (p.status === "approved") === active)
          .map((p) => toPractitionerRole(clinic, p));
      });
    },
  },
  HealthcareService: {
    search: {
      clinic: clinicParam,
      organization: { type: "reference", documentation: "Organization/{clinic id}" },
      active: { type: "token", documentation: "true: active services (default: all)" },
      name: { type: "string", documentation: "Part of the name (case-insensitive)" },
    },
    read: async (caller, id, _now, base) => {
      const pair = pairOrNotFound("HealthcareService", id);
      const [clinic, service] = await Promise.all([
        caller.clinics.get({ clinic_id: pair.clinicId }),
        caller.services.get({ clinic_id: pair.clinicId, id: pair.localId }),
      ]);
      return toHealthcareService(clinic, service, base);
    },
    searchAll: async ({ caller, params, base }) => {
      const narrowed = narrowedClinics(
        namedBy(params, "clinic", () => clinicIdsOf(params)),
        namedBy(params, "organization", () => clinicsOfOrgRefs(params, "organization", ["Organization"])),
      );
      const active = booleanOf(params, "active");
      const name = single(params, "name")?.toLowerCase();
      return acrossClinics(caller, narrowed, async (scope) => {
        const [clinic, services] = await Promise.all([
          clinicViewOf(caller, scope),
          allServices(caller, scope.id, active !== true),
        ]);
        return services
          .filter((s) => active === undefined || s.is_active === active)
          .filter((s) => name === undefined || s.name.toLowerCase().includes(name))
          .map((s) => toHealthcareService(clinic, s, base));
      });
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
      const actors = actorsOf(params);
      const narrowed = narrowedClinics(
        namedBy(params, "clinic", () => clinicIdsOf(params)),
        namedBy(params, "actor", () => actors.map((a) => a.clinicId)),
      );
      const serviceIds = serviceIdsOf(params);
      const active = booleanOf(params, "active");
      return acrossClinics(caller, narrowed, async (scope) => {
        const here = actors.filter((a) => a.clinicId === scope.id);
        // A Location actor names the whole clinic; roles and practitioners one provider each.
        const wanted = here.some((a) => a.localId === undefined) ? [] : here.flatMap((a) => a.localId ?? []);
        const [clinic, providers, services] = await Promise.all([
          clinicViewOf(caller, scope),
          allProviders(caller, scope.id),
          allServices(caller, scope.id, false),
        ]);
        return providers
          .filter((p) => wanted.length === 0 || wanted.includes(p.user_id))
          .filter((p) => active === undefined || (p.status === "approved") === active)
          .map((p) => ({ provider: p, services: servicesOfProvider(services, p.user_id) }))
          .filter((s) => serviceIds.length === 0 || s.services.some((v) => serviceIds.includes(v.id)))
          .map((s) => toSchedule(clinic, s.provider, s.services));
      });
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
    read: async (caller, id, now) => (await readSlot(caller, id, now)).slot,
    searchAll: async ({ caller, params, now }) => {
      const schedules = pairsOf(params, "schedule", ["Schedule"]);
      if (schedules.length > 1) throw invalid("schedule", "one schedule at a time");
      const narrowed = narrowedClinics(
        namedBy(params, "clinic", () => clinicIdsOf(params)),
        namedBy(params, "schedule", () => schedules.map((s) => s.clinicId)),
      );
      const statuses = valuesOf(params, "status");
      const serviceIds = serviceIdsOf(params);
      const bounds = instantBounds(params, "start");
      if (statuses.length > 0 && !statuses.includes("free")) return [];
      const providerId = schedules[0]?.localId;
      const slots = await acrossClinics(caller, narrowed, async (scope) => {
        const [clinic, services] = await Promise.all([
          clinicViewOf(caller, scope),
          allServices(caller, scope.id, false),
        ]);
        const chosen = services
          .filter((s) => serviceIds.length === 0 || serviceIds.includes(s.id))
          .filter((s) => !providerId || s.provider_id === null || s.provider_id === providerId);
        const found = [];
        for (const service of chosen) {
          found.push(
            ...(await slotsOf(caller, clinic, service, { ...bounds, ...(providerId ? { providerId } : {}) }, now)),
          );
        }
        return found;
      });
      return slots.sort(byStart);
    },
  },
  Appointment: {
    search: {
      clinic: clinicParam,
      identifier: {
        type: "token",
        documentation: "urn:clinic-scheduling:appointment|{id}: the appointment's /v1 id",
      },
      date: { type: "date", documentation: "ge/gt and lt/le bounds on the start (instants with an offset)" },
      status: { type: "token", documentation: "FHIR statuses, comma-separated" },
      practitioner: { type: "reference", documentation: "Practitioner/{id} (or PractitionerRole/{id})" },
      patient: { type: "reference", documentation: "Patient/{user id}" },
      location: { type: "reference", documentation: "Location/{clinic id}" },
    },
    read: readAppointment,
    searchAll: ({ caller, params }) => searchAppointments(caller, params),
  },
  Questionnaire: {
    search: {
      clinic: clinicParam,
      url: { type: "uri", documentation: "The Questionnaire's canonical URL ({base}/Questionnaire/{id})" },
    },
    read: (caller, id, _now, base) => readQuestionnaire(caller, id, base),
    searchAll: ({ caller, params, base }) => searchQuestionnaires(caller, params, base),
  },
  QuestionnaireResponse: {
    search: {},
    read: (caller, id, _now, base) => readQuestionnaireResponse(caller, id, base),
  },
};
