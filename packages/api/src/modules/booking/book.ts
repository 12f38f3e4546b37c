import type { BookingAnswer, Db } from "@clinic/db";
import { localDateOf } from "../../domain/timezone.ts";
import { DomainError, notFound, validationFailed } from "../../errors.ts";
import { type ClinicGate, ClinicZoneChanged } from "../access/index.ts";
import { type Candidate, type ScheduleContext, type ServiceInfo, assertCandidate } from "../availability/index.ts";
import type { RateLimit } from "../ratelimit/index.ts";
import { checkAnswers } from "../../schemas/questions.ts";
import type { AppointmentView } from "./appointments.ts";
import {
  WriteAttempts,
  freeAt,
  readStartContext,
  replayOrRefuse,
  resourcesWanted,
  scheduleOf,
  write,
} from "./clinicFunctions.ts";
import { requestHash } from "./idempotency.ts";

export interface PatientInput {
  name: string;
  email?: string | undefined;
  phone_e164?: string | undefined;
}

export interface BookingRequest {
  clinicId: string;
  /** The clinic's zone (with a gate: the zone it gave, which the read confirms). */
  timeZone: string;
  /**
   * The caller's authorization when the booking's read decides it (B1, ClinicGate;
   * docs/performance.md#authorized-by-the-read); absent when it was decided before.
   */
  gate?: ClinicGate | undefined;
  /** Who books; null for a guest's hold (§15 O4 without a token) and for the waitlist's offers. */
  userId: string | null;
  serviceId: string;
  start: Date;
  providerId?: string | undefined;
  patient: PatientInput;
  notes?: string | undefined;
  /**
   * `{key: value}` answering the service's questions (§19), checked by checkAnswers against them as
   * the booking's read finds them. A hold (T2, T3, a waitlist offer) asks nothing: its answers are
   * given when it is booked with hold_id; a guest's hold (O4) is the booking, so it is checked.
   */
  answers?: Record<string, unknown> | undefined;
  idempotencyKey?: string | undefined;
  /** The registered patient it is for (a patient booking for themselves, or staff for them). */
  patientUserId?: string | undefined;
  /** For a patient's own booking: the most future booked appointments they may hold in the clinic. */
  openBookingLimit?: number | undefined;
  /** The caller's booking-write limit, counted by the read (absent: not counted). */
  rateLimit?: RateLimit | undefined;
  /** A hold (T2, T3) keeps the time for the clinic's hold_minutes; a booking (default) takes it. */
  kind?: "book" | "hold" | undefined;
  /** Book the caller's own unexpired hold: the appointment keeps its id, start and provider (§13). */
  holdId?: string | undefined;
  /** A patient's own booking or hold (O4, T3): pending when the service requires confirmation; the no-show limit applies. */
  patientBooking?: boolean | undefined;
  /** A hold offered to this waitlist entry (§15): the entry becomes `offered`, or 409 CONFLICT when it no longer waits. */
  waitlistEntryId?: string | undefined;
  /** A hold's length instead of the clinic's hold_minutes (a waitlist offer lasts offer_minutes). */
  holdMinutes?: number | undefined;
  /** A message planned with the write besides its event's (a guest's hold: `guest_confirm`). */
  message?: "guest_confirm" | undefined;
  /**
   * A guest's hold (§15 O4 without a token): the keyed hash of the client address it comes from.
   * The write then counts the clinic's unconfirmed guest holds under the clinic's lock: 409
   * BOOKING_LIMIT past 3 for this address or 1 for this e-mail, 429 RATE_LIMITED past the clinic's
   * guest_holds_max (docs/manage-links.md#guest-holds).
   */
  guestAddress?: string | undefined;
  /** L2: the guest's hold is booked with the answers it was given at O4 (none are asked again). */
  keepHeldAnswers?: boolean | undefined;
}

/** The time a booking occupies its provider: its own, widened by its service's buffers. */
export function occupancyOf(start: Date, service: ServiceInfo) {
  const end = new Date(start.getTime() + service.durationMin * 60_000);
  return {
    startsAt: start,
    endsAt: end,
    bufferBeforeMin: service.bufferBeforeMin,
    bufferAfterMin: service.bufferAfterMin,
    occupiedStart: new Date(start.getTime() - service.bufferBeforeMin * 60_000),
    occupiedEnd: new Date(end.getTime() + service.bufferAfterMin * 60_000),
  };
}

/** An appointment's time as the write functions take it: its own, and what it occupies. */
export function occupancyFields(start: Date, service: ServiceInfo) {
  const occupancy = occupancyOf(start, service);
  return {
    start: occupancy.startsAt.toISOString(),
    end: occupancy.endsAt.toISOString(),
    occupied_start: occupancy.occupiedStart.toISOString(),
    occupied_end: occupancy.occupiedEnd.toISOString(),
    buffer_before_min: occupancy.bufferBeforeMin,
    buffer_after_min: occupancy.bufferAfterMin,
  };
}

