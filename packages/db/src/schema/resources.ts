import { sql } from "drizzle-orm";
import { boolean, check, foreignKey, index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { clinics } from "./clinics.ts";
import { instant, tenantRowId, timestamps } from "./columns.ts";

/**
 * A room or a piece of equipment of a clinic (CONTRACT §14 Q1–Q5, docs/resources.md). A service
 * that needs kinds of them (`services.required_resource_kinds`) is offered only when one active
 * resource of each kind is free, and a booking takes one of each. Deleting one keeps its row
 * (`deleted_at`): appointments keep their record of it.
 */
export const resources = pgTable(
  "resources",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Free text, e.g. `treatment_room`: what services ask for. */
    kind: text("kind").notNull(),
    isActive: boolean("is_active").notNull().default(true),
    deletedAt: instant("deleted_at"),
    ...timestamps("resources"),
  },
  (t) => [
    primaryKey({ name: "resources_pkey", columns: [t.clinicId, t.id] }),
    check("resources_name_length", sql`char_length(${t.name}) between 1 and 200`),
    check("resources_kind_format", sql`${t.kind} ~ '^[a-z0-9][a-z0-9_-]{0,63}$'`),
    index("resources_clinic_kind_name_idx").on(t.clinicId, t.kind, t.name, t.id),
  ],
);

/** A time a resource cannot be used (Q5: scope `resource`). */
export const resourceClosures = pgTable(
  "resource_closures",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    resourceId: uuid("resource_id").notNull(),
    startsAt: instant("starts_at").notNull(),
    endsAt: instant("ends_at").notNull(),
    reason: text("reason"),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "resource_closures_pkey", columns: [t.clinicId, t.id] }),
    foreignKey({
      name: "resource_closures_resource_fk",
      columns: [t.clinicId, t.resourceId],
      foreignColumns: [resources.clinicId, resources.id],
    }),
    check("resource_closures_time_range", sql`${t.endsAt} > ${t.startsAt}`),
    check("resource_closures_reason_length", sql`${t.reason} is null or char_length(${t.reason}) <= 500`),
    index("resource_closures_clinic_resource_idx").on(t.clinicId, t.resourceId, t.startsAt),
  ],
);

/**
 * The occupied time of each resource an occupying appointment holds (docs/resources.md). Its
 * exclusion constraint (resource_bookings_no_overlap, custom migration) refuses one resource in two
 * overlapping appointments but the seats of one group session, which share theirs. Kept by the
 * booking functions like provider_busy: claimed before the appointment is written, removed when it
 * stops occupying time.
 */
export const resourceBookings = pgTable(
  "resource_bookings",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    resourceId: uuid("resource_id").notNull(),
    appointmentId: uuid("appointment_id").notNull(),
    occupiedStart: instant("occupied_start").notNull(),
    occupiedEnd: instant("occupied_end").notNull(),
    sessionKey: uuid("session_key"),
    heldUntil: instant("held_until"),
  },
  (t) => [
    primaryKey({ name: "resource_bookings_pkey", columns: [t.clinicId, t.resourceId, t.appointmentId] }),
    foreignKey({
      name: "resource_bookings_resource_fk",
      columns: [t.clinicId, t.resourceId],
      foreignColumns: [resources.clinicId, resources.id],
    }),
    check("resource_bookings_range", sql`${t.occupiedEnd} > ${t.occupiedStart}`),
    index("resource_bookings_clinic_appointment_idx").on(t.clinicId, t.appointmentId),
  ],
);
