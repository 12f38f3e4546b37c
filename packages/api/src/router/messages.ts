import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { messageStatuses } from "@clinic/db";
import { listMessages, messageOutput } from "../modules/messages/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

/** N1: what the service e-mailed the clinic's patients, and how each attempt went (§15). */
export const messagesRouter = {
  list: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/messages",
        summary: "The e-mails sent to the clinic's patients, newest first; filter by appointment_id and status",
        tags: ["messages"],
      },
    })
    .input(
      z.object({
        clinic_id: uuid,
        appointment_id: uuid.optional(),
        status: z.enum(messageStatuses).optional(),
        ...pageInput,
      }),
    )
    .output(z.object({ messages: z.array(messageOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) =>
      listMessages(ctx.db, {
        clinicId: ctx.clinic.id,
        appointmentId: input.appointment_id,
        status: input.status,
        limit: input.limit,
        cursor: input.cursor,
      }),
    ),
} satisfies TRPCRouterRecord;
