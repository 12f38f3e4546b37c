import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { auditEntryOutput, auditResourceTypes, listAuditEntries } from "../modules/audit/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

export const auditRouter = {
  list: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/audit_log",
        summary: "The clinic's audit trail, newest first; filter by resource_type and resource_id",
        tags: ["audit"],
      },
    })
    .input(
      z.object({
        clinic_id: uuid,
        resource_type: z.enum(auditResourceTypes).optional(),
        resource_id: uuid.optional(),
        ...pageInput,
      }),
    )
    .output(z.object({ entries: z.array(auditEntryOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) =>
      listAuditEntries(ctx.db, {
        clinicId: ctx.clinic.id,
        resourceType: input.resource_type,
        resourceId: input.resource_id,
        limit: input.limit,
        cursor: input.cursor,
      }),
    ),
} satisfies TRPCRouterRecord;
