import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, eventCounters, eventData, events, unindexedEventType } from "@clinic/db";
import { validationFailed } from "../../errors.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { type EventType, eventTypes } from "./types.ts";

/** An event as the feed and the webhooks show it. */
export const eventOutput = z.object({
  id: z.string(),
  type: z.enum(eventTypes),
  clinic_id: z.string(),
  occurred_at: instantOutput,
  data: z.record(z.string(), z.unknown()),
});
export type EventView = z.infer<typeof eventOutput>;

/** An event's row as its readers select it: `data` read through `eventData` (a snapshot rendered). */
export type EventRow = Pick<typeof events.$inferSelect, "id" | "type" | "clinicId" | "occurredAt"> & {
  data: Record<string, unknown>;
};

/** The columns of an `EventRow`, and the seq (docs/events.md#what-an-event-stores). */
export const eventRowColumns = {
  id: events.id,
  type: events.type,
  clinicId: events.clinicId,
  occurredAt: events.occurredAt,
  seq: events.seq,
  data: eventData,
};

export const toEvent = (row: EventRow): EventView => ({
  id: row.id,
  type: row.type as EventType,
  clinic_id: row.clinicId,
  occurred_at: row.occurredAt,
  data: row.data,
});

/** An event to render: one of the feed, or one sent to a webhook only (`webhook.test`). */
export type RenderableEvent = Omit<EventView, "type"> & { type: string };

/**
 * The one rendering of an event as bytes: every webhook delivery's body is this string, and the
 * E1 feed shows each event as exactly these bytes (the REST adapter stringifies `eventOutput`'s
 * keys in this order; events.http.test compares them). The instant is the stored one (millisecond
 * precision), rendered once, here; nothing else renders an event (docs/events.md).
 */
export const eventJson = (event: RenderableEvent): string =>
  JSON.stringify({
    id: event.id,
    type: event.type,
    clinic_id: event.clinic_id,
    occurred_at: event.occurred_at.toISOString(),
    data: event.data,
  });

const cursorPrefix = "e1.";
const encodeCursor = (seq: number) => Buffer.from(`${cursorPrefix}${String(seq)}`).toString("base64url");

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const seq = text.startsWith(cursorPrefix) ? Number(text.slice(cursorPrefix.length)) : Number.NaN;
  if (!Number.isSafeInteger(seq) || seq < 0 || encodeCursor(seq) !== cursor)
    throw validationFailed("after", "not a cursor returned by this feed");
  return seq;
}

export interface FeedQuery {
  clinicId: string;
  /** A next_cursor of an earlier page; absent = from the first event. */
  after?: string | undefined;
  types?: readonly EventType[] | undefined;
  limit: number;
}

/**
 * One page of the clinic's events after the cursor, oldest first (in commit order: see
 * `recordChanges`). Read in one snapshot with the clinic's counter: when the page is not full,
 * `next_cursor` moves past every event committed so far (also those the type filter skipped), and
 * a later page starts exactly after it. `next_cursor` is never null: poll it for new events.
 */
export async function listEvents(db: Db, query: FeedQuery): Promise<{ events: EventView[]; next_cursor: string }> {
  const after = query.after === undefined ? 0 : decodeCursor(query.after);
  return db.transaction(
    async (tx) => {
      const rows = await tx
        .select(eventRowColumns)
        .from(events)
        .where(
          and(
            eq(events.clinicId, query.clinicId),
            gt(events.seq, after),
            query.types && query.types.length > 0 ? inArray(events.type, [...query.types]) : undefined,
            // Without booked events the types' index serves the filter: it holds every other type,
            // and this clause, its predicate, lets a generic plan read it (drizzle/0035).
            query.types && query.types.length > 0 && !query.types.includes(unindexedEventType)
              ? sql`${events.type} <> ${sql.raw(`'${unindexedEventType}'`)}`
              : undefined,
          ),
        )
        .orderBy(asc(events.seq))
        .limit(query.limit + 1);
      const page = rows.slice(0, query.limit);
      let next = page.at(-1)?.seq ?? after;
      if (rows.length <= query.limit) {
        const [counter] = await tx
          .select({ lastSeq: eventCounters.lastSeq })
          .from(eventCounters)
          .where(eq(eventCounters.clinicId, query.clinicId));
        next = Math.max(next, counter?.lastSeq ?? 0);
      }
      return { events: page.map(toEvent), next_cursor: encodeCursor(next) };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
