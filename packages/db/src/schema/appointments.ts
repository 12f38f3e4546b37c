import { sql } from "drizzle-orm";
import { check, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { clinicMembers, clinics } from "./clinics.ts";
import { instant, tenantRowId, timestamps } from "./columns.ts";
import { services } from "./services.ts";
import { users } from "./users.ts";

/**
 * An appointment's life at the front desk (CONTRACT §13, docs/front-desk.md). Every status but
 * `canceled` occupies the appointment's time; a `held` one only until its `held_until`. That one
 * definition is `occupyingStatuses` here and `clinic_occupies(status, held_until, at)` in the
 * database (drizzle/0009_front_desk.sql), which the exclusion constraints, availability, limits and
 * explanations all use; a test holds the two to each other.
 */
export const appointmentStatuses = [
  "held",
  "pending",
  "booked",
  "arrived",
  "completed",
  "no_show",
  "canceled",
] as const;
export type AppointmentStatus = (typeof appointmentStatuses)[number];
/** Every status that occupies the appointment's time: all but `canceled`. */
export const occupyingStatuses: readonly Exclude<AppointmentStatus, "canceled">[] = appointmentStatuses.filter(
  (status): status is Exclude<AppointmentStatus, "canceled"> => status !== "canceled",
);

/** One entry of an appointment's `status_history`, oldest first (§13). */
export interface StatusChange {
  status: AppointmentStatus;
  /** ISO 8601 instant. */
  at: string;
  by_user_id: string | null;
  reason: string | null;
}

/** The question types of §19. */
export const questionTypes = [
  "text",
  "long_text",
  "choice",
  "multi_choice",
  "boolean",
  "date",
  "number",
  "email",
  "phone",
] as const;
export type QuestionType = (typeof questionTypes)[number];

/** One answered question of an appointment, as it was asked (§19). */
export interface BookingAnswer {
  key: string;
  label: string;
  type: QuestionType;
  value: string | number | boolean | string[];
}

export const seriesModes = ["all_or_nothing", "skip_unavailable"] as const;
export type SeriesMode = (typeof seriesModes)[number];

/**
 * A course of treatment (§14, docs/series.md): one booking request for the occurrences of an
 * RRULE, each an appointment pointing here. What the request asked is kept as it came (the rule,
 * the first start, the patient); the starts that could not be booked with `skip_unavailable` are
 * kept in `skipped` with their reasons.
 */
export const appointmentSeries = pgTable(
  "appointment_series",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id").notNull(),
    /** The provider asked for, or null (each occurrence then has its own). */
    providerId: uuid("provider_id"),
    rrule: text("rrule").notNull(),
    startsAt: instant("starts_at").notNull(),
    mode: text("mode", { enum: seriesModes }).notNull(),
    patientName: text("patient_name").notNull(),
    patientEmail: text("patient_email"),
    patientPhoneE164: text("patient_phone_e164"),
    patientUserId: uuid("patient_user_id"),
    notes: text("notes"),
    /** `[{start, reasons}]` of the occurrences left out (skip_unavailable). */
    skipped: jsonb("skipped")
      .$type<unknown[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    bookedByUserId: uuid("booked_by_user_id"),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "appointment_series_pkey", columns: [t.clinicId, t.id] }),
    foreignKey({
      name: "appointment_series_service_fk",
      columns: [t.clinicId, t.serviceId],
      foreignColumns: [services.clinicId, services.id],
    }),
    check("appointment_series_mode_check", sql`${t.mode} in ('all_or_nothing', 'skip_unavailable')`),
  ],
);

/**
 * A booking of one service with one provider. It occupies its provider for
 * [occupied_start, occupied_end): its time widened by the buffers its service had when it was
 * booked. The exclusion constraint `appointments_no_double_booking` (custom migration) refuses two
 * booked appointments of one provider whose occupied ranges overlap.
 */
