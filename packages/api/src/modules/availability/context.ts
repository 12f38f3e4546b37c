// One read of everything a check or an answer needs, in one statement (clinic_schedule_context,
// drizzle/0015_schedule_known.sql; docs/performance.md): a booking's check of one start, a move's
// (with the appointment), and an availability answer's range. Its statements each see what has
// committed when they start, so it reads the versions first: what it reads after them is as new
// or newer, never older than the versions the answer is kept and checked under.
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { type Db, callClinicJsonFunction, memberStatuses } from "@clinic/db";
import { dayLoadKey } from "../../domain/dayLoad.ts";
import { localDateOf } from "../../domain/timezone.ts";
import { notFound } from "../../errors.ts";
import { storedQuestions } from "../../schemas/questions.ts";
import { type LoadedSchedule, buildSchedule } from "./schedule.ts";
import type { Candidate, ServiceInfo } from "./service.ts";

const isoInstant = z.string().transform((text) => new Date(text));

/**
 * The rows of a schedule read that say when providers work — weekly hours, date overrides,
 * closures — as clinic_schedule_context and clinic_report_schedule (reports) both answer them:
 * one schema each, and one mapping to buildSchedule's input (`workingTimeOf`).
 */
export const scheduleRowSchemas = {
  hours: z.array(
    z.object({
      provider_id: z.string().nullable(),
      weekday: z.number(),
      opens_min: z.number(),
      closes_min: z.number(),
    }),
  ),
  overrides: z.array(
    z.object({
      provider_id: z.string().nullable(),
      date: z.string(),
      opens_min: z.number().nullable(),
      closes_min: z.number().nullable(),
    }),
  ),
  closures: z.array(
    z.object({
      provider_id: z.string().nullable(),
      starts_at: isoInstant,
      ends_at: isoInstant,
      reason: z.string().nullable(),
    }),
  ),
};
type ScheduleRows = { [K in keyof typeof scheduleRowSchemas]: z.infer<(typeof scheduleRowSchemas)[K]> };

/** The weekly hours, overrides and closures of a schedule read, as buildSchedule takes them. */
export function workingTimeOf(rows: ScheduleRows) {
  return {
    hours: rows.hours.map((h) => ({
      providerId: h.provider_id,
      weekday: h.weekday,
      opensMin: h.opens_min,
      closesMin: h.closes_min,
    })),
    overrides: rows.overrides.map((o) => ({
      providerId: o.provider_id,
      date: o.date,
      opensMin: o.opens_min,
      closesMin: o.closes_min,
    })),
    closures: rows.closures.map((c) => ({
      providerId: c.provider_id,
      startsAt: c.starts_at,
      endsAt: c.ends_at,
      reason: c.reason,
    })),
  };
}

const appointmentSchema = z
  .object({
    service_id: z.string(),
    provider_id: z.string(),
    starts_at: isoInstant,
    ends_at: isoInstant,
    status: z.string(),
    booked_by_user_id: z.string().nullable(),
    patient_user_id: z.string().nullable(),
    revision: z.number(),
  })
  .nullable()
  .optional();

