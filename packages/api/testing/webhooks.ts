import { sql } from "drizzle-orm";
import { type Db, type DeliveryStatus, events, rowsOf, webhookDeliveries, webhookSent, webhooks } from "@clinic/db";
import { webhookFeedEnd } from "../src/modules/webhooks/index.ts";

/** A webhook of the clinic, inserted directly (no URL check, no delivery); returns its id. */
export async function addWebhook(
  db: Db,
  clinicId: string,
  options: { url?: string; eventTypes?: string[]; description?: string | null } = {},
): Promise<string> {
  const [row] = await db
    .insert(webhooks)
    .values({
      clinicId,
      url: options.url ?? "https://hooks.example.com/clinic",
      eventTypes: options.eventTypes ?? ["*"],
      description: options.description ?? null,
      secret: `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`,
      // As H1: from the clinic's feed's end on.
      feedSeq: await webhookFeedEnd(db, clinicId),
    })
    .returning({ id: webhooks.id });
  if (!row) throw new Error("no webhook");
  return row.id;
}

/**
 * Every delivery of a clinic's webhooks as H5 counts them (docs/events.md#delivery-history): the
 * rows of `webhook_deliveries` and the events of `webhook_sent`'s batches (first attempts that
 * succeeded), as their event ids and statuses.
 */
export async function clinicDeliveries(
  db: Db,
  clinicId: string,
  options: { status?: DeliveryStatus } = {},
): Promise<{ eventId: string; status: DeliveryStatus }[]> {
  const rows = rowsOf<{ event_id: string; status: DeliveryStatus }>(
    await db.execute(sql`
      select d.event_id, d.status from ${webhookDeliveries} d where d.clinic_id = ${clinicId}::uuid
      union all
      select e.id as event_id, 'succeeded' as status
      from ${webhookSent} b cross join lateral unnest(b.seqs) as s(seq)
      join ${events} e on e.clinic_id = b.clinic_id and e.seq = s.seq
      where b.clinic_id = ${clinicId}::uuid`),
  );
  return rows
    .map((r) => ({ eventId: r.event_id, status: r.status }))
    .filter((r) => options.status === undefined || r.status === options.status);
}
