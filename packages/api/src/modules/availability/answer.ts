import { z } from "zod";
import type { Db } from "@clinic/db";
import { instantOutput } from "../../schemas/wire.ts";
import type { AvailabilityCache } from "./cache.ts";
import { availabilityWithCache } from "./cached.ts";
import { resolveDateRange } from "./range.ts";

export const slotOutput = z.object({
  start: instantOutput,
  end: instantOutput,
  start_local: z.string(),
  provider_ids: z.array(z.string()),
  /** A group service's slot (§14): seats left over its providers, at least 1. */
  remaining: z.number().int().optional(),
});

/** The answer of staff availability (V1), and the same for patients on the booking page (O3). */
export const availabilityOutput = z.object({
  clinic_id: z.string(),
  service_id: z.string(),
  timezone: z.string(),
  duration_min: z.number().int(),
  from: z.string(),
  to: z.string(),
  slots: z.array(slotOutput),
});
export type AvailabilityView = z.infer<typeof availabilityOutput>;

/** The clinic asked about: its zone, and its availability versions when already read in this request. */
export interface AvailabilityClinic {
  id: string;
  timezone: string;
  versions?: Map<string, number> | undefined;
}

export interface AvailabilityRequest {
  serviceId: string;
  providerId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  now: Date;
  maxSlots: number;
}

/** The bookable slots of a service in a clinic over a date range (default: a week from today), through the cache. */
export async function answerAvailability(
  db: Db,
  cache: AvailabilityCache,
  clinic: AvailabilityClinic,
  request: AvailabilityRequest,
): Promise<AvailabilityView> {
  const { fromDate, toDate } = resolveDateRange(request.from, request.to, clinic.timezone, request.now);
  const { service, slots } = await availabilityWithCache(db, cache, {
    clinicId: clinic.id,
    versions: clinic.versions,
    timeZone: clinic.timezone,
    serviceId: request.serviceId,
    providerId: request.providerId,
    fromDate,
    toDate,
    now: request.now,
    maxSlots: request.maxSlots,
  });
  return {
    clinic_id: clinic.id,
    service_id: service.id,
    timezone: clinic.timezone,
    duration_min: service.durationMin,
    from: fromDate,
    to: toDate,
    slots: slots.map((slot) => ({
      start: new Date(slot.start),
      end: new Date(slot.end),
      start_local: slot.startLocal,
      provider_ids: slot.providerIds,
      ...(slot.remaining === undefined ? {} : { remaining: slot.remaining }),
    })),
  };
}