const answerSchema = z.union([
  z.object({ rate_limited: z.literal(true) }),
  z.object({ appointment: z.null() }).strict(),
  z.object({ appointment: appointmentSchema, service: z.null() }),
  z.object({
    appointment: appointmentSchema,
    service: z.object({
      id: z.string(),
      name: z.string(),
      duration_min: z.number(),
      provider_id: z.string().nullable(),
      is_active: z.boolean(),
      buffer_before_min: z.number(),
      buffer_after_min: z.number(),
      slot_step_min: z.number().nullable(),
      min_notice_min: z.number(),
      booking_horizon_days: z.number().nullable(),
      capacity: z.number(),
      required_resource_kinds: z.array(z.string()),
      questions: storedQuestions,
    }),
    /** True when the candidates and hours are the ones the request said it knows (then null). */
    known: z.boolean(),
    candidates: z
      .array(
        z.object({
          user_id: z.string(),
          full_name: z.string(),
          status: z.enum(memberStatuses),
          max_daily_appointments: z.number().int().nullable(),
        }),
      )
      .nullable(),
    hours: scheduleRowSchemas.hours.nullable(),
    overrides: scheduleRowSchemas.overrides,
    closures: scheduleRowSchemas.closures,
    bookings: z.array(
      z.object({
        id: z.string(),
        provider_id: z.string(),
        starts_at: isoInstant,
        ends_at: isoInstant,
        buffer_before_min: z.number(),
        buffer_after_min: z.number(),
        held_until: isoInstant.nullable(),
        service_id: z.string(),
      }),
    ),
    elsewhere: z.array(
      z.object({
        provider_id: z.string(),
        starts_at: isoInstant,
        ends_at: isoInstant,
        held_until: isoInstant.nullable().optional(),
      }),
    ),
    external: z
      .array(z.object({ provider_id: z.string(), starts_at: isoInstant, ends_at: isoInstant, stale: z.boolean() }))
      .optional(),
    resources: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        kind: z.string(),
        busy: z.array(
          z.object({
            starts_at: isoInstant,
            ends_at: isoInstant,
            held_until: isoInstant.nullable().optional(),
            seat: z
              .object({ service_id: z.string(), provider_id: z.string(), start: isoInstant, end: isoInstant })
              .nullable()
              .optional(),
          }),
        ),
      }),
    ),
    kind_scopes: z.array(z.string()),
    day_load: z.record(z.string(), z.number()),
    schedule: z.record(z.string(), z.number()),
    versions: z.record(z.string(), z.number()),
  }),
]);

type Answer = z.infer<typeof answerSchema>;
type FullAnswer = Extract<Answer, { candidates: unknown }>;

/**
 * What a service's read answered that depends only on the service, the clinic's members and their
 * weekly hours, with the schedule versions and candidate list it was read at: sent back as
 * `p.known`, the read leaves it out while both are still the clinic's (every change of a member,
 * an hour or a service bumps a schedule version). Per process, keyed by clinic, service and
 * named provider; the database decides whether an entry still holds, so a stale one costs a full
 * answer, never a wrong one.
 */
interface KnownStatic {
  schedule: Record<string, number>;
  candidateIds: string[];
  candidates: NonNullable<FullAnswer["candidates"]>;
  hours: NonNullable<FullAnswer["hours"]>;
}

/**
 * The heap an entry occupies, estimated: a candidate is an object with three strings (its id and
 * status shared, its name not), an hour an object with four small values, a version a key and a
 * number; the key and its ids are ~40-byte strings.
 */
function knownStaticBytes(entry: KnownStatic): number {
  let bytes = 256;
  for (const c of entry.candidates) bytes += 160 + 2 * c.full_name.length;
  bytes += 80 * entry.hours.length + 72 * Object.keys(entry.schedule).length + 56 * entry.candidateIds.length;
  return bytes;
}

/**
 * Per process, least recently used first out, at most 16 MiB by that estimate (about 500 entries of
 * a 50-provider clinic's any-provider service, ~36 kB each; about 2,000 of a 10-provider one,
 * ~8 kB) and 20,000 entries.
 */
const knownStatic = new LRUCache<string, KnownStatic>({
  max: 20_000,
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: knownStaticBytes,
});

/**
 * Keeps what a full answer read, unless it has no candidate (a `provider_id` that is no provider
 * of the clinic, say: a request for it costs the same read either way, and random ids would
 * otherwise push out the entries that save work).
 */
function rememberStatic(key: string, entry: KnownStatic): void {
  if (entry.candidateIds.length === 0) return;
  knownStatic.set(key, entry);
}

/** How many entries the process keeps, and their estimated size (tests; docs/performance.md). */
export function knownScheduleStats(): { entries: number; bytes: number } {
  return { entries: knownStatic.size, bytes: knownStatic.calculatedSize };
}

/** The appointment a move starts from, as the read saw it. */
export interface CurrentAppointment {
  serviceId: string;
  providerId: string;
  startsAt: Date;
  endsAt: Date;
  status: string;
  bookedByUserId: string | null;
  patientUserId: string | null;
  revision: number;
}

