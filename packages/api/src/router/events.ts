import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { eventOutput, eventTypes, listEvents } from "../modules/events/index.ts";
import { queryList, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

export const eventsRouter = {
  list: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/events",
        summary: "The clinic's events, oldest first, gap-free in commit order: page with after = next_cursor",
        tags: ["events"],
      },
    })
    .input(
      z.object({
        clinic_id: uuid,
        after: z.string().max(100).optional(),
        types: queryList(z.enum(eventTypes)).optional(),
        limit: z.coerce.number<number | string>().int().min(1).max(500).default(100),
      }),
    )
    .output(z.object({ events: z.array(eventOutput), next_cursor: z.string() }))
    .query(({ ctx, input }) =>
      listEvents(ctx.db, { clinicId: ctx.clinic.id, after: input.after, types: input.types, limit: input.limit }),
    ),
} satisfies TRPCRouterRecord;
