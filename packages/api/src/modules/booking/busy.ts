// A shared provider's time in provider_busy (docs/shared-providers.md), for changes written in TypeScript.
import { sql } from "drizzle-orm";
import type { Db } from "@clinic/db";

/**
 * After a change of an appointment's status or time written here (the database functions call
 * clinic_sync_busy themselves): its row in provider_busy is made what the appointment now is, in
 * the caller's transaction. Nothing happens for providers of one clinic but one read.
 */
export async function syncProviderBusy(
  db: Db,
  clinicId: string,
  appointmentId: string,
  providerIds: readonly string[],
  now: Date,
): Promise<void> {
  await db.execute(
    sql`select clinic_sync_busy(${clinicId}::uuid, ${appointmentId}::uuid, ${`{${providerIds.join(",")}}`}::uuid[], ${now.toISOString()}::timestamptz)`,
  );
}
