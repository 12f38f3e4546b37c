import { type SQL, type SQLWrapper, eq, sql } from "drizzle-orm";
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

/** Current availability versions of every scope of the clinic (one indexed query). */
export async function readVersions(db: Db, clinicId: string): Promise<Map<string, number>> {
  let query = versionQueries.get(db);
  if (!query) {
    query = buildVersionQuery(db);
    versionQueries.set(db, query);
  }
  const rows = await query.execute({ clinicId });
  return new Map(rows.map((r) => [r.scopeId, r.version]));
}

/** Runs before every availability answer, cached or not: prepared once per database handle. */
function buildVersionQuery(db: Db) {
  return db
    .select({ scopeId: availabilityVersions.scopeId, version: availabilityVersions.version })
    .from(availabilityVersions)
    .where(eq(availabilityVersions.clinicId, sql.placeholder("clinicId")))
    .prepare("availability_versions");
}
const versionQueries = new WeakMap<Db, ReturnType<typeof buildVersionQuery>>();

/**
 * The version key an answer depends on: the clinic scope and the service's assigned provider, or
 * for an unassigned service every scope of the clinic (a newly approved provider joins the union).
 */
export function versionKeyOf(versions: Map<string, number>, clinicId: string, assignedProviderId: string | null): string {
  if (assignedProviderId) return `${versions.get(clinicId) ?? 0}:${versions.get(assignedProviderId) ?? 0}`;
  return [...versions].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(",");
}

/**
 * A scalar subquery of every availability version of a clinic as `scope=version,…` text, for
 * statements that read the versions together with something else in one round trip (the
 * authorization of a clinic-scoped request); `parseVersions` reads its value. `clinicId` is a
 * placeholder or a column: the subquery is filtered by the clinic itself, so that a distributed
 * database runs it on the clinic's node (docs/scale-out.md).
 */
export function versionsOfClinicSql(clinicId: SQLWrapper): SQL<string> {
  return sql<string>`(select coalesce(string_agg(v.scope_id::text || '=' || v.version::text, ','), '') from ${availabilityVersions} v where v.clinic_id = ${clinicId})`;
}

/** The value of `versionsOfClinicSql` as a map. */
export function parseVersions(text: string): Map<string, number> {
  const versions = new Map<string, number>();
  if (!text) return versions;
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    versions.set(pair.slice(0, at), Number(pair.slice(at + 1)));
  }
  return versions;
}
