// Booking a series (R1): the rule expanded in the clinic's zone, one read of the whole range, each
// occurrence checked by the slot engine like B1, then one write that books them all in one
// transaction (clinic_book_series, drizzle/0011_series_groups.sql; docs/series.md).
import { z } from "zod";
import type { BookingAnswer, Db, SeriesMode } from "@clinic/db";
import { expandRrule, parseRrule } from "../../domain/rrule.ts";
import { dayLoadKey, localDayLoad } from "../../domain/dayLoad.ts";
import { explainStart } from "../../domain/slots.ts";
import { formatLocal, localDateOf } from "../../domain/timezone.ts";
import { domainCodes } from "../../errorCodes.ts";
import { DomainError, validationFailed } from "../../errors.ts";
import { checkAnswers } from "../../schemas/questions.ts";
import { type ScheduleContext, assertCandidate, readScheduleContext, reasonDetail } from "../availability/index.ts";
import {
  type PatientInput,
  WriteAttempts,
  callClinicFunction,
  lostRace,
  occupancyFields,
  rankFree,
  requestHash,
  resourcesWanted,
  scheduleOf,
} from "../booking/index.ts";
import type { RateLimit } from "../ratelimit/index.ts";
import { rateLimited, rateWindow } from "../ratelimit/index.ts";
import { type OccurrenceConflict, type SeriesPreview, type SeriesView } from "./view.ts";
import { seriesFromJson } from "./read.ts";

const HOUR = 3_600_000;
/** At most this many occurrences per series (COUNT's limit, also for UNTIL). */
const MAX_OCCURRENCES = 104;
/** A series spans at most two years (UNTIL's limit, also for COUNT): 731 days and a DST hour. */
const MAX_SPAN_MS = 731 * 24 * HOUR + HOUR;
/** The longest buffer a service may have (minutes): how far around a start other bookings matter. */
const MAX_BUFFER_MIN = 240;

export interface SeriesRequest {
  clinicId: string;
  timeZone: string;
  userId: string;
  serviceId: string;
  start: Date;
  rrule: string;
  providerId?: string | undefined;
  patient: PatientInput;
  patientUserId?: string | undefined;
  notes?: string | undefined;
  /** `{key: value}` answering the service's questions (§19), once for every occurrence. */
  answers?: Record<string, unknown> | undefined;
  mode: SeriesMode;
  dryRun: boolean;
  idempotencyKey?: string | undefined;
  rateLimit?: RateLimit | undefined;
}

/** One occurrence as checked: free providers in the order the any-provider rule tries them, or why not. */
interface Checked {
  start: number;
  end: number;
  order: string[];
  reasons: OccurrenceConflict["reasons"];
}

const writeSchema = z.union([
  z.object({ series: z.record(z.string(), z.unknown()), replayed: z.boolean() }),
  z.object({ error: z.enum(domainCodes), detail: z.string(), extra: z.record(z.string(), z.unknown()) }),
  z.object({ stale: z.literal(true) }),
]);

/** The starts of the rule from `start` in the clinic's zone (400 naming the part of a bad rule). */
export function occurrencesOf(rrule: string, start: Date, timeZone: string): number[] {
  const pathOf = (part: string) => (part === "rrule" ? "rrule" : `rrule.${part}`);
  const parsed = parseRrule(rrule);
  if (!parsed.ok) throw validationFailed(pathOf(parsed.part), parsed.message);
  if (start.getTime() % 60_000 !== 0) throw validationFailed("start", "must be a whole minute");
  const local = formatLocal(start.getTime(), timeZone);
  const minutes = Number(local.slice(11, 13)) * 60 + Number(local.slice(14, 16));
  const expanded = expandRrule(parsed.rule, { date: localDateOf(start.getTime(), timeZone), minutes }, timeZone);
  if (!expanded.ok) throw validationFailed(pathOf(expanded.part), expanded.message);
  const starts = expanded.occurrences.map((o) => o.startMs);
  // The second pass through a fall-back hour has no wall-clock time of its own to repeat.
  if (starts[0] !== start.getTime())
    throw validationFailed("start", `${local} occurs twice that night; the series repeats its first, earlier instant`);
  // COUNT caps the number, UNTIL the span: each series keeps to both.
  if (starts.length > MAX_OCCURRENCES)
    throw validationFailed(
      "rrule.UNTIL",
      `gives ${String(starts.length)} occurrences; a series has at most ${String(MAX_OCCURRENCES)}`,
    );
  const last = starts[starts.length - 1] ?? start.getTime();
  if (last > start.getTime() + MAX_SPAN_MS)
    throw validationFailed("rrule.COUNT", "reaches more than 2 years past the start; a series spans at most 2 years");
  return starts;
}

