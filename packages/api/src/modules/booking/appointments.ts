import { type SQL, and, eq, gte, inArray, lt, ne, sql } from "drizzle-orm";
import { z } from "zod";
import {
  type AppointmentStatus,
  appointments,
  appointmentStatuses,
  clinicMembers,
  type Db,
  services,
} from "@clinic/db";
import { DomainError, forbidden, notFound } from "../../errors.ts";
import { keyset } from "../../pagination.ts";
import { answersOutput } from "../../schemas/questions.ts";
import { instantOutput } from "../../schemas/wire.ts";

/** An appointment as the API shows it. */
export const appointmentOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  service_id: z.string(),
  service_name: z.string(),
  provider_id: z.string(),
  provider_name: z.string(),
  start: instantOutput,
  end: instantOutput,
  status: z.enum(appointmentStatuses),
  /** Until when a hold keeps its time (null unless `held`). */
  held_until: instantOutput.nullable(),
  /** Every status it had, oldest first, starting with the first (§13). */
  status_history: z.array(
    z.object({
      status: z.enum(appointmentStatuses),
      at: z.string(),
      by_user_id: z.string().nullable(),
      reason: z.string().nullable(),
    }),
  ),
  patient: z.object({ name: z.string(), email: z.string().nullable(), phone_e164: z.string().nullable() }),
  notes: z.string().nullable(),
  /** The buffers the appointment was booked with (its service's at the time). */
  buffer_before_min: z.number().int(),
  buffer_after_min: z.number().int(),
  created_at: instantOutput,
  updated_at: instantOutput,
  canceled_at: instantOutput.nullable(),
  /** When it was last moved (null until then). */
  rescheduled_at: instantOutput.nullable(),
  /** The registered patient it is for (who sees it under /v1/me/appointments), or null. */
  patient_user_id: z.string().nullable(),
  /** Who booked it (null for appointments booked before this was recorded). */
  booked_by_user_id: z.string().nullable(),
  /** The series it is an occurrence of (§14), or null. */
  series_id: z.string().nullable(),
  /** The rooms and equipment it holds, as they were when booked (§14). */
  resources: z.array(z.object({ id: z.string(), name: z.string(), kind: z.string() })),
  /**
   * The service's questions as asked and answered at booking (§19): shown to staff, the provider and
   * the patient; never in events, webhook payloads (unless the webhook opts in), feeds or messages.
   */
  answers: answersOutput,
});
export type AppointmentView = z.infer<typeof appointmentOutput>;

/**
 * An appointment as events carry it, and with them webhook payloads and e-mails: without its
 * answers (§19; the SQL writers' twin is clinic_appointment_json). Every TypeScript writer of an
 * appointment event passes its appointment through this.
 */
export function eventAppointment(view: AppointmentView): Omit<AppointmentView, "answers"> {
  const { answers: _answers, ...shown } = view;
  return shown;
}

/** The one column list of an appointment: its row plus the service's and provider's names. */
export const appointmentColumns = {
  id: appointments.id,
  clinicId: appointments.clinicId,
  serviceId: appointments.serviceId,
  serviceName: services.name,
  providerId: appointments.providerId,
  providerName: clinicMembers.fullName,
  startsAt: appointments.startsAt,
  endsAt: appointments.endsAt,
  status: appointments.status,
  heldUntil: appointments.heldUntil,
  statusHistory: appointments.statusHistory,
  patientName: appointments.patientName,
  patientEmail: appointments.patientEmail,
  patientPhone: appointments.patientPhoneE164,
  notes: appointments.notes,
  bufferBeforeMin: appointments.bufferBeforeMin,
  bufferAfterMin: appointments.bufferAfterMin,
  createdAt: appointments.createdAt,
  updatedAt: appointments.updatedAt,
  canceledAt: appointments.canceledAt,
  rescheduledAt: appointments.rescheduledAt,
  patientUserId: appointments.patientUserId,
  bookedByUserId: appointments.bookedByUserId,
  seriesId: appointments.seriesId,
  resources: appointments.resources,
  answers: appointments.answers,
  /** Not shown: the iCalendar SEQUENCE of the appointment in calendar feeds. */
  revision: appointments.revision,
};

/** Appointments joined with their service and provider names; add `.where(...)`. */
export function selectAppointments(db: Db) {
  return db
    .select(appointmentColumns)
    .from(appointments)
    .innerJoin(services, and(eq(services.clinicId, appointments.clinicId), eq(services.id, appointments.serviceId)))
    .innerJoin(
      clinicMembers,
      and(eq(clinicMembers.clinicId, appointments.clinicId), eq(clinicMembers.userId, appointments.providerId)),
    )
    .$dynamic();
}
export type AppointmentRow = Awaited<ReturnType<typeof selectAppointments>>[number];

export const toAppointment = (row: AppointmentRow): AppointmentView => ({
  id: row.id,
  clinic_id: row.clinicId,
  service_id: row.serviceId,
  service_name: row.serviceName,
  provider_id: row.providerId,
  provider_name: row.providerName,
  start: row.startsAt,
  end: row.endsAt,
  status: row.status,
  held_until: row.heldUntil,
  status_history: row.statusHistory,
  patient: { name: row.patientName, email: row.patientEmail, phone_e164: row.patientPhone },
  notes: row.notes,
  buffer_before_min: row.bufferBeforeMin,
  buffer_after_min: row.bufferAfterMin,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  canceled_at: row.canceledAt,
  rescheduled_at: row.rescheduledAt,
  patient_user_id: row.patientUserId,
  booked_by_user_id: row.bookedByUserId,
  series_id: row.seriesId,
  resources: row.resources,
  answers: row.answers,
});

