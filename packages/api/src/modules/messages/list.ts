// N1: the messages of a clinic (§15).
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { type Db, type MessageStatus, messageKinds, messageStatuses, messages } from "@clinic/db";
import { keyset } from "../../pagination.ts";
import { instantOutput } from "../../schemas/wire.ts";

/** A message as N1 lists it. */
export const messageOutput = z.object({
  id: z.string(),
  appointment_id: z.string(),
  kind: z.enum(messageKinds),
  to: z.string(),
  /** Null until its first attempt renders it. */
  subject: z.string().nullable(),
  status: z.enum(messageStatuses),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  sent_at: instantOutput.nullable(),
  created_at: instantOutput,
});
export type MessageView = z.infer<typeof messageOutput>;

type MessageRow = typeof messages.$inferSelect;

const pages = keyset<MessageRow>(
  "desc",
  { column: messages.createdAt, kind: "instant", of: (r) => r.createdAt },
  { column: messages.id, kind: "uuid", of: (r) => r.id },
);

const toMessage = (r: MessageRow): MessageView => ({
  id: r.id,
  appointment_id: r.appointmentId,
  kind: r.kind,
  to: r.to,
  subject: r.subject,
  status: r.status,
  attempts: r.attempts,
  last_error: r.lastError,
  sent_at: r.sentAt,
  created_at: r.createdAt,
});

/** The clinic's messages, newest first, optionally of one appointment or one status; keyset-paginated. */
export async function listMessages(
  db: Db,
  query: {
    clinicId: string;
    appointmentId?: string | undefined;
    status?: MessageStatus | undefined;
    limit: number;
    cursor?: string | undefined;
  },
): Promise<{ messages: MessageView[]; next_cursor: string | null }> {
  const rows = await db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.clinicId, query.clinicId),
        query.appointmentId !== undefined ? eq(messages.appointmentId, query.appointmentId) : undefined,
        query.status !== undefined ? eq(messages.status, query.status) : undefined,
        pages.after(query.cursor),
      ),
    )
    .orderBy(...pages.orderBy)
    .limit(query.limit + 1);
  const { items, next_cursor } = pages.page(rows, query.limit);
  return { messages: items.map(toMessage), next_cursor };
}
