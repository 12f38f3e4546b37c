// The fast path of a cached availability answer (V1, O3; docs/performance.md#availability): one
// prepared statement — the clinic's zone, the caller's membership or the clinic's online booking,
// and the versions of only the scopes the cached answer depends on — then the answer sliced from
// its pre-serialized slots, or 304 when the caller's ETag is current. Anything it cannot answer
// from the cache (a miss, a stale answer, a caller who is refused, an input that is not plain) it
// leaves to the procedure, which gives the full answer or the error.
import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { type Db, clinicMembers, clinics } from "@clinic/db";
import { offeredRange } from "../../domain/slots.ts";
import type { AvailabilityCache, CachedAvailability } from "./cache.ts";
import { cacheKeyOf } from "./cached.ts";
import { resolveDateRange } from "./range.ts";
import { rulesOf } from "./service.ts";
import { parseVersions, versionKeyOf, versionsOfClinicSql } from "./versions.ts";

export interface FastAvailabilityRequest {
  userId: string;
  clinicId: string;
  serviceId: string;
  providerId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** O3: any caller, of a clinic that takes online bookings; V1: a member of the clinic. */
  online: boolean;
  now: Date;
  /** The request's If-None-Match. */
  ifNoneMatch?: string | undefined;
}

/** A fast answer: the body (JSON text) and its tag, or 304 for a current tag. */
export type FastAvailabilityAnswer = { status: 200; etag: string; body: string } | { status: 304; etag: string };

function buildQuery(db: Db) {
  return db
    .select({
      timezone: clinics.timezone,
      onlineBooking: clinics.onlineBooking,
      role: clinicMembers.clinicRole,
      // Only the scopes the cached answer depends on, each filtered by the clinic (one shard).
      versions: versionsOfClinicSql(sql.placeholder("clinicId"), sql.placeholder("scopes")),
    })
    .from(clinics)
    .leftJoin(
      clinicMembers,
      and(eq(clinicMembers.clinicId, sql.placeholder("clinicId")), eq(clinicMembers.userId, sql.placeholder("userId"))),
    )
    .where(eq(clinics.id, sql.placeholder("clinicId")))
    .limit(1)
    .prepare("fast_availability");
}
const queries = new WeakMap<Db, ReturnType<typeof buildQuery>>();

const iso = (ms: number) => new Date(ms).toISOString();

/** The answer's slots as JSON, each once (the same text the procedure's answer serializes to). */
function fragmentsOf(answer: CachedAvailability): string[] {
  answer.fragments ??= answer.slots.map((s) =>
    JSON.stringify({ start: iso(s.start), end: iso(s.end), start_local: s.startLocal, provider_ids: s.providerIds }),
  );
  return answer.fragments;
}

/**
 * The tag of an answer: the hash of its JSON text. The fast path and the procedure's answer
 * (the same bytes) get the same tag, on every process; a 304 of the fast path needs no body once
 * the tag of that cut of the answer is known.
 */
export function etagOf(body: string): string {
  return `"${createHash("sha1").update(body).digest("base64url")}"`;
}

/** Whether an If-None-Match header names this tag (a list, weak or strong, or `*`). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/**
 * The answer of V1/O3 from the cache, or undefined when the procedure must answer. The tag is the
 * hash of the answer's text (`etagOf`), remembered per cut of a cached answer: it changes whenever
 * the answer does.
 */
export async function fastAvailability(
  db: Db,
  cache: AvailabilityCache,
  request: FastAvailabilityRequest,
): Promise<FastAvailabilityAnswer | undefined> {
  const timeZone = cache.zoneOf(request.clinicId);
  if (!timeZone) return undefined;
  let range: { fromDate: string; toDate: string };
  try {
    range = resolveDateRange(request.from, request.to, timeZone, request.now);
  } catch {
    return undefined;
  }
  const key = cacheKeyOf({
    clinicId: request.clinicId,
    serviceId: request.serviceId,
    providerId: request.providerId,
    timeZone,
    ...range,
  });
  const hint = cache.peek(key);
  if (!hint) return undefined;
  let query = queries.get(db);
  if (!query) {
    query = buildQuery(db);
    queries.set(db, query);
  }
  const [row] = await query.execute({
    clinicId: request.clinicId,
    userId: request.userId,
    scopes: hint.dependsOn.join(","),
  });
  if (!row || row.timezone !== timeZone) return undefined;
  if (request.online ? !row.onlineBooking : row.role === null) return undefined;
  const versionKey = versionKeyOf(parseVersions(row.versions), hint.dependsOn);
  const answer = cache.get(key, versionKey);
  if (!answer) return undefined;
  cache.noteLookup(true);
  const { from, to } = offeredRange(answer.slots, rulesOf(answer.service), request.now.getTime(), timeZone);
  const cut = `${String(from)}.${String(to)}`;
  const known = answer.tags?.get(cut);
  if (known !== undefined && matchesEtag(request.ifNoneMatch, known)) return { status: 304, etag: known };
  const head = JSON.stringify({
    clinic_id: request.clinicId,
    service_id: answer.service.id,
    timezone: timeZone,
    duration_min: answer.service.durationMin,
    from: range.fromDate,
    to: range.toDate,
  });
  const body = `${head.slice(0, -1)},"slots":[${fragmentsOf(answer).slice(from, to).join(",")}]}`;
  const etag = known ?? etagOf(body);
  // The tags of the last few cuts of this answer (the clock moves the cut now and then).
  answer.tags ??= new Map();
  if (!answer.tags.has(cut)) {
    if (answer.tags.size >= 4) answer.tags.clear();
    answer.tags.set(cut, etag);
  }
  if (matchesEtag(request.ifNoneMatch, etag)) return { status: 304, etag };
  return { status: 200, etag, body };
}
