import { initTRPC } from "@trpc/server";
import { and, eq, sql } from "drizzle-orm";
import superjson from "superjson";
import { z } from "zod";
import { clinicMembers, clinics, type Db } from "@clinic/db";
import type { Context } from "./context.ts";
import type { DomainCode } from "./errors.ts";
import { DomainError, forbidden, notFound, toDomainError } from "./errors.ts";

/** How a procedure is exposed under /v1 (read by the REST adapter and the OpenAPI generator). */
export interface RestRoute {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Fastify-style path, e.g. `/v1/clinics/:clinic_id`. */
  path: string;
  /** Success status; default 200. */
  status?: 200 | 201 | 204;
  /** Input fields read from the query string on POST/PATCH/DELETE (GET reads all from the query). */
  query?: readonly string[];
  /** Request headers mapped onto input fields, e.g. `{ "idempotency-key": "idempotency_key" }`. */
  headers?: Readonly<Record<string, string>>;
  summary: string;
  tags: readonly string[];
  /** Domain error codes this route answers, beyond the ones every route may answer. */
  errors?: readonly DomainCode[];
}

export interface Meta {
  rest?: RestRoute;
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error, ctx }) {
      const domain = toDomainError(error);
      const internal = domain.domainCode === "INTERNAL";
      return {
        ...shape,
        message: internal ? `internal error (request id ${ctx?.requestId ?? "unknown"})` : domain.message,
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          path: shape.data.path,
          domain_code: domain.domainCode,
          errors: domain.errors ?? null,
          extra: domain.extra ?? null,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const mergeRouters = t.mergeRouters;

/** Every procedure: failures leave as contract errors (constraint violations included). */
export const publicProcedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toDomainError(result.error);
  return result;
});

/** Requires an authenticated caller. */
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new DomainError("UNAUTHENTICATED", ctx.authError ?? "authentication required: send the access_token cookie");
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/** Clinic roles from weakest to strongest; any custom role string ranks as "member". */
export type MinRole = "member" | "STAFF" | "CLINIC_ADMIN";
const rank: Record<MinRole, number> = { member: 1, STAFF: 2, CLINIC_ADMIN: 3 };
export function roleRank(role: string): number {
  return role === "CLINIC_ADMIN" ? rank.CLINIC_ADMIN : role === "STAFF" ? rank.STAFF : rank.member;
}

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
export interface Membership {
  role: string;
  isProvider: boolean;
  status: "approved" | "pending" | "suspended";
}

const clinicIdInput = z.object({ clinic_id: z.uuid() });

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
      versions: sql<string>`(select coalesce(string_agg(v.scope_id::text || '=' || v.version::text, ','), '') from availability_versions v where v.clinic_id = ${clinics.id})`,
    })
    .from(clinics)
    .leftJoin(clinicMembers, and(eq(clinicMembers.clinicId, clinics.id), eq(clinicMembers.userId, sql.placeholder("userId"))))
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
  ctx: Pick<Context, "db"> & { user: { id: string; isAdmin: boolean } },
  clinicId: string,
  minRole: MinRole,
): Promise<{ clinic: ClinicScope; membership: Membership | null }> {
  const rows = await membershipQuery(ctx.db).execute({ clinicId, userId: ctx.user.id });
  const row = rows[0];
  const membership: Membership | null =
    row?.role != null && row.isProvider != null && row.status != null
      ? { role: row.role, isProvider: row.isProvider, status: row.status }
      : null;
  if (ctx.user.isAdmin) {
    if (!row) throw notFound("clinic");
    return { clinic: { id: row.id, name: row.name, timezone: row.timezone, versions: parseVersions(row.versions) }, membership };
  }
  if (!row || !membership) throw forbidden("you are not a member of this clinic");
  if (roleRank(membership.role) < rank[minRole]) {
    throw forbidden(`this action needs the ${minRole === "member" ? "member" : minRole} role in the clinic`);
  }
  return { clinic: { id: row.id, name: row.name, timezone: row.timezone, versions: parseVersions(row.versions) }, membership };
}

/** `scope=version,scope=version` → map. */
function parseVersions(text: string): Map<string, number> {
  const versions = new Map<string, number>();
  if (!text) return versions;
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    versions.set(pair.slice(0, at), Number(pair.slice(at + 1)));
  }
  return versions;
}

/**
 * A procedure in the context of one clinic named by the input's `clinic_id`, callable by members
 * with at least `minRole`. Adds `ctx.clinic` and `ctx.membership`.
 */
export function clinicProcedure(minRole: MinRole) {
  return protectedProcedure.use(async ({ ctx, next, getRawInput }) => {
    const parsed = clinicIdInput.safeParse(await getRawInput());
    if (!parsed.success) {
      throw new DomainError("VALIDATION_FAILED", "clinic_id: a clinic UUID is required", {
        errors: [{ path: "clinic_id", message: "a clinic UUID is required" }],
      });
    }
    const { clinic, membership } = await authorizeClinic(ctx, parsed.data.clinic_id.toLowerCase(), minRole);
    return next({ ctx: { ...ctx, clinic, membership } });
  });
}
