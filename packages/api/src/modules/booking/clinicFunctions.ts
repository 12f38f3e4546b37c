// The booking path's two database calls (drizzle/0008_hot_paths.sql, docs/performance.md#the-booking-path):
// the read of what the check of one start needs (availability's readScheduleContext), and the writes. Each is one statement, so its own
// transaction, and on Citus a call delegated to the clinic's node.
import { PgTransaction } from "drizzle-orm/pg-core";
import { z } from "zod";
import { type Db, callClinicJsonFunction, pgErrorInfo } from "@clinic/db";
import { explainStart, freeResourcesAt } from "../../domain/slots.ts";
import { addDays, wallClockToInstant } from "../../domain/timezone.ts";
import { domainCodes } from "../../errorCodes.ts";
import { DomainError } from "../../errors.ts";
import { type ReadAccess, type ScheduleContext, readScheduleContext } from "../availability/index.ts";
import { type RateLimit, rateLimited, rateWindow } from "../ratelimit/index.ts";
import { type AppointmentView, appointmentOutput } from "./appointments.ts";

/** The longest buffer a service may have (minutes; services_buffers_range): how far around a start other bookings matter. */
const MAX_BUFFER_MIN = 240;
/** The longest a service may last (minutes): the services_duration_range check and the API's limit. */
const MAX_DURATION_MIN = 1440;

/** What a write answers (clinic_book_appointment, clinic_reschedule_appointment). */
const writeSchema = z.union([
  z.object({ appointment: z.record(z.string(), z.unknown()), replayed: z.boolean() }),
  z.object({ error: z.enum(domainCodes), detail: z.string(), extra: z.record(z.string(), z.unknown()) }),
  z.object({ stale: z.literal(true) }),
  z.object({ clear_holds: z.literal(true) }),
]);
type WriteAnswer = z.infer<typeof writeSchema>;

type ClinicFunction =
  | "clinic_book_appointment"
  | "clinic_book_guest_hold"
  | "clinic_reschedule_appointment"
  | "clinic_set_status"
  | "clinic_release_hold"
  | "clinic_expire_confirmation"
  | "clinic_book_series"
  | "clinic_clear_holds_in_way";

/** One statement: `select fn(clinic_id, p)`, answered as the function's jsonb. */
export async function callClinicFunction(
  db: Db,
  fn: ClinicFunction,
  clinicId: string,
  p: Record<string, unknown>,
): Promise<unknown> {
  return callClinicJsonFunction(db, fn, clinicId, p);
}

/** An appointment as the database functions write it (clinic_appointment_json): instants as ISO text. */
export function appointmentFromJson(json: Record<string, unknown>): AppointmentView {
  const instant = (key: string) => {
    const value = json[key];
    return typeof value === "string" ? new Date(value) : null;
  };
  return appointmentOutput.parse({
    ...json,
    start: instant("start"),
    end: instant("end"),
    created_at: instant("created_at"),
    updated_at: instant("updated_at"),
    canceled_at: instant("canceled_at"),
    rescheduled_at: instant("rescheduled_at"),
    held_until: instant("held_until"),
  });
}

export interface ReadRequest {
  clinicId: string;
  timeZone: string;
  /** The local date of the start. */
  date: string;
  start: Date;
  serviceId?: string | undefined;
  providerId?: string | undefined;
  /** A move: the appointment, which its check leaves out. */
  appointmentId?: string | undefined;
  /** What the 404 calls a missing appointment (default "appointment"). */
  appointmentNoun?: string | undefined;
  /** Counted by the read (absent: not counted). */
  rateLimit?: RateLimit | undefined;
  /** The caller's authorization, when the read decides it (a booking's ClinicGate). */
  access?: ReadAccess | undefined;
}

/**
 * The read of a booking or a move: counts the caller's booking write, then reads what the check of
 * one start needs: the start's date (hours, overrides, the day's load) and what occupies time the
 * booking could touch. The per-start check (explainStart) looks at bookings, closures and resources
 * only where they overlap the slot widened by buffers, and the slot's grid by the day's hours alone;
 * a slot lasts at most a day and a buffer at most 4 h, and the read matches rows by their occupied
 * ranges (their own buffers included), so [start − 4 h, start + a day + 4 h] holds every row that
 * can matter — not the ±two days it read before, a cost that grew with how booked the clinic was.
 * Once it has the service, the read narrows that to the slot's own occupied time (slotStart).
 * 429 past the limit; 404 for a missing appointment or service.
 */
