import { and, asc, eq, gt, lt } from "drizzle-orm";
import { type Db, resourceClosures } from "@clinic/db";
import { invalidTimeRange, notFound, returnedRow, validationFailed } from "../../errors.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { lockResource, requireResource } from "./resources.ts";
import { type ResourceClosureView, toResourceClosure } from "./view.ts";

/** Longest closure: a year, as for clinic and provider closures. Longer ranges are almost always a typo. */
const maxClosureMs = 366 * 86_400_000;

export interface NewResourceClosure {
  starts_at: Date;
  ends_at: Date;
  reason?: string | undefined;
}

/**
 * Closes one live resource for [starts_at, ends_at) (Q5): 422 INVALID_TIME_RANGE unless ends_at
 * is after starts_at, 404 for a deleted resource or another clinic's. An inactive resource may be
 * closed too (its closure counts once it is active again). Invalidates availability in the same
 * transaction.
 */
export async function createResourceClosure(
  db: Db,
  clinicId: string,
  resourceId: string,
  input: NewResourceClosure,
): Promise<ResourceClosureView> {
  if (input.ends_at.getTime() <= input.starts_at.getTime())
    throw invalidTimeRange("ends_at", "must be after starts_at");
  if (input.ends_at.getTime() - input.starts_at.getTime() > maxClosureMs)
    throw validationFailed("ends_at", "a closure may last at most 366 days");
  return db.transaction(async (tx) => {
    // Shared: a concurrent delete of the resource waits for this closure, not the other way round.
    await lockResource(tx, clinicId, resourceId, "share");
    const row = returnedRow(
      await tx
        .insert(resourceClosures)
        .values({
          clinicId,
          resourceId,
          startsAt: input.starts_at,
          endsAt: input.ends_at,
          reason: input.reason ?? null,
        })
        .returning(),
      "resource closure",
    );
    await invalidateAvailability(tx, clinicId, [clinicId]);
    return toResourceClosure(row);
  });
}

/** A live resource's closures overlapping [from, to), by start (an absent bound is unbounded); 404 for a deleted one. */
export async function listResourceClosures(
  db: Db,
  clinicId: string,
  resourceId: string,
  range: { from?: Date | undefined; to?: Date | undefined } = {},
): Promise<ResourceClosureView[]> {
  await requireResource(db, clinicId, resourceId);
  const rows = await db
    .select()
    .from(resourceClosures)
    .where(
      and(
        eq(resourceClosures.clinicId, clinicId),
        eq(resourceClosures.resourceId, resourceId),
        range.from ? gt(resourceClosures.endsAt, range.from) : undefined,
        range.to ? lt(resourceClosures.startsAt, range.to) : undefined,
      ),
    )
    .orderBy(asc(resourceClosures.startsAt), asc(resourceClosures.id));
  return rows.map(toResourceClosure);
}

/** Deletes one closure of a live resource; 404 when it is not that resource's. Invalidates availability. */
export async function deleteResourceClosure(
  db: Db,
  clinicId: string,
  resourceId: string,
  closureId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    await lockResource(tx, clinicId, resourceId, "share");
    const deleted = await tx
      .delete(resourceClosures)
      .where(
        and(
          eq(resourceClosures.clinicId, clinicId),
          eq(resourceClosures.resourceId, resourceId),
          eq(resourceClosures.id, closureId),
        ),
      )
      .returning({ id: resourceClosures.id });
    if (deleted.length === 0) throw notFound("closure");
    await invalidateAvailability(tx, clinicId, [clinicId]);
  });
}
