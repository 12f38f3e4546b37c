import { and, asc, eq, gte, inArray, lte } from "drizzle-orm";
import { z } from "zod";
import { type Db, dateOverridePeriods, dateOverrides, pgErrorInfo, scopes } from "@clinic/db";
import { type Period, isValidPeriod, overlapMessage } from "../../domain/workHourRules.ts";
import { formatTimeOfDay } from "../../domain/timezone.ts";
import {
  DomainError,
  invalidTimeRange,
  notFound,
  preconditionRequired,
  returnedRow,
  staleUpdatedAt,
} from "../../errors.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { type ScheduleOwner, availabilityScopeOf, ownedBy, scopeOf } from "./owner.ts";

/** A date override as the API shows it (periods in clinic wall-clock, by opening). */
export const dateOverrideOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  scope: z.enum(scopes),
  provider_id: z.string().nullable(),
  date: z.string(),
  periods: z.array(z.object({ opens_at: z.string(), closes_at: z.string() })),
  reason: z.string().nullable(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type DateOverrideView = z.infer<typeof dateOverrideOutput>;

type OverrideRow = typeof dateOverrides.$inferSelect;

const toDateOverride = (row: OverrideRow, periods: readonly Period[]): DateOverrideView => ({
  id: row.id,
  clinic_id: row.clinicId,
  scope: row.scope,
  provider_id: row.providerId,
  date: row.date,
  periods: [...periods]
    .sort((a, b) => a.opensMin - b.opensMin)
    .map((p) => ({ opens_at: formatTimeOfDay(p.opensMin), closes_at: formatTimeOfDay(p.closesMin) })),
  reason: row.reason,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

const ownOverrides = (owner: ScheduleOwner) => ownedBy(owner, dateOverrides);

/** Each period closes after it opens (422), and no two overlap (409, the later one named first). */
function assertValidPeriods(periods: readonly Period[]): void {
  periods.forEach((period, i) => {
    if (!isValidPeriod(period)) throw invalidTimeRange(`periods.${String(i)}.closes_at`, "must be later than opens_at");
  });
  periods.forEach((period, i) => {
    const earlier = periods
      .slice(0, i)
      .find((other) => other.opensMin < period.closesMin && period.opensMin < other.closesMin);
    if (earlier)
      throw new DomainError("WORK_HOUR_OVERLAP", overlapMessage(period, earlier), {
        errors: [{ path: `periods.${String(i)}`, message: "overlaps another period" }],
      });
  });
}

async function periodsOf(db: Db, clinicId: string, overrideIds: readonly string[]): Promise<Map<string, Period[]>> {
  const byOverride = new Map<string, Period[]>(overrideIds.map((id) => [id, []]));
  if (overrideIds.length === 0) return byOverride;
  const rows = await db
    .select()
    .from(dateOverridePeriods)
    .where(and(eq(dateOverridePeriods.clinicId, clinicId), inArray(dateOverridePeriods.overrideId, [...overrideIds])))
    .orderBy(asc(dateOverridePeriods.opensMin));
  for (const r of rows) byOverride.get(r.overrideId)?.push({ opensMin: r.opensMin, closesMin: r.closesMin });
  return byOverride;
}

export interface OverrideInput {
  periods: readonly Period[];
  reason?: string | undefined;
  /** Required to replace an existing override: its current updated_at. */
  ifUpdatedAt?: Date | undefined;
}

/**
 * Creates or replaces the owner's override of `date`, in one transaction. Creating needs no
 * stamp; replacing needs `ifUpdatedAt` equal to the override's `updated_at` (428 without, 409
 * STALE_UPDATED_AT when different), checked under a row lock, so of concurrent replaces with one
 * stamp exactly one wins; of concurrent creates one creates and the others meet an existing
 * override. Availability of the owner is invalidated in the same transaction.
 */
export async function putDateOverride(
  db: Db,
  owner: ScheduleOwner,
  date: string,
  input: OverrideInput,
): Promise<{ override: DateOverrideView; created: boolean }> {
  assertValidPeriods(input.periods);
  return db.transaction(async (tx) => {
    const existing = async () =>
      (
        await tx
          .select()
          .from(dateOverrides)
          .where(and(ownOverrides(owner), eq(dateOverrides.date, date)))
          .for("update")
      )[0];
    let row = await existing();
    let created = false;
    if (!row) {
      try {
        // A savepoint: a concurrent create of the same date wins the unique key, and this one replaces it.
        row = await tx.transaction(async (sp) =>
          returnedRow(
            await sp
              .insert(dateOverrides)
              .values({
                clinicId: owner.clinicId,
                scope: scopeOf(owner),
                providerId: owner.providerId,
                date,
                reason: input.reason ?? null,
              })
              .returning(),
            "date override",
          ),
        );
        created = true;
      } catch (error) {
        if (pgErrorInfo(error)?.constraint !== "date_overrides_owner_date_key") throw error;
        row = await existing();
        if (!row) throw error;
      }
    }
    if (!created) {
      if (!input.ifUpdatedAt) throw preconditionRequired("date override");
      if (row.updatedAt.getTime() !== input.ifUpdatedAt.getTime()) throw staleUpdatedAt("date override", row.updatedAt);
      await tx
        .delete(dateOverridePeriods)
        .where(and(eq(dateOverridePeriods.clinicId, owner.clinicId), eq(dateOverridePeriods.overrideId, row.id)));
      row = returnedRow(
        await tx
          .update(dateOverrides)
          .set({ reason: input.reason ?? null })
          .where(and(eq(dateOverrides.clinicId, owner.clinicId), eq(dateOverrides.id, row.id)))
          .returning(),
        "date override",
      );
    }
    if (input.periods.length > 0) {
      await tx.insert(dateOverridePeriods).values(
        input.periods.map((p) => ({
          clinicId: owner.clinicId,
          overrideId: row.id,
          opensMin: p.opensMin,
          closesMin: p.closesMin,
        })),
      );
    }
    await invalidateAvailability(tx, owner.clinicId, [availabilityScopeOf(owner)]);
    return { override: toDateOverride(row, input.periods), created };
  });
}

/** The owner's overrides of dates in [from, to] (inclusive, absent = unbounded), by date. */
export async function listDateOverrides(
  db: Db,
  owner: ScheduleOwner,
  range: { from?: string | undefined; to?: string | undefined },
): Promise<DateOverrideView[]> {
  const rows = await db
    .select()
    .from(dateOverrides)
    .where(
      and(
        ownOverrides(owner),
        range.from ? gte(dateOverrides.date, range.from) : undefined,
        range.to ? lte(dateOverrides.date, range.to) : undefined,
      ),
    )
    .orderBy(asc(dateOverrides.date));
  const periods = await periodsOf(
    db,
    owner.clinicId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toDateOverride(r, periods.get(r.id) ?? []));
}

/** Deletes the owner's override of `date` (the weekly hours apply again); 404 when there is none. */
export async function deleteDateOverride(db: Db, owner: ScheduleOwner, date: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(dateOverrides)
      .where(and(ownOverrides(owner), eq(dateOverrides.date, date)))
      .returning({ id: dateOverrides.id });
    if (deleted.length === 0) throw notFound("date override");
    await invalidateAvailability(tx, owner.clinicId, [availabilityScopeOf(owner)]);
  });
}
