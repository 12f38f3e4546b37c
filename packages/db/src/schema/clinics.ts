import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { idColumn, instant, tenantRowId, timestamps } from "./columns.ts";
import { users } from "./users.ts";

/** The languages of patient messages (§15). */
export const clinicLocales = ["en", "de"] as const;
export type ClinicLocale = (typeof clinicLocales)[number];

export const clinics = pgTable(
  "clinics",
  {
    id: idColumn(),
    name: text("name").notNull(),
    timezone: text("timezone").notNull().default("UTC"),
    // Patient self-service (docs/patients.md).
    onlineBooking: boolean("online_booking").notNull().default(false),
    patientCancelCutoffMin: integer("patient_cancel_cutoff_min").notNull().default(1440),
    maxOpenBookingsPerPatient: integer("max_open_bookings_per_patient").notNull().default(3),
    /** How long a hold keeps its slot (minutes, §13). */
    holdMinutes: integer("hold_minutes").notNull().default(10),
    /** Patients with this many no-shows in the last 365 days may not book online (null: no limit, §13). */
    noShowLimit: integer("no_show_limit"),
    /** The language of the messages patients get (§15). */
    locale: text("locale", { enum: clinicLocales }).notNull().default("en"),
    /** How long a waitlist offer holds its slot (minutes, §15). */
    offerMinutes: integer("offer_minutes").notNull().default(30),
    /** The most unconfirmed guest holds the clinic keeps at once (§15 v1.3; 0: no guest bookings). */
    guestHoldsMax: integer("guest_holds_max").notNull().default(20),
    /**
     * Days after its end that an appointment keeps its patient's personal values (§21): then the
     * daily retention job pseudonymizes it and what was copied from it. Null = keep.
     */
    retentionDays: integer("retention_days"),
    // Reminders (docs/events.md#reminders): minutes before each appointment's start.
    reminderOffsetsMin: integer("reminder_offsets_min")
      .array()
      .notNull()
      .default(sql`'{1440}'::integer[]`),
    ...timestamps("clinics"),
  },
  (t) => [
    check("clinics_name_length", sql`char_length(${t.name}) between 1 and 200`),
    check("clinics_patient_cancel_cutoff_range", sql`${t.patientCancelCutoffMin} between 0 and 10080`),
    check("clinics_max_open_bookings_range", sql`${t.maxOpenBookingsPerPatient} between 1 and 100`),
    check("clinics_hold_minutes_range", sql`${t.holdMinutes} between 1 and 60`),
    check("clinics_locale_check", sql`${t.locale} in ('en', 'de')`),
    check("clinics_offer_minutes_range", sql`${t.offerMinutes} between 5 and 1440`),
    check("clinics_guest_holds_max_range", sql`${t.guestHoldsMax} between 0 and 1000`),
    check("clinics_retention_days_range", sql`${t.retentionDays} is null or ${t.retentionDays} between 30 and 3650`),
    check("clinics_no_show_limit_range", sql`${t.noShowLimit} is null or ${t.noShowLimit} between 1 and 20`),
    check(
      "clinics_reminder_offsets",
      sql`cardinality(${t.reminderOffsetsMin}) <= 5 and 5 <= all(${t.reminderOffsetsMin}) and 20160 >= all(${t.reminderOffsetsMin})`,
    ),
  ],
);

export const memberStatuses = ["approved", "pending", "suspended"] as const;
export type MemberStatus = (typeof memberStatuses)[number];

/** The user-to-clinic membership: per-clinic name, role, provider flag and provider status. */
export const clinicMembers = pgTable(
  "clinic_members",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    userId: uuid("user_id").notNull(),
    // Name and contact details belong to the membership: what one clinic records about a person
    // never changes, nor discloses, what another clinic sees.
    fullName: text("full_name").notNull(),
    email: text("email").notNull(),
    phoneE164: text("phone_e164"),
    clinicRole: text("clinic_role").notNull().default("STAFF"),
    isProvider: boolean("is_provider").notNull().default(false),
    status: text("status", { enum: memberStatuses }).notNull().default("approved"),
    notes: text("notes"),
    // A provider's most appointments that occupy time on one clinic-local date (CONTRACT §8 v1.4); null: no limit.
    maxDailyAppointments: integer("max_daily_appointments"),
    ...timestamps("clinic_members"),
  },
  (t) => [
    primaryKey({ name: "clinic_members_pkey", columns: [t.clinicId, t.id] }),
    unique("clinic_members_clinic_user_key").on(t.clinicId, t.userId),
    foreignKey({ name: "clinic_members_user_fk", columns: [t.userId], foreignColumns: [users.id] }).onDelete("cascade"),
    check("clinic_members_status_check", sql`${t.status} in ('approved', 'pending', 'suspended')`),
    check("clinic_members_full_name_length", sql`char_length(${t.fullName}) between 1 and 200`),
    check("clinic_members_email_length", sql`char_length(${t.email}) between 3 and 320`),
    check("clinic_members_role_length", sql`char_length(${t.clinicRole}) between 1 and 64`),
    check(
      "clinic_members_max_daily_appointments_range",
      sql`${t.maxDailyAppointments} is null or ${t.maxDailyAppointments} between 1 and 100`,
    ),
    index("clinic_members_clinic_name_idx").on(t.clinicId, t.fullName, t.id),
    // A user's memberships in every clinic (a first login folding an invited placeholder in, and
    // a user's deletion): without this, a scan of every clinic's members.
    index("clinic_members_user_idx").on(t.userId),
  ],
);

/**
 * Availability cache versions: one row per clinic (scope_id = clinic id) and per provider
 * (scope_id = provider user id). Every write that changes availability bumps the affected row in
 * its own transaction; readers compare versions in one query, so caches on any process stay
 * coherent without a TTL.
 */
export const availabilityVersions = pgTable(
  "availability_versions",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    scopeId: uuid("scope_id").notNull(),
    /** Bumped by every change of what availability answers (schedules and bookings): the cache's key. */
    version: bigint("version", { mode: "number" }).notNull().default(0),
    /**
     * Bumped only by schedule changes (hours, overrides, closures, services, provider status, the
     * zone), not by bookings: what a booking re-checks, under a share lock, before it writes
     * (docs/performance.md#the-booking-path).
     */
    scheduleVersion: bigint("schedule_version", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "availability_versions_pkey", columns: [t.clinicId, t.scopeId] })],
);

/**
 * A person who books online with a clinic (docs/patients.md). One row per clinic and user; a
 * booking locks it, so one patient's parallel bookings are counted one after the other against
 * the clinic's open-bookings limit.
 */
export const clinicPatients = pgTable(
  "clinic_patients",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    userId: uuid("user_id").notNull(),
    firstBookedAt: instant("first_booked_at").notNull().defaultNow(),
    lastBookedAt: instant("last_booked_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "clinic_patients_pkey", columns: [t.clinicId, t.userId] }),
    // A user's deletion cascades here: without this, a scan of every clinic's patients.
    index("clinic_patients_user_idx").on(t.userId),
    foreignKey({ name: "clinic_patients_user_fk", columns: [t.userId], foreignColumns: [users.id] }).onDelete(
      "cascade",
    ),
  ],
);
