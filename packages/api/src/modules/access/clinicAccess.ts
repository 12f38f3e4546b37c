import { and, eq, sql } from "drizzle-orm";
import { clinicMembers, clinics, type Db } from "@clinic/db";
import { forbidden, notFound } from "../../errors.ts";
import { parseVersions, versionsOfClinicSql } from "../availability/index.ts";
import { type MinRole, hasRole } from "./roles.ts";

/** Who is asking: the authenticated caller as the access rules see them. */
export interface Caller {
  id: string;
  isAdmin: boolean;
}

/** The clinic a request works in, as authorised. */
export interface ClinicScope {
  id: string;
  name: string;
  timezone: string;
  /**
   * Availability versions of the clinic's scopes, read in the same statement as the membership
   * (so a cached availability answer costs one database round trip).
   */
  versions: Map<string, number>;
}

/** The caller's membership in that clinic (null for a global ADMIN who is not a member). */
export interface Membership {
  role: string;
  isProvider: boolean;
  status: "approved" | "pending" | "suspended";
}

/**
 * The clinic and the caller's membership in one prepared statement: it runs on every
 * clinic-scoped request, so the SQL is built once per database handle, not per request.
 */
function buildMembershipQuery(db: Db) {
  return db
    .select({
      id: clinics.id,
      name: clinics.name,
      timezone: clinics.timezone,
      role: clinicMembers.clinicRole,
      isProvider: clinicMembers.isProvider,
      status: clinicMembers.status,
      // Every table is filtered by the clinic itself, not only through the join, so that a
      // distributed database runs the statement on the clinic's one node (docs/scale-out.md).
      versions: versionsOfClinicSql(sql.placeholder("clinicId")),
    })
    .from(clinics)
    .leftJoin(
      clinicMembers,
      and(eq(clinicMembers.clinicId, sql.placeholder("clinicId")), eq(clinicMembers.userId, sql.placeholder("userId"))),
    )
    .where(eq(clinics.id, sql.placeholder("clinicId")))
    .limit(1)
    .prepare("authorize_clinic");
}
const membershipQueries = new WeakMap<Db, ReturnType<typeof buildMembershipQuery>>();
function membershipQuery(db: Db): ReturnType<typeof buildMembershipQuery> {
  let query = membershipQueries.get(db);
  if (!query) {
    query = buildMembershipQuery(db);
    membershipQueries.set(db, query);
  }
  return query;
}

/**
 * Loads the clinic and the caller's membership; refuses with 403 when the caller is not a member
 * (for any clinic id, existing or not) or ranks below `minRole`. A global ADMIN passes, and gets
 * 404 for a clinic that does not exist.
 */
export async function authorizeClinic(
  db: Db,
  caller: Caller,
  clinicId: string,
  minRole: MinRole,
): Promise<{ clinic: ClinicScope; membership: Membership | null }> {
  const rows = await membershipQuery(db).execute({ clinicId, userId: caller.id });
  const row = rows[0];
  const membership = decideClinicAccess(caller, row, minRole);
  // (decideClinicAccess refused a missing clinic already; this tells the compiler.)
  if (!row) throw notFound("clinic");
  return {
    clinic: { id: row.id, name: row.name, timezone: row.timezone, versions: parseVersions(row.versions) },
    membership,
  };
}

/** The caller's membership row as the access rules read it: nulls when the caller is no member. */
export interface MembershipRow {
  role: string | null;
  isProvider: boolean | null;
  status: "approved" | "pending" | "suspended" | null;
}

/**
 * The one rule of clinic access (authorizeClinic, and a booking's read that authorizes it,
 * ClinicGate): refuses with 403 when the caller is not a member (for any clinic id, existing or
 * not) or ranks below `minRole`; a global ADMIN passes, and gets 404 for a clinic that does not
 * exist (`row` undefined). Answers the membership (null for an ADMIN who is not a member).
 */
export function decideClinicAccess(
  caller: Caller,
  row: MembershipRow | undefined,
  minRole: MinRole,
): Membership | null {
  const membership: Membership | null =
    row?.role != null && row.isProvider != null && row.status != null
      ? { role: row.role, isProvider: row.isProvider, status: row.status }
      : null;
  if (caller.isAdmin) {
    if (!row) throw notFound("clinic");
  } else {
    if (!row || !membership) throw forbidden("you are not a member of this clinic");
    if (!hasRole(membership.role, minRole)) {
      throw forbidden(`this action needs the ${minRole} role in the clinic`);
    }
  }
  return membership;
}

/** A clinic that takes online bookings, as its patient routes see it. */
export interface OnlineClinic extends ClinicScope {
  patientCancelCutoffMin: number;
  maxOpenBookingsPerPatient: number;
}

function buildOnlineClinicQuery(db: Db) {
  return db
    .select({
      id: clinics.id,
      name: clinics.name,
      timezone: clinics.timezone,
      patientCancelCutoffMin: clinics.patientCancelCutoffMin,
      maxOpenBookingsPerPatient: clinics.maxOpenBookingsPerPatient,
      // Named by the clinic itself, not by the outer row: a correlated filter ran on every shard of
      // a distributed database (32 tasks), this one on the clinic's node (docs/scale-out.md).
      versions: versionsOfClinicSql(sql.placeholder("clinicId")),
    })
    .from(clinics)
    .where(and(eq(clinics.id, sql.placeholder("clinicId")), eq(clinics.onlineBooking, true)))
    .limit(1)
    .prepare("authorize_online_booking");
}
const onlineClinicQueries = new WeakMap<Db, ReturnType<typeof buildOnlineClinicQuery>>();

/**
 * The clinic of a patient route: any authenticated user may use it when the clinic takes online
 * bookings; for any other clinic id, existing or not, 404 (its existence is not revealed, also not
 * to its members).
 */
export async function authorizeOnlineBooking(db: Db, clinicId: string): Promise<OnlineClinic> {
  let query = onlineClinicQueries.get(db);
  if (!query) {
    query = buildOnlineClinicQuery(db);
    onlineClinicQueries.set(db, query);
  }
  const [row] = await query.execute({ clinicId });
  if (!row) throw notFound("clinic");
  return { ...row, versions: parseVersions(row.versions) };
}
