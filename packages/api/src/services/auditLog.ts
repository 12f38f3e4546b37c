import { randomBytes } from "node:crypto";
import { and, desc, eq, lt, or } from "drizzle-orm";
import { type AuditAction, type Db, auditLog } from "@clinic/db";
import { decodeCursor, pageOf } from "../schemas/common.ts";
import { validationFailed } from "../errors.ts";

/** An audit entry as the API shows it. */
export interface AuditEntryView {
  id: string;
  clinic_id: string;
  action: AuditAction;
  resource_type: string;
  resource_id: string;
  user_email: string;
  details: Record<string, unknown>;
  created_at: Date;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let lastMs = 0;
let sequence = 0;

/**
 * A UUIDv7 (RFC 9562) whose 12-bit `rand_a` field is a per-process counter. Entries are listed
 * by (created_at desc, id desc), and created_at is the transaction start at millisecond
 * precision: two changes made one after the other within the same millisecond would tie on
 * created_at, and a random id would then order them by chance. A time-ordered, monotonic id
 * keeps "newest first" true for sequential writers.
 */
function monotonicUuidV7(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMs += 1;
      sequence = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    sequence = 0;
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes.writeUInt16BE(0x7000 | sequence, 6);
  const variant = bytes.readUInt8(8);
  bytes.writeUInt8((variant & 0x3f) | 0x80, 8);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** One change of a service, as written to the trail. */
export interface ServiceAuditRecord {
  clinicId: string;
  action: AuditAction;
  serviceId: string;
  userEmail: string;
  details: Record<string, unknown>;
}

/**
 * Appends service audit entries. Call it with the transaction of the change itself, so the entry
 * exists exactly when the change does.
 */
export async function recordServiceAudit(db: Db, records: readonly ServiceAuditRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db.insert(auditLog).values(
    records.map((r) => ({
      id: monotonicUuidV7(),
      clinicId: r.clinicId,
      action: r.action,
      resourceType: "service",
      resourceId: r.serviceId,
      userEmail: r.userEmail,
      details: r.details,
    })),
  );
}

/** Filters and page of the audit log of one clinic. */
export interface AuditQuery {
  clinicId: string;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The clinic's audit entries, newest first (created_at desc, id desc), keyset-paginated. */
export async function listAuditEntries(db: Db, query: AuditQuery): Promise<{ entries: AuditEntryView[]; next_cursor: string | null }> {
  const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
  let afterCondition;
  if (after) {
    const [createdAtText = "", id = ""] = after;
    const createdAt = new Date(createdAtText);
    // A tampered cursor must be a 400, not a database cast error.
    if (Number.isNaN(createdAt.getTime()) || !uuidPattern.test(id)) throw validationFailed("cursor", "not a cursor returned by this list");
    afterCondition = or(lt(auditLog.createdAt, createdAt), and(eq(auditLog.createdAt, createdAt), lt(auditLog.id, id)));
  }
  const rows = await db
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.clinicId, query.clinicId),
        query.resourceType !== undefined ? eq(auditLog.resourceType, query.resourceType) : undefined,
        query.resourceId !== undefined ? eq(auditLog.resourceId, query.resourceId) : undefined,
        afterCondition,
      ),
    )
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(query.limit + 1);
  const page = pageOf(rows, query.limit, (r) => [r.createdAt.toISOString(), r.id]);
  return {
    entries: page.items.map((r) => ({
      id: r.id,
      clinic_id: r.clinicId,
      action: r.action,
      resource_type: r.resourceType,
      resource_id: r.resourceId,
      user_email: r.userEmail,
      details: r.details,
      created_at: r.createdAt,
    })),
    next_cursor: page.next_cursor,
  };
}
