// The fast path of a cached availability answer (V1, O3; docs/performance.md#availability): one
// lookup — the clinic's zone, the caller's membership or the clinic's online booking, and the
// versions of only the scopes the cached answer depends on, read for many requests by one
// statement (batch.ts) — then the answer sliced from its pre-serialized slots, or
// 304 when the caller's ETag is current. Anything it cannot answer from the cache (a miss, a stale
// answer, a caller who is refused, an input that is not plain) it leaves to the procedure, which
// gives the full answer or the error.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { type Db, hasCitus } from "@clinic/db";
import { offeredRange } from "../../domain/slots.ts";
import { StatementBatcher } from "./batch.ts";
import type { AvailabilityCache, CachedAvailability } from "./cache.ts";
import { cacheKeyOf, computeAvailability } from "./cached.ts";
import { resolveDateRange } from "./range.ts";
import { rulesOf } from "./service.ts";
import { parseVersions, versionKeyOf } from "./versions.ts";

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
  /** The most slots one answer may hold (AVAILABILITY_MAX_SLOTS). */
  maxSlots: number;
  /** The request's If-None-Match. */
  ifNoneMatch?: string | undefined;
}

/** A fast answer: the body (JSON, UTF-8) and its tag, or 304 for a current tag. */
export type FastAvailabilityAnswer = { status: 200; etag: string; body: Buffer } | { status: 304; etag: string };

/** What a hit needs from the database: the clinic's zone, who the caller is there, the versions. */
interface FastRow {
  timezone: string;
  onlineBooking: boolean;
  /** The caller's role in the clinic; null when not a member. */
  role: string | null;
  /** `scope=version,…` of only the scopes asked for (versionsOfClinicSql's format). */
  versions: string;
}

interface Lookup {
  clinicId: string;
  userId: string;
  /** Comma-separated scope ids; empty for every scope of the clinic. */
  scopes: string;
}

/**
 * The lookups of one batch (`StatementBatcher`: one turn's requests, sent after all of them
 * arrived) by one statement. Ids are UUIDs and scope lists comma-separated UUIDs (the
 * caller checked the ids), so `,` and `|` separate them safely: three text parameters whatever
 * the batch's size. Each clinic's rows are still filtered by that clinic.
 */
function lookupBatcher(db: Db): StatementBatcher<Lookup, FastRow> {
  const query = buildLookupQuery(db);
  return new StatementBatcher<Lookup, FastRow>(async (batch) => {
    const result = await query.execute({
      clinicIds: batch.map((l) => l.clinicId).join(","),
      userIds: batch.map((l) => l.userId).join(","),
      scopes: batch.map((l) => l.scopes).join("|"),
    });
    const rows = new Map(result.map((row) => [row.i, row]));
    return batch.map((_, k) => rows.get(k + 1));
  });
}
const batchers = new WeakMap<Db, StatementBatcher<Lookup, FastRow>>();

/**
 * The lookups of a batch: one row per request, in the batch's order (`i`, from 1), by
 * `availability_fast_lookups` (drizzle/0018_fast_lookups.sql: planned once per connection; each
 * request's clinic found by its primary key, its member and version rows by that clinic), called
 * by a named prepared statement.
 */
function buildLookupQuery(db: Db) {
  return db
    .select({
      i: sql<number>`l.i`,
      timezone: sql<string>`l.timezone`,
      onlineBooking: sql<boolean>`l.online_booking`,
      role: sql<string | null>`l.role`,
      versions: sql<string>`l.versions`,
    })
    .from(
      sql`availability_fast_lookups(${sql.placeholder("clinicIds")}::text, ${sql.placeholder("userIds")}::text, ${sql.placeholder("scopes")}::text) as l`,
    )
    .prepare("fast_availability_lookups");
}

/** Whether the database is a Citus cluster, asked once per handle. */
const citus = new WeakMap<Db, Promise<boolean>>();
function onCitus(db: Db): Promise<boolean> {
  let known = citus.get(db);
  if (!known) {
    known = hasCitus(db);
    citus.set(db, known);
    // A failed question (the database away) is asked again next time.
    known.catch(() => citus.delete(db));
  }
  return known;
}

/** The date range and the cache key of a request in a zone; null for a range the procedure refuses. */
function keyOf(
  request: FastAvailabilityRequest,
  timeZone: string,
): { range: { fromDate: string; toDate: string }; key: string } | null {
  let range: { fromDate: string; toDate: string };
  try {
    range = resolveDateRange(request.from, request.to, timeZone, request.now);
  } catch {
    return null;
  }
  const key = cacheKeyOf({
    clinicId: request.clinicId,
    serviceId: request.serviceId,
    providerId: request.providerId,
    timeZone,
    ...range,
  });
  return { range, key };
}

/** A lower-case UUID: the only ids a batch's statement is given (one odd id would fail the whole batch). */
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The answer's slots as JSON bytes, made once per cached answer (the same text the procedure's
 * answer serializes to): each slot as two parts, the slot up to its id list and the id list with
 * the closing brace. A run of slots with the same providers (an any-provider service: often every
 * provider on every slot) shares one encoded id list. An answer is then joined from buffers, not
 * from strings: a large answer's text would be flattened, encoded for its hash and encoded again
 * for the socket.
 */
