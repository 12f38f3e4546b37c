import { type Db, webhooks } from "@clinic/db";
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