export const appointments = pgTable(
  "appointments",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id").notNull(),
    providerId: uuid("provider_id").notNull(),
    startsAt: instant("starts_at").notNull(),
    endsAt: instant("ends_at").notNull(),
    bufferBeforeMin: integer("buffer_before_min").notNull().default(0),
    bufferAfterMin: integer("buffer_after_min").notNull().default(0),
    // Stored because an index expression cannot compute them (timestamptz − interval is only STABLE).
    occupiedStart: instant("occupied_start").notNull(),
    occupiedEnd: instant("occupied_end").notNull(),
    status: text("status", { enum: appointmentStatuses }).notNull().default("booked"),
    /** Until when a `held` appointment keeps its time (null for every other status). */
    heldUntil: instant("held_until"),
    /** Every status it had, oldest first, starting with the first. */
    statusHistory: jsonb("status_history")
      .$type<StatusChange[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    patientName: text("patient_name").notNull(),
    patientEmail: text("patient_email"),
    patientPhoneE164: text("patient_phone_e164"),
    notes: text("notes"),
    /** The registered patient it is for (their own booking, or staff booking for them), or null. */
    patientUserId: uuid("patient_user_id"),
    /** Who booked it (null for appointments booked before this was recorded). */
    bookedByUserId: uuid("booked_by_user_id"),
    ...timestamps("appointments"),
    canceledAt: instant("canceled_at"),
    rescheduledAt: instant("rescheduled_at"),
    /**
     * When it became `booked` at its current start — its booking, confirmation or last move, by the
     * writer's clock — or null while it is held or pending. Its reminders (§10) are those whose
     * moment (start − offset) is after this: none whose moment had passed when it was booked. The
     * clinic's reminder sweep reads it (docs/events.md#reminders); nothing else is written for a
     * reminder before it is due.
     */
    remindersAfter: instant("reminders_after"),
    /** Bumped by each reschedule: the iCalendar SEQUENCE of its event. */
    revision: integer("revision").notNull().default(0),
    /**
     * The secret of the appointment's manage link (§15): the link's token is the clinic, the
     * appointment and this key (modules/manage), so a token is checked by one read of the row.
     */
    manageKey: uuid("manage_key")
      .notNull()
      .default(sql`gen_random_uuid()`),
    /**
     * The seat group of a group session (§14): the seats of one slot of a service with capacity > 1
     * share it (a hash of provider, service and time); null for any other appointment. The
     * exclusion constraint lets rows with one key overlap, and nothing else.
     */
    sessionKey: uuid("session_key"),
    /** The series (course of treatment) it is an occurrence of, or null (§14). */
    seriesId: uuid("series_id"),
    /**
     * A guest's hold (§15 O4 without a token): the keyed hash of the client address it came from
     * (never the address itself), by which the clinic's unconfirmed guest holds are counted per
     * address (docs/manage-links.md#guest-holds); null for every other appointment.
     */
    guestAddressHash: text("guest_address_hash"),
    /** The resources it holds, as they were when booked (§14): `[{id, name, kind}]`. */
    resources: jsonb("resources")
      .$type<{ id: string; name: string; kind: string }[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    /**
     * The service's questions as asked and answered at booking (§19, docs/questions.md), in the
     * service's order; a later change of the questions leaves them. Personal data: shown to staff,
     * the provider and the patient only — never in events, messages, feeds or the waitlist.
     */
    answers: jsonb("answers")
      .$type<BookingAnswer[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
  },
  (t) => [
    primaryKey({ name: "appointments_pkey", columns: [t.clinicId, t.id] }),
    foreignKey({
      name: "appointments_service_fk",
      columns: [t.clinicId, t.serviceId],
      foreignColumns: [services.clinicId, services.id],
    }),
    foreignKey({
      name: "appointments_provider_fk",
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    }),
    foreignKey({ name: "appointments_booked_by_fk", columns: [t.bookedByUserId], foreignColumns: [users.id] }).onDelete(
      "set null",
    ),
    foreignKey({
      name: "appointments_patient_user_fk",
      columns: [t.patientUserId],
      foreignColumns: [users.id],
    }).onDelete("set null"),
    foreignKey({
      name: "appointments_series_fk",
      columns: [t.clinicId, t.seriesId],
      foreignColumns: [appointmentSeries.clinicId, appointmentSeries.id],
    }),
    check(
      "appointments_status_check",
      sql`${t.status} in ('held', 'pending', 'booked', 'arrived', 'completed', 'no_show', 'canceled')`,
    ),
    check("appointments_held_consistent", sql`(${t.status} = 'held') = (${t.heldUntil} is not null)`),
    check("appointments_time_range", sql`${t.endsAt} > ${t.startsAt}`),
    check(
      "appointments_occupied_consistent",
      sql`${t.occupiedStart} = ${t.startsAt} - ${t.bufferBeforeMin} * interval '1 minute' and ${t.occupiedEnd} = ${t.endsAt} + ${t.bufferAfterMin} * interval '1 minute'`,
    ),
    check(
      "appointments_buffers_range",
      sql`${t.bufferBeforeMin} between 0 and 240 and ${t.bufferAfterMin} between 0 and 240`,
    ),
    check("appointments_answers_list", sql`jsonb_typeof(${t.answers}) = 'array'`),
    check("appointments_canceled_consistent", sql`(${t.status} = 'canceled') = (${t.canceledAt} is not null)`),
    index("appointments_clinic_start_idx").on(t.clinicId, t.startsAt, t.id),
    index("appointments_clinic_provider_start_idx").on(t.clinicId, t.providerId, t.startsAt),
    // A patient's own appointments (a patient's list U1, and the open-bookings count of one clinic).
    // Only rows with a patient user: a staff booking for a patient by name (most bookings) writes no
    // entry (issue 49); every query of it names the patient, which implies the predicate.
    index("appointments_patient_start_idx")
      .on(t.patientUserId, t.startsAt, t.id)
      .where(sql`${t.patientUserId} is not null`),
    // A user's deletion sets booked_by_user_id to null: without this, a scan of every appointment.
    index("appointments_booked_by_idx").on(t.bookedByUserId),
    index("appointments_series_idx")
      .on(t.clinicId, t.seriesId, t.startsAt)
      .where(sql`${t.seriesId} is not null`),
    // A clinic's unconfirmed guest holds, counted under the clinic's lock by each guest's booking
    // (clinic_book_guest_hold, drizzle/0020_guest_holds.sql): only the live ones are read.
    index("appointments_guest_holds_idx")
      .on(t.clinicId, t.heldUntil)
      .where(sql`${t.status} = 'held' and ${t.guestAddressHash} is not null`),
  ],
);

/** Stored responses of booking requests made with an Idempotency-Key. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    userId: uuid("user_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    statusCode: integer("status_code").notNull(),
    response: jsonb("response").$type<unknown>().notNull(),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "idempotency_keys_pkey", columns: [t.clinicId, t.userId, t.key] }),
    check("idempotency_keys_key_length", sql`char_length(${t.key}) between 1 and 255`),
  ],
);

/**
 * Fixed-window counters of rate limits that must hold across server processes (per-user booking
 * writes, counted in each clinic): one row per clinic, key and window, incremented atomically, on
 * the clinic's shard so that a booking's every statement runs there (docs/performance.md).
 */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    windowStart: instant("window_start").notNull(),
    hits: integer("hits").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "rate_limit_counters_pkey", columns: [t.clinicId, t.key, t.windowStart] }),
    index("rate_limit_counters_window_idx").on(t.windowStart),
  ],
);

