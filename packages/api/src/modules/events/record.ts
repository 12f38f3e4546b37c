import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { type AuditAction, type Db, auditLog, eventCounters, events, rowsOf } from "@clinic/db";
import type { EventType } from "./types.ts";

/** One change of a clinic: the event it records, and for service changes the audit entry too. */
export interface Change {
  type: EventType;
  /** The resource after the change (plus what the type adds, e.g. previous_start). */
  data: Record<string, unknown>;
  audit?: { action: AuditAction; resourceId: string; userEmail: string; details: Record<string, unknown> };
}

/** A recorded event. */
export interface RecordedEvent {
  id: string;
  seq: number;
  type: EventType;
  data: Record<string, unknown>;
}

/**
 * Work that belongs to the transaction of newly recorded events: the webhooks module plans its
 * deliveries here, so a delivery exists exactly when its event does. Modules that react to events
 * depend on this one, never the reverse: they register when they are loaded.
 */
export type RecordedEventsHandler = (
  tx: Db,
  clinicId: string,
  recorded: readonly RecordedEvent[],
  occurredAt: Date,
) => Promise<void>;

const recordedEventsHandlers: RecordedEventsHandler[] = [];

/** Runs `handler` in the transaction of every later `recordChanges` (once, however often registered). */
export function onEventsRecorded(handler: RecordedEventsHandler): void {
  if (!recordedEventsHandlers.includes(handler)) recordedEventsHandlers.push(handler);
}

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

/**
 * The one place every writer records its changes: the events (and, for service changes, the
 * audit entries), in the transaction of the change itself, so they exist exactly when the change
 * does. Events of a clinic are numbered in commit order: the clinic's counter row is locked until
 * the transaction ends (docs/events.md#a-gap-free-feed). Call it last in the transaction: the
 * lock then serialises only the commit of the clinic's writers.
 */
export async function recordChanges(tx: Db, clinicId: string, changes: readonly Change[]): Promise<RecordedEvent[]> {
  if (changes.length === 0) return [];
  const audits = changes.flatMap((c) =>
    c.audit
      ? [
          {
            id: monotonicUuidV7(),
            clinicId,
            action: c.audit.action,
            resourceType: "service",
            resourceId: c.audit.resourceId,
            userEmail: c.audit.userEmail,
            details: c.audit.details,
          },
        ]
      : [],
  );
  if (audits.length > 0) await tx.insert(auditLog).values(audits);
  const [counter] = rowsOf<{ last_seq: number | string }>(
    await tx.execute(sql`
      insert into ${eventCounters} (clinic_id, last_seq) values (${clinicId}, ${changes.length})
      on conflict (clinic_id) do update set last_seq = ${eventCounters}.last_seq + ${changes.length}
      returning last_seq`),
  );
  const last = Number(counter?.last_seq ?? changes.length);
  const rows = await tx
    .insert(events)
    .values(changes.map((c, i) => ({ clinicId, seq: last - changes.length + 1 + i, type: c.type, data: c.data })))
    .returning({ id: events.id, seq: events.seq, occurredAt: events.occurredAt });
  const recorded = rows.map((row, i) => ({
    id: row.id,
    seq: row.seq,
    type: changes[i]?.type ?? "service.updated",
    data: changes[i]?.data ?? {},
  }));
  const occurredAt = rows[0]?.occurredAt ?? new Date();
  for (const handler of recordedEventsHandlers) await handler(tx, clinicId, recorded, occurredAt);
  return recorded;
}
