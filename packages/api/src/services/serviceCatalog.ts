import { type SQL, and, asc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import { type Db, clinicMembers, rowsOf, services } from "@clinic/db";
import { invalidateAvailability } from "../availability/versions.ts";
import { DomainError } from "../errors.ts";
import { decodeCursor, pageOf } from "../schemas/common.ts";
import { recordServiceAudit, type ServiceAuditRecord } from "./auditLog.ts";

/** A service as the API shows it. */
export interface ServiceView {
  id: string;
  clinic_id: string;
  name: string;
  duration_min: number;
  /** Decimal string with exactly two decimals, or null. */
  price: string | null;
  /** User id of the assigned provider, or null (any provider). */
  provider_id: string | null;
  /** The provider's per-clinic full name. */
  provider_name: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

/** Service columns plus the assigned provider's per-clinic name (left join on the membership). */
const serviceColumns = {
  id: services.id,
  clinicId: services.clinicId,
  name: services.name,
  durationMin: services.durationMin,
  price: services.price,
  providerId: services.providerId,
  providerName: clinicMembers.fullName,
  isActive: services.isActive,
  createdAt: services.createdAt,
  updatedAt: services.updatedAt,
};

interface ServiceRow {
  id: string;
  clinicId: string;
  name: string;
  durationMin: number;
  price: string | null;
  providerId: string | null;
  providerName: string | null;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Formats a joined service row for the API. */
export const toService = (row: ServiceRow): ServiceView => ({
  id: row.id,
  clinic_id: row.clinicId,
  name: row.name,
  duration_min: row.durationMin,
  price: row.price,
  provider_id: row.providerId,
  provider_name: row.providerId === null ? null : row.providerName,
  is_active: row.isActive,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** Services of one clinic joined with their provider's membership; deleted ones never show. */
function selectServices(db: Db, clinicId: string) {
  return {
    where: (...conditions: (SQL | undefined)[]) =>
      db
        .select(serviceColumns)
        .from(services)
        .leftJoin(clinicMembers, and(eq(clinicMembers.clinicId, services.clinicId), eq(clinicMembers.userId, services.providerId)))
        .where(and(eq(services.clinicId, clinicId), isNull(services.deletedAt), ...conditions)),
  };
}

/** One live service of the clinic; 404 when absent, soft-deleted or in another clinic. */
export async function getService(db: Db, clinicId: string, serviceId: string): Promise<ServiceView> {
  const [row] = await selectServices(db, clinicId).where(eq(services.id, serviceId));
  if (!row) throw new DomainError("NOT_FOUND", "service not found");
  return toService(row);
}

/** Live services of the clinic with these ids, by name then id. */
async function servicesByIds(db: Db, clinicId: string, ids: readonly string[]): Promise<ServiceView[]> {
  if (ids.length === 0) return [];
  const rows = await selectServices(db, clinicId)
    .where(inArray(services.id, [...ids]))
    .orderBy(asc(services.name), asc(services.id));
  return rows.map(toService);
}

export interface ServiceListQuery {
  clinicId: string;
  /** Only services assigned to this provider (user id). */
  providerId?: string | undefined;
  includeInactive: boolean;
  limit: number;
  cursor?: string | undefined;
}

/** Live services of a clinic ordered by name then id, keyset-paginated. */
export async function listServices(db: Db, query: ServiceListQuery): Promise<{ services: ServiceView[]; next_cursor: string | null }> {
  const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
  const rows = await selectServices(db, query.clinicId)
    .where(
      query.providerId !== undefined ? eq(services.providerId, query.providerId) : undefined,
      query.includeInactive ? undefined : eq(services.isActive, true),
      after ? or(gt(services.name, after[0] ?? ""), and(eq(services.name, after[0] ?? ""), gt(services.id, after[1] ?? ""))) : undefined,
    )
    .orderBy(asc(services.name), asc(services.id))
    .limit(query.limit + 1);
  const page = pageOf(rows, query.limit, (r) => [r.name, r.id]);
  return { services: page.items.map(toService), next_cursor: page.next_cursor };
}

/**
 * The per-clinic name of `userId` when they are a provider (`is_provider` true) of this clinic;
 * otherwise 422 NOT_A_PROVIDER (a membership id, a non-provider, an unknown id or another
 * clinic's provider). The membership row is share-locked until the caller's transaction ends,
 * so a concurrent provider removal (which locks it for update, then checks for assigned
 * services) cannot slip between this check and the assignment.
 */
export async function assertProvider(db: Db, clinicId: string, userId: string): Promise<string> {
  const [row] = await db
    .select({ fullName: clinicMembers.fullName })
    .from(clinicMembers)
    .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId), eq(clinicMembers.isProvider, true)))
    .for("share");
  if (!row) {
    throw new DomainError("NOT_A_PROVIDER", `provider_id ${userId} is not the user id of a provider of this clinic`, {
      errors: [{ path: "provider_id", message: "must be the user id of a member with is_provider true in this clinic" }],
    });
  }
  return row.fullName;
}

/** Who makes a change, for the audit trail. */
export interface Actor {
  email: string;
}

export interface NewService {
  name: string;
  duration_min: number;
  price?: string | null | undefined;
  provider_id?: string | null | undefined;
  is_active: boolean;
}

/** Creates a service with its SERVICE_CREATED audit entry, in one transaction. */
export async function createService(db: Db, clinicId: string, actor: Actor, input: NewService): Promise<ServiceView> {
  return db.transaction(async (tx) => {
    const providerId = input.provider_id ?? null;
    const providerName = providerId === null ? null : await assertProvider(tx, clinicId, providerId);
    const price = input.price ?? null;
    const [row] = await tx
      .insert(services)
      .values({ clinicId, name: input.name, durationMin: input.duration_min, price, providerId, isActive: input.is_active })
      .returning({ id: services.id });
    if (!row) throw new DomainError("INTERNAL", "insert returned no row");
    // At creation "changed" means "set": the always-present fields, plus price / provider_id when given a value.
    const changedFields = ["name", "duration_min", ...(price !== null ? ["price"] : []), ...(providerId !== null ? ["provider_id"] : []), "is_active"];
    await recordServiceAudit(tx, [
      {
        clinicId,
        action: "SERVICE_CREATED",
        serviceId: row.id,
        userEmail: actor.email,
        details: {
          changed_fields: changedFields,
          ...(providerId !== null ? { old_provider_id: null, new_provider_id: providerId, provider_name: providerName } : {}),
        },
      },
    ]);
    await invalidateAvailability(tx, clinicId, [clinicId]);
    return getService(tx, clinicId, row.id);
  });
}

export interface ServicePatch {
  name?: string | undefined;
  duration_min?: number | undefined;
  price?: string | null | undefined;
  provider_id?: string | null | undefined;
  is_active?: boolean | undefined;
}

/** The live service row, locked for the rest of the transaction; 404 when absent. */
async function lockService(db: Db, clinicId: string, serviceId: string) {
  const [row] = await db
    .select()
    .from(services)
    .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId), isNull(services.deletedAt)))
    .for("update");
  if (!row) throw new DomainError("NOT_FOUND", "service not found");
  return row;
}

