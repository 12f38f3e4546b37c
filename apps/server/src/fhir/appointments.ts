// Appointment reads and searches (docs/fhir.md#which-clinic). What a caller may see of the
// appointments: in a clinic where they are STAFF (or a global ADMIN), all of its appointments
// (appointments.list / get); everywhere else, their own as a patient (me.appointments / me.appointment).
import type { Appointment } from "fhir/r4.js";
import { isUuid, pairId, parsePairId, parseSlotId, referenceId } from "./ids.ts";
import { invalid } from "./input.ts";
import {
  type AppointmentView,
  type OurStatus,
  appointmentIdentifierSystem,
  ourStatusOf,
  toAppointment,
  toProposedAppointment,
} from "./mapping.ts";
import { type Params, clinicIdsOf, clinicsOfOrgRefs, instantBounds, pairsOf, valuesOf } from "./params.ts";
import { type Caller, everyPage, hasCode, inOrder, namedBy, narrowedClinics, visibleClinics } from "./scope.ts";
import { notFound, readSlot } from "./slots.ts";

/**
 * One appointment as its clinic's staff read it (appointments.get), or else as its patient does
 * (their own, me.appointment); when it is neither, the staff read's answer (403 outside one's
 * clinics, 404 for none).
 */
export async function appointmentView(
  caller: Caller,
  pair: { clinicId: string; localId: string },
): Promise<AppointmentView> {
  try {
    return await caller.appointments.get({ clinic_id: pair.clinicId, id: pair.localId });
  } catch (error) {
    if (!hasCode(error, "FORBIDDEN")) throw error;
    const mine = await ownAppointment(caller, pair.localId);
    if (mine?.clinic_id === pair.clinicId) return mine;
    throw error;
  }
}

/** The caller's own appointment (as its patient) with this /v1 id, if there is one. */
async function ownAppointment(caller: Caller, id: string): Promise<AppointmentView | undefined> {
  try {
    return await caller.me.appointment({ id });
  } catch (error) {
    if (hasCode(error, "NOT_FOUND")) return undefined;
    throw error;
  }
}

/**
 * An Appointment by id: a stored one (its id names clinic and appointment), or a proposed one
 * (its id is its free Slot's, as $find gives it) while that Slot is free.
 */
export async function readAppointment(caller: Caller, id: string, now: Date): Promise<Appointment> {
  const pair = parsePairId(id);
  if (pair) return toAppointment(await appointmentView(caller, pair));
  if (!parseSlotId(id)) throw notFound("Appointment", id);
  const { clinic, slot } = await readSlot(caller, id, now).catch((error: unknown) => {
    throw hasCode(error, "NOT_FOUND") ? notFound("Appointment", id) : error;
  });
  return toProposedAppointment(clinic, slot, now);
}

/** The /v1 ids an `identifier` parameter asks for; another system's identifier names none of ours. */
function identifiersOf(params: Params): string[] {
  return valuesOf(params, "identifier").flatMap((token) => {
    const bar = token.indexOf("|");
    const system = bar < 0 ? undefined : token.slice(0, bar);
    const value = bar < 0 ? token : token.slice(bar + 1);
    if (system !== undefined && system !== "" && system !== appointmentIdentifierSystem) return [];
    if (isUuid(value)) return [value];
    if (system === appointmentIdentifierSystem) throw invalid("identifier", "the value must be an appointment id");
    return [];
  });
}

/** What an Appointment search asks, read and checked before anything is looked up. */
function appointmentQuery(params: Params) {
  const practitioners = pairsOf(params, "practitioner", ["Practitioner", "PractitionerRole"]);
  const narrowed = narrowedClinics(
    namedBy(params, "clinic", () => clinicIdsOf(params)),
    namedBy(params, "location", () => clinicsOfOrgRefs(params, "location", ["Location"])),
    namedBy(params, "practitioner", () => practitioners.map((p) => p.clinicId)),
  );
  const patients = valuesOf(params, "patient").map((value) => {
    const id = referenceId(value, ["Patient"], "patient");
    if (!isUuid(id)) throw invalid("patient", "not a patient id of this server");
    return id;
  });
  const statuses = valuesOf(params, "status").map((status) => {
    const ours = ourStatusOf(status);
    if (!ours) throw invalid("status", `unknown status ${status.slice(0, 40)}`);
    return ours;
  });
  const identifiers = params.identifier === undefined ? undefined : identifiersOf(params);
  const bounds = instantBounds(params, "date");
  /** The search's filters, for what a read by id found (a list applies them in the database). */
  const wanted = (a: AppointmentView) =>
    (narrowed === undefined || narrowed.includes(a.clinic_id)) &&
    (practitioners.length === 0 ||
      practitioners.some((p) => p.clinicId === a.clinic_id && p.localId === a.provider_id)) &&
    (patients.length === 0 || (a.patient_user_id !== null && patients.includes(a.patient_user_id))) &&
    (identifiers === undefined || identifiers.includes(a.id)) &&
    (statuses.length === 0 ? a.status !== "held" : statuses.includes(a.status)) &&
    (bounds.from === undefined || a.start >= bounds.from) &&
    (bounds.to === undefined || a.start < bounds.to);
  return { practitioners, narrowed, statuses, identifiers, bounds, wanted };
}

