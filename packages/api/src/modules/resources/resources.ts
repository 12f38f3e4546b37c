import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { type Db, resources } from "@clinic/db";
import { notFound, returnedRow } from "../../errors.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { type ResourceRow, type ResourceView, toResource } from "./view.ts";

/** "This live (not deleted) resource of the clinic": another clinic's or a deleted one is not found. */
export const liveResource = (clinicId: string, resourceId: string) =>
  and(eq(resources.clinicId, clinicId), eq(resources.id, resourceId), isNull(resources.deletedAt));

/**
 * The live resource, locked for the rest of the transaction (`update` for a change of it, `share`
 * to keep it from being deleted meanwhile); 404 when absent, deleted or in another clinic.
 */
export async function lockResource(
  db: Db,
  clinicId: string,
  resourceId: string,
  strength: "update" | "share",
): Promise<ResourceRow> {
  const [row] = await db.select().from(resources).where(liveResource(clinicId, resourceId)).for(strength);
  if (!row) throw notFound("resource");
  return row;
}

/** The live resource; 404 when absent, deleted or in another clinic. */
export async function requireResource(db: Db, clinicId: string, resourceId: string): Promise<ResourceView> {
  const [row] = await db.select().from(resources).where(liveResource(clinicId, resourceId));
  if (!row) throw notFound("resource");
  return toResource(row);
}

export interface NewResource {
  name: string;
  kind: string;
  is_active: boolean;
}

/**
 * Creates a resource (Q1). A new active resource can make slots of services that need its kind
 * bookable, so availability is invalidated in the same transaction.
 */
export async function createResource(db: Db, clinicId: string, input: NewResource): Promise<ResourceView> {
  return db.transaction(async (tx) => {
    const row = returnedRow(
      await tx
        .insert(resources)
        .values({ clinicId, name: input.name, kind: input.kind, isActive: input.is_active })
        .returning(),
      "resource",
    );
    await invalidateAvailability(tx, clinicId, [clinicId]);
    return toResource(row);
  });
}

/**
 * The clinic's resources (Q2), active and inactive alike (`is_active` tells them apart), by kind,
 * name, then id; deleted ones never show. Not paginated: a clinic has rooms and devices by the
 * dozen, not by the thousand.
 */
export async function listResources(
  db: Db,
  clinicId: string,
  query: { kind?: string | undefined } = {},
): Promise<ResourceView[]> {
  const rows = await db
    .select()
    .from(resources)
    .where(
      and(
        eq(resources.clinicId, clinicId),
        isNull(resources.deletedAt),
        query.kind !== undefined ? eq(resources.kind, query.kind) : undefined,
      ),
    )
    .orderBy(asc(resources.kind), asc(resources.name), asc(resources.id));
  return rows.map(toResource);
}

export interface ResourcePatch {
  name?: string | undefined;
  kind?: string | undefined;
  is_active?: boolean | undefined;
}

/**
 * Applies a partial update (Q3). Only fields whose value differs count; a patch that changes
 * nothing writes nothing (updated_at kept) and answers the resource as it is. A change of kind or
 * of is_active changes which slots are offered, so it invalidates availability in the same
 * transaction; a new name alone does not.
 */
export async function updateResource(
  db: Db,
  clinicId: string,
  resourceId: string,
  patch: ResourcePatch,
): Promise<ResourceView> {
  return db.transaction(async (tx) => {
    const current = await lockResource(tx, clinicId, resourceId, "update");
    const set: Partial<Pick<ResourceRow, "name" | "kind" | "isActive">> = {};
    if (patch.name !== undefined && patch.name !== current.name) set.name = patch.name;
    if (patch.kind !== undefined && patch.kind !== current.kind) set.kind = patch.kind;
    if (patch.is_active !== undefined && patch.is_active !== current.isActive) set.isActive = patch.is_active;
    if (Object.keys(set).length === 0) return toResource(current);
    const row = returnedRow(
      await tx.update(resources).set(set).where(liveResource(clinicId, resourceId)).returning(),
      "resource",
    );
    if (set.kind !== undefined || set.isActive !== undefined) {
      await invalidateAvailability(tx, clinicId, [clinicId]);
    }
    return toResource(row);
  });
}

/**
 * Soft-deletes a resource (Q4): sets deleted_at, so it leaves every read, list and booking while
 * its row stays for the appointments that recorded it. A second delete, or another clinic's id,
 * is 404.
 */
export async function deleteResource(db: Db, clinicId: string, resourceId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx
      .update(resources)
      .set({ deletedAt: sql`now()` })
      .where(liveResource(clinicId, resourceId))
      .returning({ id: resources.id });
    if (deleted.length === 0) throw notFound("resource");
    await invalidateAvailability(tx, clinicId, [clinicId]);
  });
}
