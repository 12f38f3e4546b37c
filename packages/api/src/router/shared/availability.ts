// Router-local: the availability answer of V1 (staff) and O3 (the booking page), which take the same input.
import { z } from "zod";
import type { Context } from "../../context.ts";
import { type AvailabilityClinic, answerAvailability } from "../../modules/availability/index.ts";
import { localDate, uuid } from "../../schemas/wire.ts";

/** The input of both availability routes. */
export const availabilityInput = z.object({
  clinic_id: uuid,
  service_id: uuid,
  from: localDate.optional(),
  to: localDate.optional(),
  provider_id: uuid.optional(),
});

/** The slots of `input` in the authorised clinic, through the process's cache. */
export function availabilityFor(
  ctx: Pick<Context, "db" | "availabilityCache" | "now" | "limits"> & { clinic: AvailabilityClinic },
  input: z.infer<typeof availabilityInput>,
) {
  return answerAvailability(ctx.db, ctx.availabilityCache, ctx.clinic, {
    serviceId: input.service_id,
    providerId: input.provider_id,
    from: input.from,
    to: input.to,
    now: ctx.now(),
    maxSlots: ctx.limits.maxSlotsPerAnswer,
  });
}