/** What the read found. */
export interface ScheduleContext {
  appointment: CurrentAppointment | null;
  service: ServiceInfo;
  /** Every candidate provider of the service (narrowed to the named one), whatever their status. */
  candidates: Candidate[];
  /** The engine's query for the dates, but the clock. */
  schedule: LoadedSchedule;
  /** Booked appointments on the day asked about, per candidate (empty without `dayStart`). */
  dayLoad: Record<string, number>;
  /** Schedule versions of the clinic scope and the candidates' (absent = 0). */
  scheduleVersions: Record<string, number>;
  /** Availability versions of the same scopes (absent = 0): what a cached answer is kept under. */
  versions: Record<string, number>;
  /** When the first hold among the bookings ends (epoch ms; Infinity without holds). */
  holdsEndMs: number;
  /** The cache scopes of the resource kinds the service needs (an answer depends on them too). */
  kindScopes: string[];
}

export interface ScheduleContextRequest {
  clinicId: string;
  timeZone: string;
  fromDate: string;
  toDate: string;
  /** Closures and bookings overlapping [from, to) are read. */
  from: Date;
  to: Date;
  serviceId?: string | undefined;
  providerId?: string | undefined;
  /** A move: the appointment, which the schedule leaves out. */
  appointmentId?: string | undefined;
  /** What the 404 calls a missing appointment (default "appointment"; a hold being booked: "hold"). */
  appointmentNoun?: string | undefined;
  /** The day whose bookings rank the any-provider candidates. */
  day?: { start: Date; end: Date } | undefined;
  /** What occupies time is judged at this instant (a hold ends; CONTRACT §13); default: the database's clock. */
  now?: Date | undefined;
  /**
   * The check of this one start: of what occupies time (bookings, closures, resources, other
   * clinics) only what overlaps the slot's occupied time, its service's buffers included, is read.
   */
  slotStart?: Date | undefined;
  /** A rate-limit window to count first (its JSON as the database takes it); past it the read answers `"rate limited"`. */
  rate?: Record<string, unknown> | null | undefined;
  /**
   * The caller's authorization, left to this read (a booking's: the access module's ClinicGate,
   * docs/performance.md#authorized-by-the-read): `check` is what the read checks before anything
   * else; `settle` throws what a read that stopped at the door means, `passed` hears it went on.
   */
  access?: ReadAccess | undefined;
}

/** A caller's authorization checked by the read (ClinicGate's shape, without this module depending on it). */
export interface ReadAccess {
  check: Record<string, unknown>;
  settle(found: unknown): never;
  passed(): void;
}

const refusedSchema = z.object({ refused: z.literal(true), access: z.unknown() });

/**
 * The read. 404 for a missing appointment or service; `"rate limited"` when the counted window
 * is full. A service that is not active is answered (the caller decides: 422 to book it).
 */