/**
 * The free candidates in the order the any-provider rule tries them (§6): fewest appointments that
 * local date (`loadOf`), then by name, then by id.
 */
export function rankFree(
  candidates: readonly Pick<Candidate, "userId" | "fullName">[],
  free: ReadonlySet<string>,
  loadOf: (providerId: string) => number,
): string[] {
  return candidates
    .filter((c) => free.has(c.userId))
    .sort(
      (a, b) =>
        loadOf(a.userId) - loadOf(b.userId) || compareText(a.fullName, b.fullName) || compareText(a.userId, b.userId),
    )
    .map((c) => c.userId);
}

/**
 * Books an appointment in two statements after the clinic's authorization, each its own
 * transaction (docs/performance.md#the-booking-path):
 *
 * 1. The read (readStartContext) of what the check of this one start needs; it also counts the
 *    caller's booking write. The pure engine's per-start explanation says which candidates are
 *    free (the same rules that list slots, so an offered slot is a bookable slot), ranked by the
 *    any-provider rule: fewest booked appointments that local date, then by name.
 * 2. The write (clinic_book_appointment; for a guest's hold clinic_book_guest_hold, which first
 *    counts the clinic's guest holds under its lock) claims or replays the idempotency key, re-checks the
 *    schedule versions under a key-share lock (a changed schedule: read again, at most three
 *    times), counts a patient's open bookings under the lock of their row, inserts under the
 *    exclusion constraint trying the free candidates in rank order, bumps the provider's version,
 *    plans reminders and webhook deliveries into the outbox, records the event last, and answers
 *    the appointment.
 */
export async function bookAppointment(
  db: Db,
  request: BookingRequest,
  now: Date,
): Promise<{ appointment: AppointmentView; replayed: boolean }> {
  for (let zoneReads = 0; ; zoneReads++) {
    try {
      return await bookInZone(db, request, now);
    } catch (error) {
      // The clinic's zone changed since this process last read it (C4 in another process): the read
      // stopped before it counted or read anything; again in the new zone.
      if (!(error instanceof ClinicZoneChanged) || zoneReads >= 2) throw error;
      request = { ...request, timeZone: error.zone };
    }
  }
}

/** Whether a read's refusal may be answered by an idempotency key's earlier booking: not a refused caller's. */
const mayReplay = (error: unknown, request: BookingRequest): error is DomainError =>
  error instanceof DomainError && error.domainCode !== "RATE_LIMITED" && request.gate?.refused !== true;

async function bookInZone(
  db: Db,
  request: BookingRequest,
  now: Date,
): Promise<{ appointment: AppointmentView; replayed: boolean }> {
  const fn = "clinic_book_appointment";
  const date = localDateOf(request.start.getTime(), request.timeZone);
  const idem =
    request.idempotencyKey === undefined
      ? null
      : {
          key: request.idempotencyKey,
          hash: requestHash([
            request.kind ?? "book",
            request.holdId ?? null,
            request.serviceId,
            request.start.toISOString(),
            request.providerId ?? null,
            request.patient.name,
            request.patient.email ?? null,
            request.patient.phone_e164 ?? null,
            request.notes ?? null,
            request.patientUserId ?? null,
            request.answers ?? null,
          ]),
        };
  const common = {
    user_id: request.userId,
    idem,
    kind: request.kind ?? "book",
    patient_booking: request.patientBooking ?? false,
    patient_name: request.patient.name,
    patient_email: request.patient.email ?? null,
    patient_phone: request.patient.phone_e164 ?? null,
    notes: request.notes ?? null,
    patient_user_id: request.patientUserId ?? null,
    open_limit:
      request.openBookingLimit !== undefined && request.patientUserId !== undefined ? request.openBookingLimit : null,
    now: now.toISOString(),
    waitlist_entry_id: request.waitlistEntryId ?? null,
    hold_minutes: request.holdMinutes ?? null,
    message: request.message ?? null,
    ...(request.guestAddress === undefined ? {} : { guest_address: request.guestAddress }),
  };
  if (request.holdId !== undefined) return bookHold(db, request, request.holdId, idem, common, now);
  const writer = request.guestAddress === undefined ? fn : "clinic_book_guest_hold";
  for (const attempts = new WriteAttempts(); attempts.next();) {
    let context: ScheduleContext;
    let order: string[];
    let answers: BookingAnswer[] | undefined;
    try {
      // A read again after a schedule change is the same request: it is counted once.
      context = await readStartContext(
        db,
        {
          ...request,
          date,
          rateLimit: attempts.first ? request.rateLimit : undefined,
          access: request.gate?.forRead(request.timeZone),
        },
        now,
      );
      order = freeInRankOrder(context, request, now);
      answers = answersOfBooking(context, request);
    } catch (error) {
      if (idem !== null && mayReplay(error, request))
        return replayOrRefuse(db, fn, request.clinicId, request.userId, idem, error);
      throw error;
    }
    const written = await write(db, writer, request.clinicId, {
      ...common,
      service_id: context.service.id,
      ...occupancyFields(request.start, context.service),
      candidates: order,
      ...(answers === undefined ? {} : { answers }),
      resources: resourcesWanted(context, request.start),
      schedule: scheduleOf(context, request.clinicId, order),
      ...attempts.retryFields,
    });
    if (typeof written !== "string") return written;
    await attempts.after(db, written);
  }
  throw new DomainError("CONFLICT", "the schedule kept changing while booking; retry");
}

