import { sql } from "drizzle-orm";
import {
  check,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  time,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { clinicMembers, clinics } from "./clinics.ts";
import { instant, tenantRowId, timestamps } from "./columns.ts";
import { services } from "./services.ts";
import { users } from "./users.ts";

/** What a patient message is about (§15, docs/messages.md). */
export const messageKinds = [
  "booked",
  "confirmed",
  "rescheduled",
  "canceled",
  "reminder",
  "waitlist_offer",
  "guest_confirm",
] as const;
export type MessageKind = (typeof messageKinds)[number];

export const messageStatuses = ["pending", "sent", "failed", "skipped"] as const;
export type MessageStatus = (typeof messageStatuses)[number];

/**
 * The e-mails the service sends patients (§15 N1): planned in the transaction of the change they
 * tell of (one per change and kind, `clinic_plan_message`, drizzle/0010), rendered and sent after
 * the commit by the `message-send` job, retried with the webhook backoff. `data` is what the
 * message tells: the appointment as it was at the change, plus what the kind adds.
 */
export const messages = pgTable(
  "messages",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    appointmentId: uuid("appointment_id").notNull(),
    kind: text("kind", { enum: messageKinds }).notNull(),
    /** What caused it (an event id, or a waitlist offer): one message per cause and kind. */
    causeId: uuid("cause_id").notNull(),
    to: text("to").notNull(),
    /** Filled when the message is rendered (just before its first attempt). */
    subject: text("subject"),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    status: text("status", { enum: messageStatuses }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    nextAttemptAt: instant("next_attempt_at"),
    sentAt: instant("sent_at"),
    ...timestamps("messages"),
  },
  (t) => [
    primaryKey({ name: "messages_pkey", columns: [t.clinicId, t.id] }),
    unique("messages_cause_key").on(t.clinicId, t.causeId, t.kind),
    check(
      "messages_kind_check",
      sql`${t.kind} in ('booked', 'confirmed', 'rescheduled', 'canceled', 'reminder', 'waitlist_offer', 'guest_confirm')`,
    ),
    check("messages_status_check", sql`${t.status} in ('pending', 'sent', 'failed', 'skipped')`),
    index("messages_clinic_created_idx").on(t.clinicId, t.createdAt, t.id),
    index("messages_clinic_appointment_idx").on(t.clinicId, t.appointmentId),
  ],
);

export const waitlistStatuses = ["waiting", "offered", "booked", "expired", "canceled"] as const;
export type WaitlistStatus = (typeof waitlistStatuses)[number];

/**
 * A patient waiting for a free time (§15 WL1–WL4, docs/waitlist.md): a service (and provider),
 * a date range, weekdays (ISO 1 = Monday … 7) and a clinic-local time window. While `offered`, the
 * offer is a `held` appointment for the patient (`offer_appointment_id`) until `offer_expires_at`.
 * `passed` lists the starts the entry was offered and did not take, which it is not offered again.
 */
export const waitlistEntries = pgTable(
  "waitlist_entries",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id").notNull(),
    providerId: uuid("provider_id"),
    fromDate: date("from_date", { mode: "string" }).notNull(),
    toDate: date("to_date", { mode: "string" }).notNull(),
    weekdays: smallint("weekdays")
      .array()
      .notNull()
      .default(sql`'{1,2,3,4,5,6,7}'::smallint[]`),
    earliest: time("earliest", { precision: 0 }),
    latest: time("latest", { precision: 0 }),
    patientUserId: uuid("patient_user_id"),
    patientName: text("patient_name").notNull(),
    patientEmail: text("patient_email"),
    patientPhoneE164: text("patient_phone_e164"),
    status: text("status", { enum: waitlistStatuses }).notNull().default("waiting"),
    offerAppointmentId: uuid("offer_appointment_id"),
    offerExpiresAt: instant("offer_expires_at"),
    passed: jsonb("passed")
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdByUserId: uuid("created_by_user_id"),
    ...timestamps("waitlist_entries"),
  },
  (t) => [
    primaryKey({ name: "waitlist_entries_pkey", columns: [t.clinicId, t.id] }),
    foreignKey({
      name: "waitlist_entries_service_fk",
      columns: [t.clinicId, t.serviceId],
      foreignColumns: [services.clinicId, services.id],
    }).onDelete("cascade"),
    foreignKey({
      name: "waitlist_entries_provider_fk",
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    }).onDelete("cascade"),
    foreignKey({
      name: "waitlist_entries_patient_user_fk",
      columns: [t.patientUserId],
      foreignColumns: [users.id],
    }).onDelete("set null"),
    check("waitlist_entries_status_check", sql`${t.status} in ('waiting', 'offered', 'booked', 'expired', 'canceled')`),
    check("waitlist_entries_date_range", sql`${t.toDate} >= ${t.fromDate}`),
    check(
      "waitlist_entries_time_window",
      sql`${t.earliest} is null or ${t.latest} is null or ${t.latest} > ${t.earliest}`,
    ),
    check(
      "waitlist_entries_weekdays",
      sql`cardinality(${t.weekdays}) between 1 and 7 and 1 <= all(${t.weekdays}) and 7 >= all(${t.weekdays})`,
    ),
    check(
      "waitlist_entries_offer_consistent",
      sql`${t.status} <> 'offered' or (${t.offerAppointmentId} is not null and ${t.offerExpiresAt} is not null)`,
    ),
    check("waitlist_entries_patient_name_length", sql`char_length(${t.patientName}) between 1 and 200`),
    index("waitlist_entries_clinic_status_idx").on(t.clinicId, t.status, t.createdAt, t.id),
    index("waitlist_entries_patient_idx").on(t.patientUserId, t.createdAt),
  ],
);