export async function readScheduleContext(
  db: Db,
  request: ScheduleContextRequest,
): Promise<ScheduleContext | "rate limited"> {
  // A move learns its service from the read: it sends nothing known.
  const staticKey =
    request.serviceId !== undefined && request.appointmentId === undefined
      ? `${request.clinicId}|${request.serviceId}|${request.providerId ?? ""}`
      : undefined;
  const known = staticKey === undefined ? undefined : knownStatic.get(staticKey);
  const p = {
    known: known ? { schedule: known.schedule, candidates: known.candidateIds } : null,
    rate: request.rate ?? null,
    service_id: request.serviceId ?? null,
    provider_id: request.providerId ?? null,
    appointment_id: request.appointmentId ?? null,
    date: request.fromDate,
    date_to: request.toDate,
    from: request.from.toISOString(),
    to: request.to.toISOString(),
    day_start: request.day?.start.toISOString() ?? null,
    day_end: request.day?.end.toISOString() ?? null,
    now: request.now?.toISOString() ?? null,
    slot_start: request.slotStart?.toISOString() ?? null,
    access: request.access?.check ?? null,
  };
  // Prepared: one round trip a call (docs/performance.md#prepared-statements).
  const raw = await callClinicJsonFunction(db, "clinic_schedule_context", request.clinicId, p);
  if (request.access) {
    const refused = refusedSchema.safeParse(raw);
    if (refused.success) request.access.settle(refused.data.access);
    request.access.passed();
  }
  const answer = answerSchema.parse(raw);
  if ("rate_limited" in answer) return "rate limited";
  if (!("service" in answer)) throw notFound(request.appointmentNoun ?? "appointment");
  if (answer.service === null) throw notFound("service");
  const s = answer.service;
  const service: ServiceInfo = {
    id: s.id,
    name: s.name,
    durationMin: s.duration_min,
    providerId: s.provider_id,
    isActive: s.is_active,
    bufferBeforeMin: s.buffer_before_min,
    bufferAfterMin: s.buffer_after_min,
    slotStepMin: s.slot_step_min,
    minNoticeMin: s.min_notice_min,
    bookingHorizonDays: s.booking_horizon_days,
    capacity: s.capacity,
    requiredResourceKinds: s.required_resource_kinds,
    questions: s.questions,
  };
  const a = answer.appointment;
  const appointment: CurrentAppointment | null = a
    ? {
        serviceId: a.service_id,
        providerId: a.provider_id,
        startsAt: a.starts_at,
        endsAt: a.ends_at,
        status: a.status,
        bookedByUserId: a.booked_by_user_id,
        patientUserId: a.patient_user_id,
        revision: a.revision,
      }
    : null;
  let rows: Pick<KnownStatic, "candidates" | "hours">;
  if (answer.known && known) rows = known;
  else if (answer.candidates !== null && answer.hours !== null) {
    rows = { candidates: answer.candidates, hours: answer.hours };
    if (staticKey !== undefined)
      rememberStatic(staticKey, {
        schedule: answer.schedule,
        candidateIds: answer.candidates.map((c) => c.user_id),
        candidates: answer.candidates,
        hours: answer.hours,
      });
  } else throw new Error("the schedule read left out candidates and hours this request does not know");
  const candidates = rows.candidates.map((c) => ({
    userId: c.user_id,
    fullName: c.full_name,
    status: c.status,
    maxDailyAppointments: c.max_daily_appointments,
  }));
  const schedule = buildSchedule(
    { clinicId: request.clinicId, timeZone: request.timeZone, fromDate: request.fromDate, toDate: request.toDate },
    service,
    candidates,
    {
      ...workingTimeOf({ hours: rows.hours, overrides: answer.overrides, closures: answer.closures }),
      bookings: answer.bookings.map((b) => ({
        id: b.id,
        providerId: b.provider_id,
        startsAt: b.starts_at,
        endsAt: b.ends_at,
        bufferBeforeMin: b.buffer_before_min,
        bufferAfterMin: b.buffer_after_min,
        serviceId: b.service_id,
      })),
      elsewhere: answer.elsewhere.map((e) => ({ providerId: e.provider_id, startsAt: e.starts_at, endsAt: e.ends_at })),
      external: (answer.external ?? []).map((e) => ({
        providerId: e.provider_id,
        startsAt: e.starts_at,
        endsAt: e.ends_at,
        stale: e.stale,
      })),
      resources: answer.resources.map((r) => ({
        id: r.id,
        name: r.name,
        kind: r.kind,
        busy: r.busy.map((b) => ({
          start: b.starts_at.getTime(),
          end: b.ends_at.getTime(),
          ...(b.seat
            ? {
                seat: {
                  serviceId: b.seat.service_id,
                  providerId: b.seat.provider_id,
                  start: b.seat.start.getTime(),
                  end: b.seat.end.getTime(),
                },
              }
            : {}),
        })),
      })),
    },
  );
  // The day asked about was counted in SQL (day_load): the engine's daily limit (§8 v1.4) takes that
  // count, as the bookings read for one start hold only the slot's own time.
  if (request.day !== undefined) {
    const date = localDateOf(request.day.start.getTime(), request.timeZone);
    schedule.dayLoad = new Map(candidates.map((c) => [dayLoadKey(c.userId, date), answer.day_load[c.userId] ?? 0]));
  }
  return {
    appointment,
    service,
    candidates,
    schedule,
    dayLoad: answer.day_load,
    scheduleVersions: answer.schedule,
    versions: answer.versions,
    holdsEndMs: Math.min(
      Infinity,
      ...answer.bookings.map((b) => b.held_until?.getTime() ?? Infinity),
      ...answer.resources.flatMap((r) => r.busy.map((b) => b.held_until?.getTime() ?? Infinity)),
      // A shared provider's hold in another clinic: its end frees the time here, and no write does.
      ...answer.elsewhere.map((e) => e.held_until?.getTime() ?? Infinity),
    ),
    kindScopes: answer.kind_scopes,
  };
}
