import { type SQL, and, asc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import { type Db, type MemberStatus, clinicMembers, closures, services, users, workHours } from "@clinic/db";
import { invalidateAvailability } from "../availability/versions.ts";
import { type ProviderAction, type ProviderState, allowedProviderActions, nextProviderState } from "../domain/providerStatus.ts";
import { DomainError } from "../errors.ts";
import { assertNoAssignedServices, memberColumns } from "../router/members.ts";
import { decodeCursor, pageOf } from "../schemas/common.ts";
import { type ClosureOutput, type WorkHourOutput, toClosure, toWorkHour } from "../schemas/schedule.ts";
import { type ServiceView, toService } from "./serviceCatalog.ts";

/** A provider as the providers list shows it: exactly the seed's fields. */
export interface ProviderView {
  /** Membership id. */
  id: string;
  /** Global user id: the value services use as provider_id. */
  user_id: string;
  full_name: string;
  email: string;
  phone_e164: string | null;
  is_provider: boolean;
  clinic_role: string;
  status: MemberStatus;
  created_at: Date;
  updated_at: Date;
}

/** The provider detail view (P2). */
export interface ProviderDetailView extends ProviderView {
  notes: string | null;
  work_hours: WorkHourOutput[];
  services: ServiceView[];
  closures: ClosureOutput[];
}

/** The member columns (a provider is a member with the flag set). */
const providerColumns = memberColumns;

interface ProviderRow {
  id: string;
  userId: string;
  fullName: string;
  email: string;
  phoneE164: string | null;
  isProvider: boolean;
  clinicRole: string;
  status: MemberStatus;
  createdAt: Date;
  updatedAt: Date;
}

const toProvider = (row: ProviderRow): ProviderView => ({
  id: row.id,
  user_id: row.userId,
  full_name: row.fullName,
  email: row.email,
  phone_e164: row.phoneE164,
  is_provider: row.isProvider,
  clinic_role: row.clinicRole,
  status: row.status,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** Members of the clinic with the provider flag, joined with their user. */
function selectProviders(db: Db, clinicId: string, ...conditions: (SQL | undefined)[]) {
  return db
    .select(providerColumns)
    .from(clinicMembers)
    .innerJoin(users, eq(users.id, clinicMembers.userId))
    .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.isProvider, true), ...conditions));
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
export async function listProviders(db: Db, query: ProviderListQuery): Promise<{ providers: ProviderView[]; next_cursor: string | null }> {
  const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
  const pattern = query.q !== undefined ? containsPattern(query.q) : undefined;
  const rows = await selectProviders(
    db,
    query.clinicId,
    query.statuses && query.statuses.length > 0 ? inArray(clinicMembers.status, [...query.statuses]) : undefined,
    pattern !== undefined
      ? sql`(search_text(${clinicMembers.fullName}) like search_text(${pattern}::text) escape '\\' or search_text(${users.email}) like search_text(${pattern}::text) escape '\\')`
      : undefined,
    query.serviceId !== undefined
      ? sql`exists (select 1 from ${services} where ${services.clinicId} = ${clinicMembers.clinicId} and ${services.id} = ${query.serviceId} and ${services.providerId} = ${clinicMembers.userId} and ${services.deletedAt} is null)`
      : undefined,
    after
      ? or(gt(clinicMembers.fullName, after[0] ?? ""), and(eq(clinicMembers.fullName, after[0] ?? ""), gt(clinicMembers.id, after[1] ?? "")))
      : undefined,
  )
    .orderBy(asc(clinicMembers.fullName), asc(clinicMembers.id))
    .limit(query.limit + 1);
  const page = pageOf(rows, query.limit, (r) => [r.fullName, r.id]);
  return { providers: page.items.map(toProvider), next_cursor: page.next_cursor };
}

/** One provider of the clinic by user id; 404 when the user is not a provider of this clinic. */
export async function getProvider(db: Db, clinicId: string, userId: string): Promise<ProviderView> {
  const [row] = await selectProviders(db, clinicId, eq(clinicMembers.userId, userId));
  if (!row) throw new DomainError("NOT_FOUND", "provider not found");
  return toProvider(row);
}

/**
 * The provider detail: the list fields plus notes, their provider-scope work hours in this
 * clinic, their assigned active services, and their closures that have not ended by `now`.
 */
export async function getProviderDetail(db: Db, clinicId: string, userId: string, now: Date): Promise<ProviderDetailView> {
  const [row] = await selectProviders(db, clinicId, eq(clinicMembers.userId, userId));
  if (!row) throw new DomainError("NOT_FOUND", "provider not found");
  const [hours, assigned, absences] = await Promise.all([
    db
      .select()
      .from(workHours)
      .where(and(eq(workHours.clinicId, clinicId), eq(workHours.scope, "provider"), eq(workHours.providerId, userId)))
      .orderBy(asc(workHours.weekday), asc(workHours.opensMin), asc(workHours.id)),
    db
      .select({
        id: services.id,
        clinicId: services.clinicId,
        name: services.name,
        durationMin: services.durationMin,
        price: services.price,
        providerId: services.providerId,
        isActive: services.isActive,
        createdAt: services.createdAt,
        updatedAt: services.updatedAt,
      })
      .from(services)
      .where(and(eq(services.clinicId, clinicId), eq(services.providerId, userId), eq(services.isActive, true), isNull(services.deletedAt)))
      .orderBy(asc(services.name), asc(services.id)),
    db
      .select()
      .from(closures)
      .where(and(eq(closures.clinicId, clinicId), eq(closures.scope, "provider"), eq(closures.providerId, userId), gt(closures.endsAt, now)))
      .orderBy(asc(closures.startsAt), asc(closures.id)),
  ]);
  return {
    ...toProvider(row),
    notes: row.notes,
    work_hours: hours.map(toWorkHour),
    services: assigned.map((s) => toService({ ...s, providerName: row.fullName })),
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
export async function transitionProvider(db: Db, clinicId: string, userId: string, action: ProviderAction): Promise<ProviderState> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ isProvider: clinicMembers.isProvider, status: clinicMembers.status })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)))
      .for("update");
    if (!row?.isProvider) throw new DomainError("NOT_FOUND", "provider not found");
    const next = nextProviderState(row.status, action);
    if (next === null) {
      const allowed = allowedProviderActions(row.status);
      throw new DomainError("INVALID_TRANSITION", `cannot ${action} a provider whose status is ${row.status} (allowed: ${allowed.join(", ")})`, {
        extra: { provider_status: row.status, allowed_actions: allowed },
      });
    }
    if (next === "removed") {
      await assertNoAssignedServices(tx, clinicId, userId);
      // "approved" is the status of every non-provider member (as members.update does); making
      // them a provider again starts over at pending.
      await tx
        .update(clinicMembers)
        .set({ isProvider: false, status: "approved", updatedAt: new Date() })
        .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)));
    } else {
      await tx
        .update(clinicMembers)
        .set({ status: next, updatedAt: new Date() })
        .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, userId)));
    }
    await invalidateAvailability(tx, clinicId, [userId]);
    return next;
  });
}
