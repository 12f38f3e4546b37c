import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { availabilityWithCache } from "../availability/compute.ts";
import { addDays, daysBetween, localDateOf } from "../domain/timezone.ts";
import { DomainError } from "../errors.ts";
import { instantOutput, localDate, uuid } from "../schemas/common.ts";
import { clinicProcedure } from "../trpc.ts";

/** Longest range of one availability query: 62 local dates. */
export const maxRangeDays = 61;

export const slotOutput = z.object({
  start: instantOutput,
  end: instantOutput,
  start_local: z.string(),
  provider_ids: z.array(z.string()),
});

export const availabilityOutput = z.object({
  clinic_id: z.string(),
  service_id: z.string(),
  timezone: z.string(),
  duration_min: z.number().int(),
  from: z.string(),
  to: z.string(),
  slots: z.array(slotOutput),
});

/** The inclusive local date range of a query: default today … today+6 in the clinic's zone. */
export function resolveDateRange(from: string | undefined, to: string | undefined, timeZone: string, now: Date): { fromDate: string; toDate: string } {
  const fromDate = from ?? (to ? addDays(to, -6) : localDateOf(now.getTime(), timeZone));
  const toDate = to ?? addDays(fromDate, 6);
  const span = daysBetween(fromDate, toDate);
  if (span < 0) {
    throw new DomainError("VALIDATION_FAILED", "to: must not be before from", { errors: [{ path: "to", message: "must not be before from" }] });
  }
  if (span > maxRangeDays) {
    throw new DomainError("VALIDATION_FAILED", `to: the range may cover at most ${maxRangeDays + 1} dates`, {
      errors: [{ path: "to", message: `the range may cover at most ${maxRangeDays + 1} dates` }],
    });
  }
  return { fromDate, toDate };
}

export const availabilityRouter = {
  get: clinicProcedure("member")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/availability",
        summary: "Bookable slots of a service (dates in clinic time, inclusive, default a week from today)",
        tags: ["availability"],
        errors: ["NOT_A_PROVIDER", "SERVICE_INACTIVE"],
      },
    })
    .input(
      z.object({
        clinic_id: uuid,
        service_id: uuid,
        from: localDate.optional(),
        to: localDate.optional(),
        provider_id: uuid.optional(),
      }),
    )
    .output(availabilityOutput)
    .query(async ({ ctx, input }) => {
      const now = ctx.now();
      const { fromDate, toDate } = resolveDateRange(input.from, input.to, ctx.clinic.timezone, now);
      const { service, slots } = await availabilityWithCache(ctx.db, ctx.availabilityCache, {
        clinicId: ctx.clinic.id,
        versions: ctx.clinic.versions,
        timeZone: ctx.clinic.timezone,
        serviceId: input.service_id,
        providerId: input.provider_id,
        fromDate,
        toDate,
        now,
      });
      return {
        clinic_id: ctx.clinic.id,
        service_id: service.id,
        timezone: ctx.clinic.timezone,
        duration_min: service.durationMin,
        from: fromDate,
        to: toDate,
        slots: slots.map((slot) => ({
          start: new Date(slot.start),
          end: new Date(slot.end),
          start_local: slot.startLocal,
          provider_ids: slot.providerIds,
        })),
      };
    }),
} satisfies TRPCRouterRecord;
