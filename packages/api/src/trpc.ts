import { initTRPC } from "@trpc/server";
import superjson from "superjson";
import { z } from "zod";
import type { Context } from "./context.ts";
import { type DomainCode, DomainError, toDomainError, validationFailed } from "./errors.ts";
import { ClinicGate, type MinRole, authorizeClinic, authorizeOnlineBooking } from "./modules/access/index.ts";
import type { RateLimit } from "./modules/ratelimit/index.ts";

/** How a procedure is exposed under /v1 (read by the REST adapter and the OpenAPI generator). */
export interface RestRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Fastify-style path, e.g. `/v1/clinics/:clinic_id`. */
  path: string;
  /**
   * Success status; default 200. "201 or 200" is a PUT that creates or replaces: 201 when the
   * answered resource was just created (its created_at equals its updated_at), 200 otherwise.
   * "201 or 200 for a dry run": 201, or 200 when the answer says `dry_run: true`.
   */
  status?: 200 | 201 | 202 | 204 | "201 or 200" | "201 or 200 for a dry run";
  /** Input fields read from the query string on POST/PATCH/DELETE (GET reads all from the query). */
  query?: readonly string[];
  /** Request headers mapped onto input fields, e.g. `{ "idempotency-key": "idempotency_key" }`. */
  headers?: Readonly<Record<string, string>>;
  summary: string;
  tags: readonly string[];
  /** The answer's content type when it is not JSON (the procedure then answers the body as a string). */
  contentType?: string;
  /**
   * The answer may also be CSV (§20, docs/reports.md#csv): the array `rows` of the JSON answer, one
   * line each, columns in the order of its row schema, chosen by `Accept: text/csv`; `preferred`
   * is the type answered when Accept prefers neither. `filename` (Content-Disposition) may name
   * input fields in braces, e.g. `utilization_{from}_{to}.csv`.
   */
  csv?: {
    rows: string;
    filename: string;
    preferred: "json" | "csv";
    /**
     * The REST answer, JSON or CSV, is written from this twin procedure's text chunks as they come
     * (docs/reports.md#streaming): the same input plus `format`, yielding the answer's text; it must
     * check what this procedure checks. Its first chunk is awaited before the status is sent, so a
     * refusal is still a 4xx.
     */
    stream?: string;
  };
  /**
   * The answer may also be a FHIR R4 resource (§21 X1, docs/patient-data.md#the-fhir-form), chosen
   * by `Accept: application/fhir+json`: names the server's mapping of the JSON answer.
   */
  fhir?: "patient-export";
  /** Domain error codes this route answers, beyond the ones every route may answer. */
  errors?: readonly DomainCode[];
  /**
   * An availability answer (V1, or O3 for `online`): served from the cache by the adapter's fast
   * path when it can (`fastAvailability`), with `ETag` and 304 (docs/performance.md#availability).
   */
  fastAvailability?: "member" | "online";
  /**
   * An answer the caller may keep but must revalidate (§17): `ETag` (the answer's hash),
   * `Cache-Control: private, no-cache`, and 304 for a current `If-None-Match`. Implied by
   * `fastAvailability`.
   */
  revalidate?: true;
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

/** Every procedure: failures leave as contract errors (constraint violations included). */
export const publicProcedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toDomainError(result.error);
  return result;
});

/** Requires an authenticated caller. */
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user)
    throw new DomainError("UNAUTHENTICATED", ctx.authError ?? "authentication required: send the access_token cookie");
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/**
 * Booking writes (staff book B1 and reschedule B5; a patient books O4, cancels U3, moves U4) count against the caller's per-minute limit, shared by every
 * server process through the database; 429 RATE_LIMITED past it.
 */
const observeBookingWrite = t.middleware(async ({ ctx, next, path }) => {
  const result = await next();
  ctx.observer.bookingWrite(path, result.ok ? "ok" : toDomainError(result.error).domainCode);
  return result;
});

export const bookingWriteProcedure = protectedProcedure.use(observeBookingWrite);