export async function readStartContext(db: Db, request: ReadRequest, now: Date): Promise<ScheduleContext> {
  const context = await readScheduleContext(db, {
    clinicId: request.clinicId,
    timeZone: request.timeZone,
    fromDate: request.date,
    toDate: request.date,
    from: new Date(request.start.getTime() - MAX_BUFFER_MIN * 60_000),
    to: new Date(request.start.getTime() + (MAX_DURATION_MIN + MAX_BUFFER_MIN) * 60_000),
    slotStart: request.start,
    serviceId: request.serviceId,
    providerId: request.providerId,
    appointmentId: request.appointmentId,
    appointmentNoun: request.appointmentNoun,
    day: {
      start: new Date(wallClockToInstant(request.date, 0, request.timeZone)),
      end: new Date(wallClockToInstant(addDays(request.date, 1), 0, request.timeZone)),
    },
    rate: request.rateLimit ? rateWindow(request.rateLimit, now) : null,
    access: request.access,
    now,
  });
  if (context === "rate limited") throw rateLimited(request.rateLimit ?? { key: "", max: 0, windowMs: 60_000 }, now);
  return context;
}

/** The candidates free for `start` by every rule of the engine's per-start explanation. */
export function freeAt(context: ScheduleContext, start: Date, now: Date): Set<string> {
  const explanation = explainStart({ ...context.schedule, nowMs: now.getTime() }, start.getTime());
  return new Set(explanation.providers.filter((p) => p.reasons.length === 0).map((p) => p.providerId));
}

/**
 * The resources a booking at `start` may take (§14): for each kind the service needs, the free ones
 * by name, which the write tries in that order (its exclusion constraint decides between racers).
 */
export function resourcesWanted(context: ScheduleContext, start: Date): { kind: string; ids: string[] }[] {
  const startMs = start.getTime();
  const { free } = freeResourcesAt(context.schedule, startMs, startMs + context.service.durationMin * 60_000);
  return [...free].map(([kind, list]) => ({ kind, ids: list.map((r) => r.id) }));
}

/** The schedule versions of the clinic scope and these providers, as the read saw them (absent = 0). */
export function scheduleOf(
  context: ScheduleContext,
  clinicId: string,
  providerIds: readonly string[],
): Record<string, number> {
  return Object.fromEntries([clinicId, ...providerIds].map((scope) => [scope, context.scheduleVersions[scope] ?? 0]));
}

/**
 * A write's answer: the appointment, or its error thrown; "stale" when the schedule changed since the
 * read, "lost" when the database broke the write up in a race ([lostRace]): read again.
 *
 * A booking's expired holds in the way (§13) are cleared apart: outside a transaction the booking
 * asks for it (`clear_holds_apart`), and when it answers {clear_holds} they are deleted in a
 * statement of their own (clinic_clear_holds_in_way) and the same write is sent again, clearing in
 * place a hold that expired since. Deleted inside the write, a hold stayed deleted-but-uncommitted
 * while the booking inserted again, and racers that inserted meanwhile waited for it as it waited
 * for them: on Citus under load, a deadlock a second, three in a row (docs/front-desk.md).
 */
export async function write(
  db: Db,
  fn: "clinic_book_appointment" | "clinic_book_guest_hold" | "clinic_reschedule_appointment",
  clinicId: string,
  p: Record<string, unknown>,
): Promise<{ appointment: AppointmentView; replayed: boolean } | "stale" | "lost"> {
  const apart = fn !== "clinic_reschedule_appointment" && !(db instanceof PgTransaction);
  let answer: WriteAnswer;
  try {
    answer = writeSchema.parse(
      await callClinicFunction(db, fn, clinicId, apart ? { ...p, clear_holds_apart: true } : p),
    );
    if ("clear_holds" in answer) {
      await callClinicFunction(db, "clinic_clear_holds_in_way", clinicId, p);
      answer = writeSchema.parse(await callClinicFunction(db, fn, clinicId, p));
    }
  } catch (error) {
    if (lostRace(error)) return "lost";
    throw error;
  }
  if ("clear_holds" in answer) throw new Error(`${fn} asked to clear holds it was to clear itself`);
  if ("stale" in answer) return "stale";
  if ("error" in answer) throw new DomainError(answer.error, answer.detail, { extra: answer.extra });
  return { appointment: appointmentFromJson(answer.appointment), replayed: answer.replayed };
}