/**
 * Applies a partial update (assign / reassign / unassign included) with its SERVICE_UPDATED
 * audit entry. Only fields whose value actually differs count as changed; a patch that changes
 * nothing writes nothing (no audit entry, updated_at kept) and returns the service as it is.
 */
export async function updateService(db: Db, clinicId: string, serviceId: string, actor: Actor, patch: ServicePatch): Promise<ServiceView> {
  return db.transaction(async (tx) => {
    const current = await lockService(tx, clinicId, serviceId);
    const set: Partial<typeof services.$inferInsert> = {};
    const changed: string[] = [];
    if (patch.name !== undefined && patch.name !== current.name) {
      set.name = patch.name;
      changed.push("name");
    }
    if (patch.duration_min !== undefined && patch.duration_min !== current.durationMin) {
      set.durationMin = patch.duration_min;
      changed.push("duration_min");
    }
    if (patch.price !== undefined && patch.price !== current.price) {
      set.price = patch.price;
      changed.push("price");
    }
    let providerDetails: Record<string, unknown> = {};
    if (patch.provider_id !== undefined && patch.provider_id !== current.providerId) {
      const providerName = patch.provider_id === null ? null : await assertProvider(tx, clinicId, patch.provider_id);
      set.providerId = patch.provider_id;
      changed.push("provider_id");
      providerDetails = { old_provider_id: current.providerId, new_provider_id: patch.provider_id, provider_name: providerName };
    }
    if (patch.is_active !== undefined && patch.is_active !== current.isActive) {
      // Re-activating a service whose provider has lost the provider flag meanwhile would make
      // it bookable with a non-provider; refuse it like an assignment to a non-provider.
      if (patch.is_active && set.providerId === undefined && current.providerId !== null) {
        await assertProvider(tx, clinicId, current.providerId);
      }
      set.isActive = patch.is_active;
      changed.push("is_active");
    }
    if (changed.length === 0) return getService(tx, clinicId, serviceId);
    await tx
      .update(services)
      .set({ ...set, updatedAt: new Date() })
      .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId)));
    await recordServiceAudit(tx, [
      { clinicId, action: "SERVICE_UPDATED", serviceId, userEmail: actor.email, details: { changed_fields: changed, ...providerDetails } },
    ]);
    if (changed.some((field) => field === "provider_id" || field === "duration_min" || field === "is_active")) {
      await invalidateAvailability(tx, clinicId, [clinicId]);
    }
    return getService(tx, clinicId, serviceId);
  });
}

