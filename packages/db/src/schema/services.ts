import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { clinicMembers, clinics } from "./clinics.ts";
import { instant, tenantRowId, timestamps } from "./columns.ts";

/** A bookable offering; at most one assigned provider (by user id), null = any provider. */
export const services = pgTable(
  "services",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    durationMin: integer("duration_min").notNull(),
    price: numeric("price", { precision: 10, scale: 2 }),
    providerId: uuid("provider_id"),
    isActive: boolean("is_active").notNull().default(true),
    /** Patients' own bookings are `pending` until the clinic confirms them (§13). */
    requiresConfirmation: boolean("requires_confirmation").notNull().default(false),
    /** Seats of one slot (§14): up to this many appointments share a slot of one provider (a group session). */
    capacity: integer("capacity").notNull().default(1),
    /** Kinds of resources a booking needs, one of each (§14): e.g. `["treatment_room"]`. */
    requiredResourceKinds: text("required_resource_kinds")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    // Booking rules (docs/availability.md#booking-rules).
    bufferBeforeMin: integer("buffer_before_min").notNull().default(0),
    bufferAfterMin: integer("buffer_after_min").notNull().default(0),
    slotStepMin: integer("slot_step_min"),
    minNoticeMin: integer("min_notice_min").notNull().default(0),
    bookingHorizonDays: integer("booking_horizon_days"),
    /**
     * What a booking of it asks the patient (§19, docs/questions.md): `[{key, label, type, required,
     * options?, max_length?}]`, validated when saved by `questionsInput` (packages/api/src/schemas/questions.ts).
     */
    questions: jsonb("questions")
      .$type<unknown[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    deletedAt: instant("deleted_at"),
    ...timestamps("services"),
  },
  (t) => [
    primaryKey({ name: "services_pkey", columns: [t.clinicId, t.id] }),
    foreignKey({
      name: "services_provider_fk",
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    }),
    check("services_capacity_range", sql`${t.capacity} between 1 and 200`),
    check("services_duration_range", sql`${t.durationMin} between 1 and 1440`),
    check("services_price_non_negative", sql`${t.price} is null or ${t.price} >= 0`),
    check("services_name_length", sql`char_length(${t.name}) between 1 and 200`),
    check(
      "services_buffers_range",
      sql`${t.bufferBeforeMin} between 0 and 240 and ${t.bufferAfterMin} between 0 and 240`,
    ),
    check("services_slot_step_range", sql`${t.slotStepMin} is null or ${t.slotStepMin} between 5 and 1440`),
    check("services_min_notice_range", sql`${t.minNoticeMin} between 0 and 525600`),
    check(
      "services_booking_horizon_range",
      sql`${t.bookingHorizonDays} is null or ${t.bookingHorizonDays} between 1 and 730`,
    ),
    check(
      "services_questions_list",
      sql`jsonb_typeof(${t.questions}) = 'array' and jsonb_array_length(${t.questions}) <= 30`,
    ),
    index("services_clinic_name_idx").on(t.clinicId, t.name, t.id),
    index("services_clinic_provider_idx").on(t.clinicId, t.providerId),
  ],
);

export const auditActions = [
  "SERVICE_CREATED",
  "SERVICE_UPDATED",
  "SERVICE_DELETED",
  // Patient data (§21): an erasure (resource: the patient's pseudonym) and a retention run (resource: the clinic).
  "PATIENT_ERASED",
  "RETENTION_APPLIED",
] as const;
export type AuditAction = (typeof auditActions)[number];

/** Append-only trail of service changes, written in the transaction of the change. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    action: text("action", { enum: auditActions }).notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: uuid("resource_id").notNull(),
    userEmail: text("user_email").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull(),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "audit_log_pkey", columns: [t.clinicId, t.id] }),
    check(
      "audit_log_action_check",
      sql`${t.action} in ('SERVICE_CREATED', 'SERVICE_UPDATED', 'SERVICE_DELETED', 'PATIENT_ERASED', 'RETENTION_APPLIED')`,
    ),
    index("audit_log_clinic_created_idx").on(t.clinicId, t.createdAt, t.id),
    index("audit_log_clinic_resource_idx").on(t.clinicId, t.resourceType, t.resourceId),
  ],
);
