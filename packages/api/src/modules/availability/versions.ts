import { sql } from "drizzle-orm";
import { type Db, availabilityVersions } from "@clinic/db";

/**
 * Marks availability as changed. Every writer that changes what availability would return calls
 * this inside its own transaction: the clinic scope (its id) for clinic hours, closures, time
 * zone and services; a provider scope (the provider's user id) for that provider's hours,
 * closures, status and bookings. Readers compare versions, so a cached answer is never served
 * after the writing transaction has committed, on any process sharing the database.
 */
export async function invalidateAvailability(db: Db, clinicId: string, scopeIds: readonly string[]): Promise<void> {
  const unique = [...new Set(scopeIds)].sort();
  if (unique.length === 0) return;
  await db
    .insert(availabilityVersions)
    .values(unique.map((scopeId) => ({ clinicId, scopeId, version: 1 })))
    .onConflictDoUpdate({
      target: [availabilityVersions.clinicId, availabilityVersions.scopeId],
      set: { version: sql`${availabilityVersions.version} + 1` },
    });
}