/**
 * Soft-deletes a service (sets deleted_at): it leaves every read, list, search and booking, while
 * appointments keep referencing it. Writes SERVICE_DELETED in the same transaction.
 */
export async function deleteService(db: Db, clinicId: string, serviceId: string, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    await lockService(tx, clinicId, serviceId);
    const now = new Date();
    await tx
      .update(services)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId)));
    await recordServiceAudit(tx, [
      { clinicId, action: "SERVICE_DELETED", serviceId, userEmail: actor.email, details: { changed_fields: ["deleted_at"] } },
    ]);
    await invalidateAvailability(tx, clinicId, [clinicId]);
  });
}

/**
 * Assigns all selected services to one provider, all or nothing: 422 NOT_A_PROVIDER, 404 when an
 * id is not a live service of this clinic, 409 ALREADY_ASSIGNED when one is assigned to another
 * provider (reassigning is a PATCH). Services already assigned to this provider stay untouched;
 * each service that changes gets its own SERVICE_UPDATED entry. Returns the selected services.
 */
export async function bulkAssignServices(
  db: Db,
  clinicId: string,
  actor: Actor,
  input: { provider_id: string; service_ids: readonly string[] },
): Promise<ServiceView[]> {
  const ids = [...new Set(input.service_ids)].sort();
  return db.transaction(async (tx) => {
    const providerName = await assertProvider(tx, clinicId, input.provider_id);
    // Lock in id order so that two bulk assignments over overlapping sets cannot deadlock.
    const rows = await tx
      .select({ id: services.id, providerId: services.providerId })
      .from(services)
      .where(and(eq(services.clinicId, clinicId), inArray(services.id, ids), isNull(services.deletedAt)))
      .orderBy(asc(services.id))
      .for("update");
    const found = new Set(rows.map((r) => r.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new DomainError("NOT_FOUND", `service(s) not found: ${missing.join(", ")}`, { extra: { service_ids: missing } });
    }
    const taken = rows.filter((r) => r.providerId !== null && r.providerId !== input.provider_id).map((r) => r.id);
    if (taken.length > 0) {
      throw new DomainError("ALREADY_ASSIGNED", `service(s) already assigned to another provider: ${taken.join(", ")}; reassign them one by one with PATCH`, {
        extra: { service_ids: taken },
      });
    }
    const toAssign = rows.filter((r) => r.providerId === null).map((r) => r.id);
    if (toAssign.length > 0) {
      await tx
        .update(services)
        .set({ providerId: input.provider_id, updatedAt: new Date() })
        .where(and(eq(services.clinicId, clinicId), inArray(services.id, toAssign)));
      const records: ServiceAuditRecord[] = toAssign.map((serviceId) => ({
        clinicId,
        action: "SERVICE_UPDATED",
        serviceId,
        userEmail: actor.email,
        details: { changed_fields: ["provider_id"], old_provider_id: null, new_provider_id: input.provider_id, provider_name: providerName },
      }));
      await recordServiceAudit(tx, records);
      await invalidateAvailability(tx, clinicId, [clinicId]);
    }
    return servicesByIds(tx, clinicId, ids);
  });
}

/**
 * Fuzzy search scoring (documented in docs/providers-services.md). Both sides go through
 * `search_text` (lower-cased, accents removed), then
 *   score = greatest(similarity(name, q), strict_word_similarity(q, name), 0.8 * word_similarity(q, name))
 * and only scores ≥ SEARCH_THRESHOLD count. similarity handles typos and word order over the
 * whole name; the word similarities let a short query match one word of a longer name; the plain
 * word similarity is damped because it also rewards bare prefixes ("xyz" vs "Xylophone": 0.5).
 */
export const SEARCH_THRESHOLD = 0.45;
const WORD_SIMILARITY_WEIGHT = 0.8;

export interface SearchMatch {
  service: ServiceView;
  score: number;
}

/** Active, live services of a clinic whose name matches `q` fuzzily, best first. */
export async function searchServices(db: Db, clinicId: string, q: string, limit: number): Promise<SearchMatch[]> {
  return db.transaction(async (tx) => {
    // The pg_trgm operators below let the planner use the GIN index on search_text(name); their
    // thresholds are session settings, so pin them (for this transaction only) to values whose
    // union is exactly "score ≥ SEARCH_THRESHOLD".
    await tx.execute(sql`select
        set_config('pg_trgm.similarity_threshold', ${String(SEARCH_THRESHOLD)}, true),
        set_config('pg_trgm.strict_word_similarity_threshold', ${String(SEARCH_THRESHOLD)}, true),
        set_config('pg_trgm.word_similarity_threshold', ${String(SEARCH_THRESHOLD / WORD_SIMILARITY_WEIGHT)}, true)`);
    const name = sql`search_text(${services.name})`;
    const query = sql`search_text(${q}::text)`;
    const similarity = sql`similarity(${name}, ${query})`;
    const score = sql`greatest(${similarity}, strict_word_similarity(${query}, ${name}), ${WORD_SIMILARITY_WEIGHT}::float8 * word_similarity(${query}, ${name}))::float8`;
    const result = await tx.execute(sql`
      select ${services.id} as id, ${score} as score
      from ${services}
      where ${services.clinicId} = ${clinicId}
        and ${services.deletedAt} is null
        and ${services.isActive}
        and (${name} % ${query} or ${name} %> ${query} or ${name} %>> ${query})
        and ${score} >= ${SEARCH_THRESHOLD}::float8
      order by 2 desc, ${similarity} desc, ${services.name} asc, ${services.id} asc
      limit ${limit}`);
    const hits = rowsOf<{ id: string; score: number | string }>(result);
    const byId = new Map((await servicesByIds(tx, clinicId, hits.map((h) => h.id))).map((s) => [s.id, s]));
    return hits.flatMap((hit) => {
      const service = byId.get(hit.id);
      return service ? [{ service, score: Math.round(Number(hit.score) * 1000) / 1000 }] : [];
    });
  });
}
