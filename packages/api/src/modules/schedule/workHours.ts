import { and, asc, eq, ne } from "drizzle-orm";
import { type Db, pgErrorInfo, workHours } from "@clinic/db";
import { type Period, applyPatch, findOverlap, isValidPeriod, overlapMessage } from "../../domain/workHourRules.ts";
import { DomainError, invalidTimeRange, notFound, returnedRow, staleUpdatedAt } from "../../errors.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { type ScheduleOwner, availabilityScopeOf, ownedBy, scopeOf } from "./owner.ts";
import { type WorkHourView, toWorkHour } from "./view.ts";

const ownHours = (owner: ScheduleOwner) => ownedBy(owner, workHours);

async function overlappingPeriod(db: Db, owner: ScheduleOwner, weekday: number, period: Period, excludeId?: string) {
  const others = await db
    .select({ opensMin: workHours.opensMin, closesMin: workHours.closesMin })
    .from(workHours)
    .where(and(ownHours(owner), eq(workHours.weekday, weekday), excludeId ? ne(workHours.id, excludeId) : undefined));
  return findOverlap(period, others);
}

async function assertNoOverlap(
  db: Db,
  owner: ScheduleOwner,
  weekday: number,
  period: Period,
  excludeId?: string,
): Promise<void> {
  const hit = await overlappingPeriod(db, owner, weekday, period, excludeId);
  if (hit) throw new DomainError("WORK_HOUR_OVERLAP", overlapMessage(period, hit));
}

/**
 * Runs a write that the exclusion constraint may refuse because a concurrent transaction won;
 * answers with the same message as the application check, naming the period that won.
 */
async function guardOverlap<T>(
  db: Db,
  owner: ScheduleOwner,
  weekday: number,
  period: Period,
  excludeId: string | undefined,
  write: (tx: Db) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction(write);
  } catch (error) {
    // A deadlock between two conflicting inserts is the same lost race, resolved by PostgreSQL.
    const info = pgErrorInfo(error);
    if (info?.constraint !== "work_hours_no_overlap" && info?.code !== "40P01") throw error;
    const hit = await overlappingPeriod(db, owner, weekday, period, excludeId);
    throw new DomainError(
      "WORK_HOUR_OVERLAP",
      hit ? overlapMessage(period, hit) : "overlap detected, the period overlaps with an existing period",
      { cause: error },
    );
  }
}

function assertValid(period: Period): void {
  if (!isValidPeriod(period)) throw invalidTimeRange("closes_at", "must be later than opens_at");
}

/** Creates a period after the same validation and overlap rules as an edit. */
export async function createWorkHour(
  db: Db,
  owner: ScheduleOwner,
  input: { weekday: number } & Period,
): Promise<WorkHourView> {
  const period = { opensMin: input.opensMin, closesMin: input.closesMin };
  assertValid(period);
  return db.transaction(async (tx) => {
    await assertNoOverlap(tx, owner, input.weekday, period);
    return guardOverlap(tx, owner, input.weekday, period, undefined, async (savepoint) => {
      const row = returnedRow(
        await savepoint
          .insert(workHours)
          .values({
            clinicId: owner.clinicId,
            scope: scopeOf(owner),
            providerId: owner.providerId,
            weekday: input.weekday,
            ...period,
          })
          .returning(),
        "work hour",
      );
      await invalidateAvailability(savepoint, owner.clinicId, [availabilityScopeOf(owner)]);
      return toWorkHour(row);
    });
  });
}

/** The periods of one owner, by weekday and opening time. */
export async function listWorkHours(db: Db, owner: ScheduleOwner, weekday?: number): Promise<WorkHourView[]> {
  const rows = await db
    .select()
    .from(workHours)
    .where(and(ownHours(owner), weekday ? eq(workHours.weekday, weekday) : undefined))
    .orderBy(asc(workHours.weekday), asc(workHours.opensMin));
  return rows.map(toWorkHour);
}

/**
 * Edits a period with optimistic concurrency, in one transaction: lock the row, compare
 * `if_updated_at` as an instant, validate, check overlap against the other periods, update,
 * invalidate availability. The row lock makes two edits carrying one stamp resolve to one success.
 */
export async function editWorkHour(
  db: Db,
  owner: ScheduleOwner,
  id: string,
  ifUpdatedAt: Date,
  patch: { opensMin?: number | undefined; closesMin?: number | undefined },
): Promise<WorkHourView> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(workHours)
      .where(and(ownHours(owner), eq(workHours.id, id)))
      .for("update");
    if (!row) throw notFound("work hour");
    if (row.updatedAt.getTime() !== ifUpdatedAt.getTime()) throw staleUpdatedAt("work hour", row.updatedAt);
    // An empty PATCH changes nothing: no write, so updated_at stays and availability is not invalidated.
    if (patch.opensMin === undefined && patch.closesMin === undefined) return toWorkHour(row);
    const period = applyPatch(row, patch);
    assertValid(period);
    await assertNoOverlap(tx, owner, row.weekday, period, id);
    return guardOverlap(tx, owner, row.weekday, period, id, async (savepoint) => {
      // updated_at moves strictly forward (the column's update rule), so a stale stamp never matches again.
      const updated = returnedRow(
        await savepoint
          .update(workHours)
          .set(period)
          .where(and(ownHours(owner), eq(workHours.id, id)))
          .returning(),
        "work hour",
      );
      await invalidateAvailability(savepoint, owner.clinicId, [availabilityScopeOf(owner)]);
      return toWorkHour(updated);
    });
  });
}

/** Removes a period; appointments in it stay booked. */
export async function deleteWorkHour(db: Db, owner: ScheduleOwner, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(workHours)
      .where(and(ownHours(owner), eq(workHours.id, id)))
      .returning({ id: workHours.id });
    if (deleted.length === 0) throw notFound("work hour");
    await invalidateAvailability(tx, owner.clinicId, [availabilityScopeOf(owner)]);
  });
}

/** The clinic of a provider work hour (for editing W7 and deleting W8 a provider's hour, where clinic_id may be omitted). */
export async function clinicOfProviderWorkHour(db: Db, id: string, providerId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ clinicId: workHours.clinicId })
    .from(workHours)
    .where(and(eq(workHours.id, id), eq(workHours.providerId, providerId)));
  return row?.clinicId;
}