function fragmentsOf(answer: CachedAvailability): Buffer[] {
  if (answer.fragments) return answer.fragments;
  let ids: readonly string[] = [];
  let remaining: number | undefined;
  let idsJson = Buffer.from("[]}");
  const fragments: Buffer[] = [];
  for (const s of answer.slots) {
    if (!sameIds(s.providerIds, ids) || s.remaining !== remaining) {
      ids = s.providerIds;
      remaining = s.remaining;
      idsJson = Buffer.from(`${JSON.stringify(ids)}${remaining === undefined ? "" : `,"remaining":${remaining}`}}`);
    }
    fragments.push(
      Buffer.from(
        `{"start":"${iso(s.start)}","end":"${iso(s.end)}","start_local":${JSON.stringify(s.startLocal)},"provider_ids":`,
      ),
      idsJson,
    );
  }
  answer.fragments = fragments;
  return fragments;
}

const comma = Buffer.from(",");
const slotsEnd = Buffer.from("]}");

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The tag of an answer: the hash of its JSON text. The fast path and the procedure's answer
 * (the same bytes) get the same tag, on every process; a 304 of the fast path needs no body once
 * the tag of that cut of the answer is known.
 */
export function etagOf(body: string | Buffer): string {
  return `"${createHash("sha1").update(body).digest("base64url")}"`;
}

/** Whether an If-None-Match header names this tag (a list, weak or strong, or `*`). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/**
 * The answer of V1/O3 through the cache, or undefined when the procedure must answer. A hit costs
 * the lookup; a miss the lookup and the read of the range (the procedure's own two statements,
 * without its validation of a known-good answer, its Date objects or its serialization: the slots
 * are kept as JSON fragments). The tag is the hash of the answer's text (`etagOf`), remembered per
 * cut of a cached answer: it changes whenever the answer does. Whatever the procedure would refuse
 * (not a member, no online booking, an unknown or inactive service, a provider who is not one, too
 * many slots, a range it does not take) is left to it, which answers the error.
 */
export async function fastAvailability(
  db: Db,
  cache: AvailabilityCache,
  request: FastAvailabilityRequest,
): Promise<FastAvailabilityAnswer | undefined> {
  if (!uuid.test(request.clinicId) || !uuid.test(request.userId)) return undefined;
  // On Citus the batch's statement (rows of several clinics joined to a list) cannot be planned:
  // the procedure answers there, with its one statement routed to the clinic's shard.
  if (await onCitus(db)) return undefined;
  // The zone the clinic's answers were last computed in: a guess, checked by the lookup.
  const guess = cache.zoneOf(request.clinicId);
  const guessed = guess === undefined ? undefined : keyOf(request, guess);
  if (guessed === null) return undefined;
  const hint = guessed ? cache.peek(guessed.key) : undefined;
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = lookupBatcher(db);
    batchers.set(db, batcher);
  }
  // The versions of the scopes the cached answer depends on; without one, of every scope of the clinic.
  const row = await batcher.lookup({
    clinicId: request.clinicId,
    userId: request.userId,
    scopes: (hint?.dependsOn ?? []).join(","),
  });
  if (!row) return undefined;
  if (request.online ? !row.onlineBooking : row.role === null) return undefined;
  const timeZone = row.timezone;
  if (guess !== undefined && guess !== timeZone) return undefined;
  const keyed = guessed ?? keyOf(request, timeZone);
  if (!keyed) return undefined;
  const { range, key } = keyed;
  const versions = parseVersions(row.versions);
  const nowMs = request.now.getTime();
  let answer = hint ? cache.get(key, versionKeyOf(versions, hint.dependsOn), nowMs) : undefined;
  if (answer) cache.noteLookup(true);
  else {
    try {
      answer = await computeAvailability(
        db,
        cache,
        {
          clinicId: request.clinicId,
          timeZone,
          serviceId: request.serviceId,
          providerId: request.providerId,
          ...range,
          now: request.now,
          maxSlots: request.maxSlots,
        },
        versions,
      );
    } catch {
      // Whatever went wrong, the procedure answers it as it always has: its own error mapping.
      return undefined;
    }
    // A computation joined late whose hold has ended meanwhile: the procedure reads anew.
    if (answer.goodUntilMs <= nowMs) return undefined;
    cache.noteLookup(false);
  }
  const { from, to } = offeredRange(answer.slots, rulesOf(answer.service), nowMs, timeZone);
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
  const fragments = fragmentsOf(answer);
  const parts: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"slots":[`)];
  for (let i = from; i < to; i++) {
    const slot = fragments[2 * i];
    const ids = fragments[2 * i + 1];
    if (!slot || !ids) break;
    if (i > from) parts.push(comma);
    parts.push(slot, ids);
  }
  parts.push(slotsEnd);
  const body = Buffer.concat(parts);
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