/**
 * The caller's booking-write limit, which a booking-write procedure hands to its module function:
 * it is counted where the clinic is known, in the first statement of the write on the clinic's
 * shard (docs/performance.md#the-booking-path).
 */
export function bookingWritesOf(ctx: { user: { id: string }; limits: { bookingWritesPerMinute: number } }): RateLimit {
  return { key: `booking-writes:${ctx.user.id}`, max: ctx.limits.bookingWritesPerMinute, windowMs: 60_000 };
}

const clinicIdInput = z.object({ clinic_id: z.uuid() });

/**
 * A procedure in the context of one clinic named by the input's `clinic_id`, callable by members
 * with at least `minRole`. Adds `ctx.clinic` and `ctx.membership`.
 */
export function clinicProcedure(minRole: MinRole, base: typeof protectedProcedure = protectedProcedure) {
  return base.use(async ({ ctx, next, getRawInput }) => {
    const { clinic, membership } = await authorizeClinic(ctx.db, ctx.user, await clinicIdOf(getRawInput), minRole);
    return next({ ctx: { ...ctx, clinic, membership } });
  });
}

/**
 * A clinic procedure whose first read decides its authorization (a booking, B1; docs/performance.md#authorized-by-the-read):
 * adds `ctx.gate` (ClinicGate) instead of `ctx.clinic`, and no statement runs before the handler's
 * read. The same rule and answers as `clinicProcedure`: a request that fails before its read decided
 * (its input refused, a check before the read) is decided by authorizeClinic then, and its 403 or
 * 404 is the answer rather than the failure, as when the middleware decided first.
 */
export function clinicProcedureInRead(minRole: MinRole, base: typeof protectedProcedure = protectedProcedure) {
  return base.use(async ({ ctx, next, getRawInput }) => {
    const gate = new ClinicGate(ctx.db, ctx.user, await clinicIdOf(getRawInput), minRole);
    const result = await next({ ctx: { ...ctx, gate } });
    if (!result.ok && !gate.decided) await gate.decide();
    return result;
  });
}

/** The clinic named by `clinic_id`, parsed from the raw input (400 without a valid one). */
async function clinicIdOf(getRawInput: () => Promise<unknown>): Promise<string> {
  const parsed = clinicIdInput.safeParse(await getRawInput());
  if (!parsed.success) throw validationFailed("clinic_id", "a clinic UUID is required");
  return parsed.data.clinic_id.toLowerCase();
}

/** The clinic named by `clinic_id`, when it takes online bookings; 404 for any other (not revealed). */
const onlineClinic = t.middleware(async ({ ctx, next, getRawInput }) => {
  const clinic = await authorizeOnlineBooking(ctx.db, await clinicIdOf(getRawInput));
  return next({ ctx: { clinic } });
});

/**
 * A patient procedure of the clinic named by `clinic_id`: any authenticated user, for a clinic
 * that takes online bookings; 404 for any other clinic id (its existence is not revealed).
 * Adds `ctx.clinic`.
 */
export function onlineBookingProcedure(base: typeof protectedProcedure = protectedProcedure) {
  return base.use(onlineClinic);
}

/**
 * A procedure of an online-booking clinic open to anyone, signed in or not (§15 guests: O1–O3,
 * a guest's O4): `ctx.user` may be null. Adds `ctx.clinic`.
 */
export const guestBookingProcedure = publicProcedure.use(onlineClinic);

/** O4, signed in or a guest's: a booking write of an online-booking clinic, reported like the others. */
export const guestBookingWriteProcedure = guestBookingProcedure.use(observeBookingWrite);

/**
 * A guest's write (O4 without a token, a manage link's change) counts against its client address's
 * limit (§15; 429 RATE_LIMITED past it), keyed by the address's hash: no raw address is stored.
 */
export function guestWritesOf(ctx: { clientKey: () => string; limits: { guestWritesPerMinute: number } }): RateLimit {
  return {
    key: `guest-writes:${ctx.clientKey()}`,
    max: ctx.limits.guestWritesPerMinute,
    windowMs: 60_000,
  };
}
