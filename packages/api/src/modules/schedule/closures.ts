import { and, asc, eq, gt, lt } from "drizzle-orm";
import { closures, type Db } from "@clinic/db";
import { invalidTimeRange, notFound, returnedRow, validationFailed } from "../../errors.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { type ScheduleOwner, availabilityScopeOf, ownedBy, scopeOf } from "./owner.ts";
import { type ClosureView, toClosure } from "./view.ts";

/** Longest closure: a year. Longer ranges are almost always a typo in the year. */
const maxClosureMs = 366 * 86_400_000;

const ownClosures = (owner: ScheduleOwner) => ownedBy(owner, closures);

/** Closes the owner's schedule for [starts_at, ends_at); invalidates availability in the same transaction. */
export async function createClosure(
  db: Db,
  owner: ScheduleOwner,
  input: { starts_at: Date; ends_at: Date; reason?: string | undefined },
): Promise<ClosureView> {
  if (input.ends_at.getTime() <= input.starts_at.getTime())
    throw invalidTimeRange("ends_at", "must be after starts_at");
  if (input.ends_at.getTime() - input.starts_at.getTime() > maxClosureMs)
    throw validationFailed("ends_at", "a closure may last at most 366 days");
  return db.transaction(async (tx) => {
    const row = returnedRow(
      await tx
        .insert(closures)
        .values({
          clinicId: owner.clinicId,
          scope: scopeOf(owner),
          providerId: owner.providerId,
          startsAt: input.starts_at,
          endsAt: input.ends_at,
          reason: input.reason ?? null,
        })
        .returning(),
      "closure",
    );
    await invalidateAvailability(tx, owner.clinicId, [availabilityScopeOf(owner)]);
    return toClosure(row);
  });
}

/** Closures of one owner overlapping [from, to), by start (an absent bound is unbounded). */
export async function listClosures(
  db: Db,
  owner: ScheduleOwner,
  range: { from?: Date | undefined; to?: Date | undefined },
): Promise<ClosureView[]> {
  const rows = await db
    .select()
    .from(closures)
    .where(
      and(
        ownClosures(owner),
        range.from ? gt(closures.endsAt, range.from) : undefined,
        range.to ? lt(closures.startsAt, range.to) : undefined,
      ),
    )
    .orderBy(asc(closures.startsAt), asc(closures.id));
  return rows.map(toClosure);
}

/** Deletes one of the owner's closures; 404 when it is not theirs. */
export async function deleteClosure(db: Db, owner: ScheduleOwner, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(closures)
      .where(and(ownClosures(owner), eq(closures.id, id)))
      .returning({ id: closures.id });
    if (deleted.length === 0) throw notFound("closure");
    await invalidateAvailability(tx, owner.clinicId, [availabilityScopeOf(owner)]);
  });
}