/** Appointments are listed by start, then id. */
const appointmentPages = keyset<AppointmentRow>(
  "asc",
  { column: appointments.startsAt, kind: "instant", of: (r) => r.startsAt },
  { column: appointments.id, kind: "uuid", of: (r) => r.id },
);

/** One appointment of the clinic; 404 when absent or in another clinic. */
export async function getAppointment(db: Db, clinicId: string, id: string): Promise<AppointmentView> {
  const [row] = await selectAppointments(db).where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, id)));
  if (!row) throw notFound("appointment");
  return toAppointment(row);
}

/** Whose appointments a list shows: one clinic's (staff), or one patient's in every clinic (U1). */
export type AppointmentOwner =
  { clinicId: string; patientUserId?: undefined } | { patientUserId: string; clinicId?: undefined };

export type AppointmentQuery = AppointmentOwner & {
  /** Starting at or after. */
  from?: Date | undefined;
  /** Starting before. */
  to?: Date | undefined;
  providerId?: string | undefined;
  serviceId?: string | undefined;
  /** Only these statuses; absent: every status but `held` (holds are listed only when asked for). */
  status?: readonly AppointmentStatus[] | undefined;
  /** A patient's name (every word, accents and case aside, a typo forgiven) or 3+ digits of their phone. */
  patient?: string | undefined;
  limit: number;
  cursor?: string | undefined;
};

/** `%`, `_` and `\` of a user's text, literal in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The desk's search (B2 `patient`): digits alone (3 or more) match inside the phone number's
 * digits; otherwise every word must be in the name (accents and case aside) or close to one of its
 * words (trigram word similarity ≥ 0.5: one typo in a name).
 */
function patientMatches(text: string): SQL {
  const digits = text.replace(/\D/g, "");
  if (!/\p{L}/u.test(text) && digits.length >= 3)
    return sql`regexp_replace(coalesce(${appointments.patientPhoneE164}, ''), '\\D', '', 'g') like ${`%${digits}%`}`;
  const name = sql`search_text(${appointments.patientName})`;
  const words = text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length === 0) return sql`false`;
  const each = words.map(
    (word) =>
      sql`(${name} like '%' || search_text(${likeLiteral(word)}) || '%' or word_similarity(search_text(${word}), ${name}) >= 0.5)`,
  );
  return sql`(${sql.join(each, sql` and `)})`;
}

/** A clinic's or a patient's appointments by start, filtered, keyset-paginated. */
export async function listAppointments(
  db: Db,
  query: AppointmentQuery,
): Promise<{ appointments: AppointmentView[]; next_cursor: string | null }> {
  const rows = await selectAppointments(db)
    .where(
      and(
        query.clinicId !== undefined
          ? eq(appointments.clinicId, query.clinicId)
          : eq(appointments.patientUserId, query.patientUserId),
        query.from ? gte(appointments.startsAt, query.from) : undefined,
        query.to ? lt(appointments.startsAt, query.to) : undefined,
        query.providerId ? eq(appointments.providerId, query.providerId) : undefined,
        query.serviceId ? eq(appointments.serviceId, query.serviceId) : undefined,
        query.status ? inArray(appointments.status, [...query.status]) : ne(appointments.status, "held"),
        query.patient ? patientMatches(query.patient) : undefined,
        appointmentPages.after(query.cursor),
      ),
    )
    .orderBy(...appointmentPages.orderBy)
    .limit(query.limit + 1);
  const { items, next_cursor } = appointmentPages.page(rows, query.limit);
  return { appointments: items.map(toAppointment), next_cursor };
}

/**
 * Who acts on an appointment, and which ones they may change: any of the clinic's (STAFF), the
 * ones they booked (a custom role; else 403), or the ones booked for them as a patient (else 404:
 * another patient's appointment is not revealed).
 */
export interface AppointmentActor {
  /** Who acts; null for a manage link's holder who has no account (a guest, §15). */
  userId: string | null;
  /** "any": staff, or a manage link's holder (the link is the appointment's own credential). */
  may: "any" | "booked-by-me" | "mine-as-patient";
  /** For a patient: how many minutes before the start they may still change it (else 409). */
  cutoffMin?: number;
  now?: Date;
}

/** Locks the appointment for a change; 404 when it is not the clinic's, 403 when the actor may not touch it. */
export async function lockAppointment(db: Db, clinicId: string, id: string, actor: AppointmentActor) {
  const [row] = await db
    .select({
      serviceId: appointments.serviceId,
      providerId: appointments.providerId,
      startsAt: appointments.startsAt,
      endsAt: appointments.endsAt,
      status: appointments.status,
      bookedBy: appointments.bookedByUserId,
      patientUserId: appointments.patientUserId,
    })
    .from(appointments)
    .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, id)))
    .for("update");
  if (!row || (actor.may === "mine-as-patient" && row.patientUserId !== actor.userId)) throw notFound("appointment");
  if (actor.may === "booked-by-me" && row.bookedBy !== actor.userId)
    throw forbidden("your role may change only the appointments you booked");
  if (
    actor.cutoffMin !== undefined &&
    actor.now &&
    (row.status === "booked" || row.status === "pending") &&
    row.startsAt.getTime() - actor.now.getTime() < actor.cutoffMin * 60_000
  ) {
    throw new DomainError(
      "CANCELLATION_CUTOFF",
      `changes are possible until ${String(actor.cutoffMin)} minutes before the start; please contact the clinic`,
      {
        extra: { cutoff_min: actor.cutoffMin },
      },
    );
  }
  return row;
}
