import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { type Db, auditActions, auditLog } from "@clinic/db";
import { keyset } from "../../pagination.ts";
import { instantOutput } from "../../schemas/wire.ts";

/** An audit entry as the API shows it. */
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
export type AuditEntryView = z.infer<typeof auditEntryOutput>;

/** Resource types that have an audit trail: services (docs/providers-services.md#audit-trail), erased patients and retention runs of the clinic (docs/patient-data.md). */
export const auditResourceTypes = ["service", "patient", "clinic"] as const;

/** Filters and page of the audit log of one clinic. */
export interface AuditQuery {
  clinicId: string;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

type AuditRow = typeof auditLog.$inferSelect;

const auditPages = keyset<AuditRow>(
  "desc",
  { column: auditLog.createdAt, kind: "instant", of: (r) => r.createdAt },
  { column: auditLog.id, kind: "uuid", of: (r) => r.id },
);

const toAuditEntry = (r: AuditRow): AuditEntryView => ({
  id: r.id,
  clinic_id: r.clinicId,
  action: r.action,
  resource_type: r.resourceType,
  resource_id: r.resourceId,
  user_email: r.userEmail,
  details: r.details,
  created_at: r.createdAt,
});

/** The clinic's audit entries, newest first (created_at desc, id desc), keyset-paginated. */
export async function listAuditEntries(
  db: Db,
  query: AuditQuery,
): Promise<{ entries: AuditEntryView[]; next_cursor: string | null }> {
  const rows = await db
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.clinicId, query.clinicId),
        query.resourceType !== undefined ? eq(auditLog.resourceType, query.resourceType) : undefined,
        query.resourceId !== undefined ? eq(auditLog.resourceId, query.resourceId) : undefined,
        auditPages.after(query.cursor),
      ),
    )
    .orderBy(...auditPages.orderBy)
    .limit(query.limit + 1);
  const { items, next_cursor } = auditPages.page(rows, query.limit);
  return { entries: items.map(toAuditEntry), next_cursor };
}
