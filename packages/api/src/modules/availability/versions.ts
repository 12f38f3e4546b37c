import { type SQL, type SQLWrapper, and, eq, inArray, sql } from "drizzle-orm";
import { type Db, availabilityVersions } from "@clinic/db";

/**
 * Marks availability as changed. Every writer that changes what availability would return calls
 * this inside its own transaction: the clinic scope (its id) for clinic hours, closures, time
 * zone and services; a provider scope (the provider's user id) for that provider's hours,
 * closures, status and bookings. Readers compare versions, so a cached answer is never served
 * after the writing transaction has committed, on any process sharing the database.
 *
 * A schedule change (everything but bookings: `schedule: true`, the default) also bumps the
 * scopes' schedule versions, which a booking re-checks under a key-share lock before it writes
 * (docs/performance.md#the-booking-path). It locks the rows FOR UPDATE first, so it waits for a
 * booking that checked the old schedule to commit, and a booking that comes later waits for it and
 * then sees the new version.
 */
export async function invalidateAvailability(
  db: Db,
  clinicId: string,
  scopeIds: readonly string[],
  options: { schedule?: boolean } = {},
): Promise<void> {
  const unique = [...new Set(scopeIds)].sort();
  if (unique.length === 0) return;
  const schedule = options.schedule ?? true;
  if (schedule) {
    await db
      .select({ scopeId: availabilityVersions.scopeId })
      .from(availabilityVersions)
      .where(and(eq(availabilityVersions.clinicId, clinicId), inArray(availabilityVersions.scopeId, unique)))
      .orderBy(availabilityVersions.scopeId)
      .for("update");
  }
  // A version never names two states (drizzle/0017_versions_never_repeat.sql): a new row starts at
  // the database clock's milliseconds, a bump goes to the greater of the next number and the clock.
  const clock = sql`clinic_version_clock()`;
  await db
    .insert(availabilityVersions)
    .values(unique.map((scopeId) => ({ clinicId, scopeId, version: clock, scheduleVersion: schedule ? clock : 0 })))
    .onConflictDoUpdate({
      target: [availabilityVersions.clinicId, availabilityVersions.scopeId],
      set: schedule
        ? {
            version: sql`greatest(${availabilityVersions.version} + 1, excluded.version)`,
            scheduleVersion: sql`greatest(${availabilityVersions.scheduleVersion} + 1, excluded.schedule_version)`,
          }
        : { version: sql`greatest(${availabilityVersions.version} + 1, excluded.version)` },
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

/** The version key of an answer that depends on these scopes (a scope without a row is at version 0). */
export function versionKeyOf(versions: ReadonlyMap<string, number>, scopes: readonly string[]): string {
  return [...new Set(scopes)]
    .sort()
    .map((scope) => `${scope}=${String(versions.get(scope) ?? 0)}`)
    .join(",");
}

/**
 * A scalar subquery of every availability version of a clinic as `scope=version,…` text, for
 * statements that read the versions together with something else in one round trip (the
 * authorization of a clinic-scoped request); `parseVersions` reads its value. `clinicId` is a
 * placeholder or a column: the subquery is filtered by the clinic itself, so that a distributed
 * database runs it on the clinic's node (docs/scale-out.md).
 */
export function versionsOfClinicSql(clinicId: SQLWrapper, scopes?: SQLWrapper): SQL<string> {
  // `scopes`: comma-separated scope ids, to read only those.
  const only = scopes ? sql` and v.scope_id = any (string_to_array(${scopes}, ',')::uuid[])` : sql``;
  return sql<string>`(select coalesce(string_agg(v.scope_id::text || '=' || v.version::text, ','), '') from ${availabilityVersions} v where v.clinic_id = ${clinicId}${only})`;
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
