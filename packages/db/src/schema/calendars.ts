import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { clinicMembers, clinics } from "./clinics.ts";
import { instant, tenantRowId, timestamps } from "./columns.ts";

export const calendarKinds = ["ics", "caldav"] as const;
export type CalendarKind = (typeof calendarKinds)[number];
export const calendarStatuses = ["pending", "ok", "error", "stale"] as const;
export type CalendarStatus = (typeof calendarStatuses)[number];

/** What a sync remembers of the calendar to skip a read when nothing changed (docs/calendars.md#sync). */
export interface CalendarSyncState {
  /** CalDAV: the collection's sync-token and getctag as last read. */
  syncToken?: string | null;
  ctag?: string | null;
  /** ICS: the validators of the last answer. */
  etag?: string | null;
  lastModified?: string | null;
  /** When the whole horizon was last read (a skip never lasts longer than a day: the horizon moves). */
  fullReadAt?: string | null;
}

/**
 * A provider's own calendar (CONTRACT §18; docs/calendars.md): read as busy time, and for CalDAV
 * with `write_back` written their appointments. Its full URL and its credentials are one secret,
 * `secret`, encrypted with CALENDAR_KEY (AES-256-GCM); `shown_url` is the URL without credentials
 * and query string, the only form the API answers.
 */
export const calendars = pgTable(
  "calendars",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    providerId: uuid("provider_id").notNull(),
    kind: text("kind", { enum: calendarKinds }).notNull(),
    shownUrl: text("shown_url").notNull(),
    /** `{url, username, password}` encrypted (modules/calendars/secret.ts). */
    secret: text("secret").notNull(),
    name: text("name"),
    writeBack: boolean("write_back").notNull().default(false),
    status: text("status", { enum: calendarStatuses }).notNull().default("pending"),
    lastSyncedAt: instant("last_synced_at"),
    lastError: text("last_error"),
    busyCount: integer("busy_count").notNull().default(0),
    /** A digest of the busy set and the clinics it is copied to: a sync that finds the same writes nothing. */
    busyDigest: text("busy_digest"),
    /** The clinics that hold a copy of its busy time (the provider's clinics when it was written). */
    busyClinicIds: uuid("busy_clinic_ids")
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    syncState: jsonb("sync_state").$type<CalendarSyncState>().notNull().default({}),
    ...timestamps("calendars"),
  },
  (t) => [
    primaryKey({ name: "calendars_pkey", columns: [t.clinicId, t.id] }),
    foreignKey({
      name: "calendars_provider_fk",
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    }).onDelete("cascade"),
    index("calendars_provider_idx").on(t.clinicId, t.providerId),
    check("calendars_kind_check", sql`${t.kind} in ('ics', 'caldav')`),
    check("calendars_status_check", sql`${t.status} in ('pending', 'ok', 'error', 'stale')`),
    check("calendars_write_back_check", sql`not ${t.writeBack} or ${t.kind} = 'caldav'`),
    check("calendars_name_length", sql`${t.name} is null or char_length(${t.name}) between 1 and 200`),
    check("calendars_shown_url_length", sql`char_length(${t.shownUrl}) between 8 and 2048`),
  ],
);

/**
 * A provider's busy time from their calendars, as the clinic that reads it sees it: one copy in
 * each clinic of the provider (§18: it blocks them in every clinic), so that a clinic's read stays
 * on its own shard (docs/calendars.md#one-provider-one-truth). Disjoint intervals per calendar.
 * A `stale` row spans all time: the calendar may be wrong, so the provider offers nothing.
 */
export const calendarBusy = pgTable(
  "calendar_busy",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    providerId: uuid("provider_id").notNull(),
    /** The calendar, of the clinic `calendar_clinic_id` (not always this row's clinic). */
    calendarClinicId: uuid("calendar_clinic_id").notNull(),
    calendarId: uuid("calendar_id").notNull(),
    startsAt: instant("starts_at").notNull(),
    endsAt: instant("ends_at").notNull(),
    stale: boolean("stale").notNull().default(false),
  },
  (t) => [
    primaryKey({ name: "calendar_busy_pkey", columns: [t.clinicId, t.calendarId, t.startsAt] }),
    index("calendar_busy_provider_idx").on(t.clinicId, t.providerId, t.endsAt),
    check("calendar_busy_range_check", sql`${t.startsAt} < ${t.endsAt}`),
  ],
);

/** An appointment written into a provider's calendar (write-back): where, and as which version. */
export const calendarWrites = pgTable(
  "calendar_writes",
  {
    clinicId: uuid("clinic_id").notNull(),
    calendarId: uuid("calendar_id").notNull(),
    appointmentId: uuid("appointment_id").notNull(),
    /** The object's URL in the collection. */
    href: text("href").notNull(),
    etag: text("etag"),
    /** The appointment's revision that was written. */
    revision: integer("revision").notNull(),
    writtenAt: instant("written_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "calendar_writes_pkey", columns: [t.clinicId, t.appointmentId, t.calendarId] }),
    foreignKey({
      name: "calendar_writes_calendar_fk",
      columns: [t.clinicId, t.calendarId],
      foreignColumns: [calendars.clinicId, calendars.id],
    }).onDelete("cascade"),
  ],
);
