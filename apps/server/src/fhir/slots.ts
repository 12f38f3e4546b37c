// Free time as Slots (computed from availability.get, never stored) and the services they are of.
import type { Slot } from "fhir/r4.js";
import { DomainError } from "@clinic/api";
import { parseSlotId } from "./ids.ts";
import { type ClinicView, type ServiceView, toSlot } from "./mapping.ts";
import { inServedYears } from "./params.ts";
import { type Caller, everyPage } from "./scope.ts";

export const notFound = (type: string, id: string) =>
  new DomainError("NOT_FOUND", `${type}/${id.length > 100 ? `${id.slice(0, 100)}...` : id} not found`);

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
): Promise<Slot[]> {
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

/** The service a Slot id names by its 96-bit prefix (an ambiguous prefix names none). */
export function serviceOfPrefix(services: readonly ServiceView[], prefix: string): ServiceView | undefined {
  const matching = services.filter((s) => s.id.replaceAll("-", "").startsWith(prefix));
  return matching.length === 1 ? matching[0] : undefined;
}

/** A free Slot by its id, with its clinic; 404 when it is not (or no longer) free time of ours. */
export async function readSlot(caller: Caller, id: string, now: Date): Promise<{ clinic: ClinicView; slot: Slot }> {
  const key = parseSlotId(id);
  if (!key || !inServedYears(key.start)) throw notFound("Slot", id);
  const [clinic, services] = await Promise.all([
    caller.clinics.get({ clinic_id: key.clinicId }),
    allServices(caller, key.clinicId, false),
  ]);
  const service = serviceOfPrefix(services, key.servicePrefix);
  if (!service) throw notFound("Slot", id);
  const slots = await slotsOf(
    caller,
    clinic,
    service,
    { from: key.start, to: new Date(key.start.getTime() + 60_000), providerId: key.providerId },
    now,
  );
  const slot = slots.find((s) => s.id === id);
  if (!slot) throw notFound("Slot", id);
  return { clinic, slot };
}