type AppointmentQuery = ReturnType<typeof appointmentQuery>;

const statusText = (statuses: readonly OurStatus[]) => (statuses.length > 0 ? { status: statuses.join(",") } : {});

/** A clinic's appointments the search asks for, as its staff see them (403 when the caller is not). */
async function clinicAppointments(caller: Caller, clinicId: string, query: AppointmentQuery) {
  if (query.identifiers !== undefined) {
    const found = await inOrder(query.identifiers, async (id) => {
      try {
        return [await caller.appointments.get({ clinic_id: clinicId, id })];
      } catch (error) {
        if (hasCode(error, "NOT_FOUND")) return [];
        throw error;
      }
    });
    return found.flat();
  }
  const providers = query.practitioners.filter((p) => p.clinicId === clinicId).map((p) => p.localId);
  const [providerId] = providers;
  return everyPage(async (cursor) => {
    const answer = await caller.appointments.list({
      clinic_id: clinicId,
      ...(query.bounds.from ? { from: query.bounds.from.toISOString() } : {}),
      ...(query.bounds.to ? { to: query.bounds.to.toISOString() } : {}),
      ...(providers.length === 1 && providerId !== undefined ? { provider_id: providerId } : {}),
      ...statusText(query.statuses),
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    return { items: answer.appointments, next_cursor: answer.next_cursor };
  });
}

/** The caller's own appointments as a patient, in every clinic (U1/U2: by patient, not by clinic). */
async function ownAppointments(
  caller: Caller,
  query: AppointmentQuery,
  foundAlready: ReadonlySet<string>,
): Promise<AppointmentView[]> {
  if (query.identifiers !== undefined) {
    // An id a clinic's staff view found already needs no look across clinics.
    const rest = query.identifiers.filter((id) => !foundAlready.has(id));
    const found = await inOrder(rest, (id) => ownAppointment(caller, id));
    return found.filter((a): a is AppointmentView => a !== undefined);
  }
  // A patient's list never shows holds (§13): a search for them alone asks for nothing.
  const statuses = query.statuses.filter((s) => s !== "held");
  if (query.statuses.length > 0 && statuses.length === 0) return [];
  return everyPage(async (cursor) => {
    const answer = await caller.me.appointments({
      ...(query.bounds.from ? { from: query.bounds.from.toISOString() } : {}),
      ...(query.bounds.to ? { to: query.bounds.to.toISOString() } : {}),
      ...statusText(statuses),
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    return { items: answer.appointments, next_cursor: answer.next_cursor };
  });
}

/**
 * An Appointment search: in each clinic of the search where the caller is STAFF, that clinic's
 * appointments (one clinic at a time, filtered by it); in the others, and without a clinic in
 * every clinic the caller is not STAFF of, the caller's own appointments as a patient. A clinic a
 * parameter names where the caller is not STAFF is therefore not refused: it narrows their own
 * appointments to it. By start, then id.
 */
export async function searchAppointments(caller: Caller, params: Params): Promise<Appointment[]> {
  const query = appointmentQuery(params);
  const clinicIds = query.narrowed ?? (await visibleClinics(caller)).map((c) => c.id);
  const perClinic = await inOrder(clinicIds, async (clinicId) => {
    try {
      return { clinicId, found: await clinicAppointments(caller, clinicId, query) };
    } catch (error) {
      // Not STAFF there (or, among the caller's own clinics, gone since they were listed).
      if (hasCode(error, "FORBIDDEN") || (query.narrowed === undefined && hasCode(error, "NOT_FOUND"))) {
        return { clinicId, found: undefined };
      }
      throw error;
    }
  });
  const covered = new Set(perClinic.filter((c) => c.found !== undefined).map((c) => c.clinicId));
  const staffFound = perClinic.flatMap((c) => c.found ?? []);
  const someUncovered = query.narrowed === undefined || query.narrowed.some((id) => !covered.has(id));
  const staffIds = new Set(staffFound.map((a) => a.id));
  const own = someUncovered
    ? (await ownAppointments(caller, query, staffIds)).filter((a) => !covered.has(a.clinic_id))
    : [];
  const unique = new Map<string, AppointmentView>();
  for (const a of [...staffFound, ...own]) if (query.wanted(a)) unique.set(idOf(a), a);
  return [...unique.values()]
    .sort((a, b) => a.start.getTime() - b.start.getTime() || compareText(idOf(a), idOf(b)))
    .map(toAppointment);
}

const idOf = (a: AppointmentView) => pairId(a.clinic_id, a.id);
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
