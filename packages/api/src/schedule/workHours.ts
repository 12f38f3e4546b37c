import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import { clinicMembers, type Db, pgErrorInfo, workHours } from "@clinic/db";
import { invalidateAvailability } from "../availability/versions.ts";
import { type Period, applyPatch, findOverlap, isValidPeriod, overlapMessage } from "../domain/workHourRules.ts";
import { DomainError } from "../errors.ts";
import { type WorkHourOutput, toWorkHour } from "../schemas/schedule.ts";

/** Whose hours: the clinic's own (providerId null) or one provider's in that clinic. */
export interface HoursOwner {
  clinicId: string;
  providerId: string | null;
}

const ownerCondition = (owner: HoursOwner) =>
  and(
    eq(workHours.clinicId, owner.clinicId),
    owner.providerId ? eq(workHours.providerId, owner.providerId) : isNull(workHours.providerId),
  );

const scopeIdOf = (owner: HoursOwner) => owner.providerId ?? owner.clinicId;

/** 404 unless the user is a member of the clinic flagged as provider. */
export async function assertProviderOfClinic(db: Db, clinicId: string, userId: string, code: "NOT_FOUND" | "NOT_A_PROVIDER"): Promise<void> {
  const [row] = await db
    .select({ isProvider: clinicMembers.isProvider })
    .from(clinicMembers)
    .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)));
  if (!row?.isProvider) {
    throw code === "NOT_FOUND"
      ? new DomainError("NOT_FOUND", "provider not found in this clinic")
      : new DomainError("NOT_A_PROVIDER", "provider_id is not a provider of this clinic");
  }
}

async function overlappingPeriod(db: Db, owner: HoursOwner, weekday: number, period: Period, excludeId?: string) {
  const others = await db
    .select({ opensMin: workHours.opensMin, closesMin: workHours.closesMin })
    .from(workHours)
    .where(and(ownerCondition(owner), eq(workHours.weekday, weekday), excludeId ? ne(workHours.id, excludeId) : undefined));
  return findOverlap(period, others);
}

async function assertNoOverlap(db: Db, owner: HoursOwner, weekday: number, period: Period, excludeId?: string): Promise<void> {
  const hit = await overlappingPeriod(db, owner, weekday, period, excludeId);
  if (hit) throw new DomainError("WORK_HOUR_OVERLAP", overlapMessage(period, hit));
}

/**
 * Runs a write that the exclusion constraint may refuse because a concurrent transaction won;
 * answers with the same message as the application check, naming the period that won.
 */
async function guardOverlap<T>(db: Db, owner: HoursOwner, weekday: number, period: Period, excludeId: string | undefined, write: (tx: Db) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(write);
  } catch (error) {
    // A deadlock between two conflicting inserts is the same lost race, resolved by PostgreSQL.
    const info = pgErrorInfo(error);
    if (info?.constraint !== "work_hours_no_overlap" && info?.code !== "40P01") throw error;
    const hit = await overlappingPeriod(db, owner, weekday, period, excludeId);
    throw new DomainError("WORK_HOUR_OVERLAP", hit ? overlapMessage(period, hit) : "overlap detected, the period overlaps with an existing period", { cause: error });
  }
}

function assertValid(period: Period): void {
  if (!isValidPeriod(period)) {
    throw new DomainError("INVALID_TIME_RANGE", "closes_at must be later than opens_at", { errors: [{ path: "closes_at", message: "must be later than opens_at" }] });
  }
}

/** Creates a period after the same validation and overlap rules as an edit. */
export async function createWorkHour(db: Db, owner: HoursOwner, input: { weekday: number } & Period): Promise<WorkHourOutput> {
  const period = { opensMin: input.opensMin, closesMin: input.closesMin };
  assertValid(period);
  return db.transaction(async (tx) => {
    await assertNoOverlap(tx, owner, input.weekday, period);
    return guardOverlap(tx, owner, input.weekday, period, undefined, async (savepoint) => {
      const [row] = await savepoint
        .insert(workHours)
        .values({ clinicId: owner.clinicId, scope: owner.providerId ? "provider" : "clinic", providerId: owner.providerId, weekday: input.weekday, ...period })
        .returning();
      if (!row) throw new Error("insert returned no row");
      await invalidateAvailability(savepoint, owner.clinicId, [scopeIdOf(owner)]);
      return toWorkHour(row);
    });
  });
}

/** The periods of one owner, by weekday and opening time. */
export async function listWorkHours(db: Db, owner: HoursOwner, weekday?: number): Promise<WorkHourOutput[]> {
  const rows = await db
    .select()
    .from(workHours)
    .where(and(ownerCondition(owner), weekday ? eq(workHours.weekday, weekday) : undefined))
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
  owner: HoursOwner,
  id: string,
  ifUpdatedAt: Date,
  patch: { opensMin?: number | undefined; closesMin?: number | undefined },
): Promise<WorkHourOutput> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(workHours).where(and(ownerCondition(owner), eq(workHours.id, id))).for("update");
    if (!row) throw new DomainError("NOT_FOUND", "work hour not found");
    if (row.updatedAt.getTime() !== ifUpdatedAt.getTime()) {
      throw new DomainError("STALE_UPDATED_AT", "the work hour was changed by someone else; re-read updated_at and retry", {
        extra: { current_updated_at: row.updatedAt.toISOString() },
      });
    }
    const period = applyPatch(row, patch);
    assertValid(period);
    await assertNoOverlap(tx, owner, row.weekday, period, id);
    return guardOverlap(tx, owner, row.weekday, period, id, async (savepoint) => {
      const [updated] = await savepoint
        .update(workHours)
        // Strictly later than the previous stamp, so a stale stamp never matches again.
        .set({ ...period, updatedAt: sql`greatest(now(), ${workHours.updatedAt} + interval '1 millisecond')` })
        .where(eq(workHours.id, id))
        .returning();
      if (!updated) throw new Error("update returned no row");
      await invalidateAvailability(savepoint, owner.clinicId, [scopeIdOf(owner)]);
      return toWorkHour(updated);
    });
  });
}

/** Removes a period; appointments in it stay booked. */
export async function deleteWorkHour(db: Db, owner: HoursOwner, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx.delete(workHours).where(and(ownerCondition(owner), eq(workHours.id, id))).returning({ id: workHours.id });
    if (deleted.length === 0) throw new DomainError("NOT_FOUND", "work hour not found");
    await invalidateAvailability(tx, owner.clinicId, [scopeIdOf(owner)]);
  });
}

/** The clinic of a provider work hour (for W7/W8, where clinic_id may be omitted). */
export async function clinicOfProviderWorkHour(db: Db, id: string, providerId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ clinicId: workHours.clinicId })
    .from(workHours)
    .where(and(eq(workHours.id, id), eq(workHours.providerId, providerId)));
  return row?.clinicId;
}
