import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { isStaffOrAbove } from "../modules/access/index.ts";
import { availabilityOutput, explainAvailability, explanationOutput } from "../modules/availability/index.ts";
import { instantInput, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";
import { availabilityFor, availabilityInput } from "./shared/availability.ts";

export const availabilityRouter = {
  get: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/availability",
        summary: "Bookable slots of a service (dates in clinic time, inclusive, default a week from today)",
        tags: ["availability"],
        errors: ["NOT_A_PROVIDER", "SERVICE_INACTIVE"],
        fastAvailability: "member",
      },
    })
    .input(availabilityInput)
    .output(availabilityOutput)
    .query(({ ctx, input }) => availabilityFor(ctx, input)),

  explain: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/availability/explain",
        summary: "Why a start is or is not bookable, per candidate provider, rule by rule",
        tags: ["availability"],
        errors: ["NOT_A_PROVIDER", "SERVICE_INACTIVE"],
      },
    })
    .input(z.object({ clinic_id: uuid, service_id: uuid, start: instantInput, provider_id: uuid.optional() }))
    .output(explanationOutput)
    .query(({ ctx, input }) =>
      explainAvailability(ctx.db, {
        clinicId: ctx.clinic.id,
        timeZone: ctx.clinic.timezone,
        serviceId: input.service_id,
        providerId: input.provider_id,
        start: input.start,
        now: ctx.now(),
        showAppointments: isStaffOrAbove(ctx),
      }),
    ),
} satisfies TRPCRouterRecord;