/**
 * Whether a write failed because it lost a race the database broke up: a deadlock (40P01) or a
 * serialization failure (40001). Two bookings of one slot (or of buffered ranges that overlap) may
 * wait for each other in the exclusion constraint; the function catches that where it inserts, but
 * a deadlock found elsewhere, and on Citus the distributed deadlock detector's cancel, end the
 * whole statement. Nothing was written: the caller reads again like after {stale}, after
 * `afterLostRace`, and the re-read finds the winner's appointment (409 SLOT_UNAVAILABLE) or the time
 * still free (docs/performance.md).
 */
export function lostRace(error: unknown): boolean {
  const code = pgErrorInfo(error)?.code;
  return code === "40P01" || code === "40001";
}

/**
 * Before a booking lost to a race reads again: 5–50 ms at random. The losers would otherwise read
 * and write again all at once and could break each other up again (on a loaded Citus three times in
 * a row: CONFLICT instead of SLOT_UNAVAILABLE); apart, each re-read sees the winner's commit or
 * queues behind its insert. Not inside a transaction (the waitlist's offers): the database has
 * aborted it, so the next statement fails at once, and waiting would only hold its locks longer.
 */
export async function afterLostRace(db: Db): Promise<void> {
  if (db instanceof PgTransaction) return;
  await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 45));
}

/**
 * The attempts of a booking's or a move's read-and-write loop: at most three reads for a schedule
 * that changed ({stale}), and a lost race ([lostRace]) does not use one of them: the database broke
 * a cycle of writers up, so one of them went on, and the loser reads again after `afterLostRace`.
 * Six attempts in all, then 409 CONFLICT. (With lost races counted among the three, the losers of a
 * race on a loaded Citus answered CONFLICT after three deadlocks in a row, where reading once more
 * finds the winner: SLOT_UNAVAILABLE.)
 */
export class WriteAttempts {
  private reads = 0;
  private stale = 0;
  private lost = false;

  /** Whether this is the first read (the one that counts toward the rate limit). */
  get first(): boolean {
    return this.reads === 0;
  }

  /**
   * The write's `wait_first` after a lost race: its row waits for the slot's writers in flight
   * before it is in the table (clinic_book_appointment), so that the oldest of them, whose check
   * restarts after each wait, does not meet it and wait for it again (on Citus, a livelock).
   */
  get retryFields(): { wait_first?: true } {
    return this.lost ? { wait_first: true } : {};
  }

  /** Before a read: whether another attempt may be made. */
  next(): boolean {
    return this.reads < 6 && this.stale < 3;
  }

  /** After a read, its write's outcome when it did not answer: "stale" or "lost" (then the wait). */
  async after(db: Db, outcome: "stale" | "lost"): Promise<void> {
    this.reads++;
    this.lost = outcome === "lost";
    if (outcome === "lost") {
      if (this.next()) await afterLostRace(db);
    } else {
      this.stale++;
    }
  }
}

/**
 * A request with an idempotency key that the read refused: the write replays the booking the key
 * made (whatever has changed since), or the refusal stands.
 */
export async function replayOrRefuse(
  db: Db,
  fn: "clinic_book_appointment" | "clinic_reschedule_appointment",
  clinicId: string,
  userId: string | null,
  idem: { key: string; hash: string },
  refusal: DomainError,
): Promise<{ appointment: AppointmentView; replayed: boolean }> {
  const answer = await write(db, fn, clinicId, {
    user_id: userId,
    idem,
    refuse: { code: refusal.domainCode, detail: refusal.message, extra: refusal.extra ?? {} },
  });
  if (typeof answer === "string") throw refusal;
  return answer;
}
