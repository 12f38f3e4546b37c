import { type SQL, and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, type MemberStatus, clinicMembers, closures, services, workHours } from "@clinic/db";
import {
  type ProviderAction,
  type ProviderState,
  allowedProviderActions,
  nextProviderState,
} from "../../domain/providerStatus.ts";
import { DomainError, notFound } from "../../errors.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { recordChanges } from "../events/index.ts";
import { selectServices, serviceOutput, toService } from "../catalog/index.ts";
import {
  type MemberRow,
  assertNoAssignedServices,
  memberEmail,
  memberOutput,
  memberPages,
  selectMembers,
  toMember,
  refreshSharedProvider,
} from "../members/index.ts";
import { closureOutput, toClosure, toWorkHour, workHourOutput } from "../schedule/index.ts";

/** A provider as the providers list shows it: a member with the flag, without clinic_id and notes. */
export const providerOutput = memberOutput.omit({ clinic_id: true, notes: true });
export type ProviderView = z.infer<typeof providerOutput>;

/** The provider detail (P2): the list fields plus notes, hours, assigned services and closures. */
export const providerDetailOutput = providerOutput.extend({
  notes: z.string().nullable(),
  work_hours: z.array(workHourOutput),
  services: z.array(serviceOutput),
  closures: z.array(closureOutput),
});
export type ProviderDetailView = z.infer<typeof providerDetailOutput>;

const toProvider = (row: MemberRow): ProviderView => {
  const { clinic_id: _clinicId, notes: _notes, ...provider } = toMember(row);
  return provider;
};

/** Members of the clinic with the provider flag, joined with their user. */
function selectProviders(db: Db, clinicId: string, ...conditions: (SQL | undefined)[]) {
  return selectMembers(db).where(
    and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.isProvider, true), ...conditions),
  );
}

/** `text` as a LIKE pattern matching it anywhere, with `\`, `%` and `_` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface ProviderListQuery {
  clinicId: string;
  statuses?: readonly MemberStatus[] | undefined;
  /** Partial match on full_name or e-mail, case- and accent-insensitive. */
  q?: string | undefined;
  /** Only the provider assigned to this (live) service. */
  serviceId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The clinic's providers (is_provider true in THIS clinic) by full_name then id, keyset-paginated. */
export async function listProviders(
  db: Db,
  query: ProviderListQuery,
): Promise<{ providers: ProviderView[]; next_cursor: string | null }> {
  const pattern = query.q !== undefined ? containsPattern(query.q) : undefined;
  const rows = await selectProviders(
    db,
    query.clinicId,
    query.statuses && query.statuses.length > 0 ? inArray(clinicMembers.status, [...query.statuses]) : undefined,
    pattern !== undefined
      ? sql`(search_text(${clinicMembers.fullName}) like search_text(${pattern}::text) escape '\\' or search_text(${memberEmail}) like search_text(${pattern}::text) escape '\\')`
      : undefined,
    query.serviceId !== undefined
      ? sql`exists (select 1 from ${services} where ${services.clinicId} = ${clinicMembers.clinicId} and ${services.id} = ${query.serviceId} and ${services.providerId} = ${clinicMembers.userId} and ${services.deletedAt} is null)`
      : undefined,
    memberPages.after(query.cursor),
  )
    .orderBy(...memberPages.orderBy)
    .limit(query.limit + 1);
  const { items, next_cursor } = memberPages.page(rows, query.limit);
  return { providers: items.map(toProvider), next_cursor };
}

/** One provider of the clinic by user id; 404 when the user is not a provider of this clinic. */
export async function getProvider(db: Db, clinicId: string, userId: string): Promise<ProviderView> {
  const [row] = await selectProviders(db, clinicId, eq(clinicMembers.userId, userId));
  if (!row) throw notFound("provider");
  return toProvider(row);
}

/**
 * The provider detail: the list fields plus notes, their provider-scope work hours in this
 * clinic, their assigned active services, and their closures that have not ended by `now`.
 */
export async function getProviderDetail(
  db: Db,
  clinicId: string,
  userId: string,
  now: Date,
): Promise<ProviderDetailView> {
  const [row] = await selectProviders(db, clinicId, eq(clinicMembers.userId, userId));
  if (!row) throw notFound("provider");
  const [hours, assigned, absences] = await Promise.all([
    db
      .select()
      .from(workHours)
      .where(and(eq(workHours.clinicId, clinicId), eq(workHours.scope, "provider"), eq(workHours.providerId, userId)))
      .orderBy(asc(workHours.weekday), asc(workHours.opensMin), asc(workHours.id)),
    selectServices(db, clinicId)
      .where(eq(services.providerId, userId), eq(services.isActive, true))
      .orderBy(asc(services.name), asc(services.id)),
    db
      .select()
      .from(closures)
      .where(
        and(
          eq(closures.clinicId, clinicId),
          eq(closures.scope, "provider"),
          eq(closures.providerId, userId),
          gt(closures.endsAt, now),
        ),
      )
      .orderBy(asc(closures.startsAt), asc(closures.id)),
  ]);
  return {
    ...toProvider(row),
    notes: row.notes,
    work_hours: hours.map(toWorkHour),
    services: assigned.map(toService),
    closures: absences.map(toClosure),
  };
}

/**
 * Applies one lifecycle action to a provider of the clinic, in one transaction: the membership
 * row is locked first, so of two concurrent transitions the second sees the first's result
 * (and fails with INVALID_TRANSITION when it no longer applies). 404 when the user is not a
 * provider of this clinic. Leaving the providers list (reject, remove) sets is_provider false
 * and is refused with PROVIDER_HAS_SERVICES while active services are assigned; the provider's
 * work hours and closures are kept (availability only takes approved providers), so re-flagging
 * the member restores their schedule. Returns the state reached.
 */
export async function transitionProvider(
  db: Db,
  clinicId: string,
  userId: string,
  action: ProviderAction,
): Promise<ProviderState> {
  return db.transaction(async (tx) => {
    const membership = and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId));
    const [row] = await tx
      .select({ isProvider: clinicMembers.isProvider, status: clinicMembers.status })
      .from(clinicMembers)
      .where(membership)
      .for("update");
    if (!row?.isProvider) throw notFound("provider");
    const next = nextProviderState(row.status, action);
    if (next === null) {
      const allowed = allowedProviderActions(row.status);
      throw new DomainError(
        "INVALID_TRANSITION",
        `cannot ${action} a provider whose status is ${row.status} (allowed: ${allowed.join(", ")})`,
        {
          extra: { provider_status: row.status, allowed_actions: allowed },
        },
      );
    }
    if (next === "removed") {
      await assertNoAssignedServices(tx, clinicId, userId);
      // "approved" is the status of every non-provider member (as updateMember does); making
      // them a provider again starts over at pending.
      await tx.update(clinicMembers).set({ isProvider: false, status: "approved" }).where(membership);
      await refreshSharedProvider(tx, userId);
    } else {
      await tx.update(clinicMembers).set({ status: next }).where(membership);
    }
    await invalidateAvailability(tx, clinicId, [userId]);
    const [after] = await selectMembers(tx).where(membership);
    if (after)
      await recordChanges(tx, clinicId, [
        { type: "provider.status_changed", data: { ...toProvider(after), previous_status: row.status } },
      ]);
    return next;
  });
}
