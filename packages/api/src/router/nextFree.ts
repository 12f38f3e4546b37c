import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import type { Context } from "../context.ts";
import { type AvailabilityClinic, slotOutput } from "../modules/availability/index.ts";
import { nextFreeSlots } from "../modules/waitlist/index.ts";
import { instantInput, uuid } from "../schemas/wire.ts";
import { clinicProcedure, guestBookingProcedure } from "../trpc.ts";

/** The input of both next-free routes. */
const nextInput = z.object({
  clinic_id: uuid,
  service_id: uuid,
  provider_id: uuid.optional(),
  after: instantInput.optional(),
  count: z.coerce.number<number | string>().int().min(1).max(20).default(1),
});

const nextOutput = z.object({ slots: z.array(slotOutput) });

function nextFor(
  ctx: Pick<Context, "db" | "availabilityCache" | "now" | "limits"> & { clinic: AvailabilityClinic },
  input: z.infer<typeof nextInput>,
) {
  return nextFreeSlots(ctx.db, ctx.availabilityCache, ctx.clinic, {
    serviceId: input.service_id,
    providerId: input.provider_id,
    after: input.after,
    count: input.count,
    now: ctx.now(),
    maxSlots: ctx.limits.maxSlotsPerAnswer,
  });
}

/** The next free time of a service: for the clinic's members (as V1) and on the booking page (as O3). */
export const nextFreeRouter = {
  staff: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/availability/next",
        summary:
          "The first free slots of a service after an instant (default now), within its horizon (at most 366 days)",
        tags: ["availability"],
        errors: ["NOT_A_PROVIDER", "SERVICE_INACTIVE"],
        revalidate: true,
      },
    })
    .input(nextInput)
    .output(nextOutput)
    .query(({ ctx, input }) => nextFor(ctx, input)),

  online: guestBookingProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/v1/booking/clinics/:clinic_id/availability/next",
        summary: "The first free slots of a service, as GET /v1/availability/next",
        tags: ["online booking"],
        errors: ["NOT_A_PROVIDER", "SERVICE_INACTIVE"],
        revalidate: true,
      },
    })
    .input(nextInput)
    .output(nextOutput)
    .query(({ ctx, input }) => nextFor(ctx, input)),
} satisfies TRPCRouterRecord;