/**
 * Books the caller's hold: the read counts the write and finds the hold (404 when absent); the
 * write checks that it is the caller's and unexpired (409 HOLD_EXPIRED), that the request names its
 * service, start and provider (400), and turns it into the booking under its row lock. Its time is
 * already its own, so no schedule is re-checked.
 */
async function bookHold(
  db: Db,
  request: BookingRequest,
  holdId: string,
  idem: { key: string; hash: string } | null,
  common: Record<string, unknown>,
  now: Date,
): Promise<{ appointment: AppointmentView; replayed: boolean }> {
  const fn = "clinic_book_appointment";
  let hold: ScheduleContext["appointment"];
  let answers: BookingAnswer[] | undefined;
  try {
    const date = localDateOf(request.start.getTime(), request.timeZone);
    let service: ScheduleContext["service"];
    ({ appointment: hold, service } = await readStartContext(
      db,
      // A hold gone before the read (released, or removed when its time was booked after it
      // expired) is the same 404 as one the write finds gone: "hold not found".
      {
        ...request,
        serviceId: undefined,
        appointmentId: holdId,
        appointmentNoun: "hold",
        date,
        access: request.gate?.forRead(request.timeZone),
      },
      now,
    ));
    if (hold?.status !== "held" || hold.bookedByUserId !== request.userId) throw notFound("hold");
    if (request.providerId !== undefined && request.providerId !== hold.providerId)
      throw validationFailed("provider_id", "must be the hold's provider");
    answers = answersOfBooking({ service }, request);
  } catch (error) {
    if (idem !== null && mayReplay(error, request))
      return replayOrRefuse(db, fn, request.clinicId, request.userId, idem, error);
    throw error;
  }
  const answer = await write(db, fn, request.clinicId, {
    ...common,
    hold_id: holdId,
    ...(answers === undefined ? {} : { answers }),
    service_id: request.serviceId,
    start: request.start.toISOString(),
    candidates: [],
    schedule: {},
  });
  if (typeof answer === "string") throw new DomainError("CONFLICT", "the hold changed while booking it; retry");
  return answer;
}

/** The candidates free for the start, in the order the any-provider rule tries them; 409/422 when none may have it. */
function freeInRankOrder(context: ScheduleContext, request: BookingRequest, now: Date): string[] {
  const { service, candidates } = context;
  if (!service.isActive) throw new DomainError("SERVICE_INACTIVE", "the service is inactive and cannot be booked");
  assertCandidate(service, request.providerId, candidates);
  const free = freeAt(context, request.start, now);
  if (free.size === 0) {
    throw new DomainError(
      "SLOT_UNAVAILABLE",
      `${request.start.toISOString()} is not an available slot of this service${request.providerId ? " for that provider" : ""}`,
    );
  }
  return rankFree(candidates, free, (id) => context.dayLoad[id] ?? 0);
}

/**
 * The answers a booking stores (§19), checked against the service's questions as the read found
 * them; undefined when this write asks nothing: a hold (T2, T3, a waitlist offer; its answers come
 * when it is booked with hold_id) and a guest's hold confirmed by its link (L2 keeps the O4 answers).
 */
function answersOfBooking(
  context: Pick<ScheduleContext, "service">,
  request: BookingRequest,
): BookingAnswer[] | undefined {
  if (request.keepHeldAnswers === true) return undefined;
  if (request.kind === "hold" && request.guestAddress === undefined) {
    if (request.answers !== undefined && Object.keys(request.answers).length > 0)
      throw validationFailed("answers", "a hold takes no answers: give them when you book it with hold_id");
    return undefined;
  }
  return checkAnswers(context.service.questions, request.answers);
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