/**
 * Books a series, or with `dryRun` says what it would book. all_or_nothing: one occurrence that
 * cannot be booked refuses all (409 SLOT_UNAVAILABLE with `conflicts`); skip_unavailable: those are
 * listed in `skipped` (409 when none can be booked). An Idempotency-Key replays the series it made.
 */
export async function bookSeries(
  db: Db,
  request: SeriesRequest,
  now: Date,
): Promise<{ series: SeriesView; replayed: boolean } | SeriesPreview> {
  const starts = occurrencesOf(request.rrule, request.start, request.timeZone);
  const idem =
    request.idempotencyKey === undefined || request.dryRun
      ? null
      : {
          key: request.idempotencyKey,
          hash: requestHash([
            "series",
            request.serviceId,
            request.start.toISOString(),
            request.rrule,
            request.providerId ?? null,
            request.mode,
            request.patient.name,
            request.patient.email ?? null,
            request.patient.phone_e164 ?? null,
            request.notes ?? null,
            request.patientUserId ?? null,
            request.answers ?? null,
          ]),
        };
  const seriesOf = (context: ScheduleContext) => ({
    service_id: request.serviceId,
    provider_id: seriesProvider(request, context),
    rrule: request.rrule,
    start: request.start.toISOString(),
    mode: request.mode,
    patient_name: request.patient.name,
    patient_email: request.patient.email ?? null,
    patient_phone: request.patient.phone_e164 ?? null,
    patient_user_id: request.patientUserId ?? null,
    notes: request.notes ?? null,
  });
  for (const attempts = new WriteAttempts(); attempts.next();) {
    let context: ScheduleContext;
    let checked: Checked[];
    let answers: BookingAnswer[];
    try {
      context = await readRange(db, request, starts, attempts.first ? request.rateLimit : undefined, now);
      answers = checkAnswers(context.service.questions, request.answers);
      checked = checkAll(context, request, starts, now);
    } catch (error) {
      if (error instanceof DomainError && idem !== null && error.domainCode !== "RATE_LIMITED")
        return write(db, request.clinicId, { user_id: request.userId, idem, refuse: refusalOf(error) }, error);
      throw error;
    }
    const conflicts = checked
      .filter((c) => c.order.length === 0)
      .map((c) => ({ start: new Date(c.start), reasons: c.reasons }));
    if (request.dryRun) return previewOf(request, context, checked, conflicts);
    if (conflicts.length > 0 && (request.mode === "all_or_nothing" || conflicts.length === checked.length)) {
      const refusal = new DomainError(
        "SLOT_UNAVAILABLE",
        request.mode === "all_or_nothing"
          ? `${String(conflicts.length)} of the series' ${String(checked.length)} occurrences cannot be booked; nothing was booked`
          : "none of the series' occurrences can be booked; nothing was booked",
        { extra: { conflicts: conflicts.map((c) => ({ ...c, start: c.start.toISOString() })) } },
      );
      if (idem === null) throw refusal;
      return write(db, request.clinicId, { user_id: request.userId, idem, refuse: refusalOf(refusal) }, refusal);
    }
    const written = await write(db, request.clinicId, {
      user_id: request.userId,
      idem,
      now: now.toISOString(),
      series: seriesOf(context),
      answers,
      skipped: conflicts.map((c) => ({ ...c, start: c.start.toISOString() })),
      schedule: scheduleOf(
        context,
        request.clinicId,
        context.candidates.map((c) => c.userId),
      ),
      occurrences: checked
        .filter((c) => c.order.length > 0)
        .map((c) => ({
          ...occupancyFields(new Date(c.start), context.service),
          candidates: c.order,
          resources: resourcesWanted(context, new Date(c.start)),
          schedule: scheduleOf(context, request.clinicId, c.order),
        })),
      ...attempts.retryFields,
    });
    if (typeof written !== "string") return written;
    await attempts.after(db, written);
  }
  throw new DomainError("CONFLICT", "the schedule kept changing while booking the series; retry");
}

const refusalOf = (error: DomainError) => ({ code: error.domainCode, detail: error.message, extra: error.extra ?? {} });

/** One read of everything the check of every start needs (counting the caller's write first). */
async function readRange(
  db: Db,
  request: SeriesRequest,
  starts: readonly number[],
  rateLimit: RateLimit | undefined,
  now: Date,
): Promise<ScheduleContext> {
  const first = starts[0] ?? request.start.getTime();
  const last = starts[starts.length - 1] ?? first;
  const context = await readScheduleContext(db, {
    clinicId: request.clinicId,
    timeZone: request.timeZone,
    fromDate: localDateOf(first, request.timeZone),
    toDate: localDateOf(last, request.timeZone),
    from: new Date(first - MAX_BUFFER_MIN * 60_000 - 24 * HOUR),
    to: new Date(last + MAX_BUFFER_MIN * 60_000 + 48 * HOUR),
    serviceId: request.serviceId,
    providerId: request.providerId,
    rate: rateLimit ? rateWindow(rateLimit, now) : null,
    now,
  });
  if (context === "rate limited") throw rateLimited(rateLimit ?? { key: "", max: 0, windowMs: 60_000 }, now);
  const { service, candidates } = context;
  if (!service.isActive) throw new DomainError("SERVICE_INACTIVE", "the service is inactive and cannot be booked");
  assertCandidate(service, request.providerId, candidates);
  return context;
}

