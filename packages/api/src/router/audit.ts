import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { auditActions } from "@clinic/db";
import { listAuditEntries } from "../services/auditLog.ts";
import { instantOutput, nextCursorOutput, pageInput, uuid } from "../schemas/common.ts";
import { clinicProcedure } from "../trpc.ts";

export const auditEntryOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  action: z.enum(auditActions),
  resource_type: z.string(),
  resource_id: z.string(),
  user_email: z.string(),
  details: z.record(z.string(), z.unknown()),
  created_at: instantOutput,
});
export type AuditEntryOutput = z.infer<typeof auditEntryOutput>;

/** Resource types that have an audit trail (services only, CONTRACT §4). */
const resourceTypes = ["service"] as const;

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
        resource_type: z.enum(resourceTypes).optional(),
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