/**
 * Providers who work in more than one clinic (CONTRACT §14, docs/shared-providers.md): their user
 * id and every clinic where they are a provider. Maintained by the members module whenever a
 * provider membership changes. On Citus a reference table: every node reads it locally, so a
 * booking asks "is this provider shared?" without leaving its shard.
 */
export const sharedProviders = pgTable("shared_providers", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  clinicIds: uuid("clinic_ids").array().notNull(),
  updatedAt: instant("updated_at").notNull().defaultNow(),
});

/**
 * The occupied time of a shared provider's appointments in all their clinics, one row per
 * appointment that occupies time (docs/shared-providers.md). Its exclusion constraint
 * (provider_busy_no_overlap, custom migration) refuses two overlapping rows of one user but seats
 * of one group session, so one person is never booked in two clinics at once. Written by
 * clinic_sync_busy in the transaction of each change of such an appointment. On Citus
 * distributed by user_id: one provider's rows are on one shard, whichever clinics they come from.
 */
export const providerBusy = pgTable(
  "provider_busy",
  {
    userId: uuid("user_id").notNull(),
    clinicId: uuid("clinic_id").notNull(),
    appointmentId: uuid("appointment_id").notNull(),
    occupiedStart: instant("occupied_start").notNull(),
    occupiedEnd: instant("occupied_end").notNull(),
    sessionKey: uuid("session_key"),
    /** A hold's end: after it the row occupies nothing (the next writer in its way deletes it). */
    heldUntil: instant("held_until"),
  },
  (t) => [
    primaryKey({ name: "provider_busy_pkey", columns: [t.userId, t.clinicId, t.appointmentId] }),
    check("provider_busy_range", sql`${t.occupiedEnd} > ${t.occupiedStart}`),
  ],
);