/**
 * Each start checked by the engine's per-start explanation (the rules V1 lists slots by): the free
 * candidates ranked like B1 (fewest appointments that local date, then name), or every
 * candidate's reasons.
 */
function checkAll(context: ScheduleContext, request: SeriesRequest, starts: readonly number[], now: Date): Checked[] {
  const schedule = { ...context.schedule, nowMs: now.getTime() };
  const names = new Map(context.candidates.map((c) => [c.userId, c]));
  // This clinic's appointments per provider and local date, for the any-provider rule.
  const load = localDayLoad(context.schedule.providers, request.timeZone);
  return starts.map((start) => {
    const explanation = explainStart(schedule, start);
    const date = explanation.date;
    const free = new Set(explanation.providers.filter((p) => p.reasons.length === 0).map((p) => p.providerId));
    const order = rankFree(context.candidates, free, (id) => load.get(dayLoadKey(id, date)) ?? 0);
    const reasons =
      order.length > 0
        ? []
        : explanation.providers.flatMap((p) =>
            p.reasons.map((r) => ({
              code: r.code,
              detail: reasonDetail(
                r,
                context.service,
                request.timeZone,
                date,
                names.get(p.providerId)?.status ?? "",
                now,
              ),
              provider_id: p.providerId,
            })),
          );
    return { start, end: explanation.end, order, reasons };
  });
}

/**
 * The series' provider (§14 R1): the one asked for, else the service's own when it names one (every
 * occurrence is booked with them); null when the occurrences go to whoever is free.
 */
const seriesProvider = (request: SeriesRequest, context: ScheduleContext): string | null =>
  request.providerId ?? context.service.providerId ?? null;

function previewOf(
  request: SeriesRequest,
  context: ScheduleContext,
  checked: readonly Checked[],
  conflicts: OccurrenceConflict[],
): SeriesPreview {
  const bookable = request.mode === "all_or_nothing" ? conflicts.length === 0 : conflicts.length < checked.length;
  return {
    dry_run: true,
    clinic_id: request.clinicId,
    service_id: request.serviceId,
    provider_id: seriesProvider(request, context),
    rrule: request.rrule,
    start: request.start,
    mode: request.mode,
    patient: {
      name: request.patient.name,
      email: request.patient.email ?? null,
      phone_e164: request.patient.phone_e164 ?? null,
    },
    patient_user_id: request.patientUserId ?? null,
    notes: request.notes ?? null,
    // Exactly what the write would book (issue 46): every start when it books all, the free ones
    // when skip_unavailable books some, none when it would refuse. The others are in `conflicts`.
    occurrences: (bookable ? checked.filter((c) => c.order.length > 0) : []).map((c) => ({
      start: new Date(c.start),
      end: new Date(c.end),
      start_local: formatLocal(c.start, request.timeZone),
      bookable: true,
      provider_id: c.order[0] ?? null,
      reasons: c.reasons,
    })),
    bookable,
    conflicts,
    // What the write would leave out: skip_unavailable's conflicts when it books; nothing otherwise.
    skipped: request.mode === "skip_unavailable" && bookable ? conflicts : [],
  };
}

/**
 * The write's answer: the series, or its error thrown (`refusal` when it only replays); "stale" when
 * the schedule changed, "lost" when the database broke the write up in a race (a deadlock or a
 * serialization failure: nothing was written; read again, [WriteAttempts]).
 */
async function write(
  db: Db,
  clinicId: string,
  p: Record<string, unknown>,
  refusal: DomainError,
): Promise<{ series: SeriesView; replayed: boolean }>;
async function write(
  db: Db,
  clinicId: string,
  p: Record<string, unknown>,
): Promise<{ series: SeriesView; replayed: boolean } | "stale" | "lost">;
async function write(
  db: Db,
  clinicId: string,
  p: Record<string, unknown>,
  refusal?: DomainError,
): Promise<{ series: SeriesView; replayed: boolean } | "stale" | "lost"> {
  let raw: unknown;
  try {
    raw = await callClinicFunction(db, "clinic_book_series", clinicId, p);
  } catch (error) {
    if (!lostRace(error)) throw error;
    if (refusal) throw refusal;
    return "lost";
  }
  const answer = writeSchema.parse(raw);
  if ("stale" in answer) {
    if (refusal) throw refusal;
    return "stale";
  }
  if ("error" in answer) throw new DomainError(answer.error, answer.detail, { extra: answer.extra });
  return { series: seriesFromJson(answer.series), replayed: answer.replayed };
}
