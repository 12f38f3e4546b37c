import { type AnyColumn, type SQL, and, eq, isNull } from "drizzle-orm";

/** Whose schedule: the clinic's own (providerId null) or one provider's in that clinic. */
export interface ScheduleOwner {
  clinicId: string;
  providerId: string | null;
}

/** The clinic's own schedule. */
export const clinicOwner = (clinicId: string): ScheduleOwner => ({ clinicId, providerId: null });

/** The stored scope of an owner's rows. */
export const scopeOf = (owner: ScheduleOwner) => (owner.providerId ? ("provider" as const) : ("clinic" as const));

/** The availability-cache scope an owner's changes invalidate: the provider, or the whole clinic. */
export const availabilityScopeOf = (owner: ScheduleOwner) => owner.providerId ?? owner.clinicId;

/** "Rows of this owner" for a table with clinic_id and provider_id columns. */
export function ownedBy(
  owner: ScheduleOwner,
  columns: { clinicId: AnyColumn; providerId: AnyColumn },
): SQL | undefined {
  return and(
    eq(columns.clinicId, owner.clinicId),
    owner.providerId ? eq(columns.providerId, owner.providerId) : isNull(columns.providerId),
  );
}
