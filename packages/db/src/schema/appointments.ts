import { sql } from "drizzle-orm";
import { check, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { clinicMembers, clinics } from "./clinics.ts";
import { idColumn, instant, timestamps } from "./columns.ts";
import { services } from "./services.ts";

export const appointmentStatuses = ["booked", "canceled"] as const;
export type AppointmentStatus = (typeof appointmentStatuses)[number];

/**
 * A booking of one service with one provider. The exclusion constraint
 * `appointments_no_double_booking` (custom migration) refuses two booked appointments of one
 * provider that overlap in time.
 */
export const appointments = pgTable(
  "appointments",
  {
    id: idColumn(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id").notNull(),
    providerId: uuid("provider_id").notNull(),
    startsAt: instant("starts_at").notNull(),
    endsAt: instant("ends_at").notNull(),
    status: text("status", { enum: appointmentStatuses }).notNull().default("booked"),
    patientName: text("patient_name").notNull(),
    patientEmail: text("patient_email"),
    patientPhoneE164: text("patient_phone_e164"),
    notes: text("notes"),
    ...timestamps(),
    canceledAt: instant("canceled_at"),
  },
  (t) => [
    foreignKey({
      name: "appointments_service_fk",
      columns: [t.clinicId, t.serviceId],
      foreignColumns: [services.clinicId, services.id],
    }),
    foreignKey({
      name: "appointments_provider_fk",
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    }).onUpdate("cascade"),
    check("appointments_status_check", sql`${t.status} in ('booked', 'canceled')`),
    check("appointments_time_range", sql`${t.endsAt} > ${t.startsAt}`),
    check("appointments_canceled_consistent", sql`(${t.status} = 'canceled') = (${t.canceledAt} is not null)`),
    index("appointments_clinic_start_idx").on(t.clinicId, t.startsAt, t.id),
    index("appointments_clinic_provider_start_idx").on(t.clinicId, t.providerId, t.startsAt),
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
