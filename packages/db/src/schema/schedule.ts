import { sql } from "drizzle-orm";
import { check, foreignKey, index, pgTable, smallint, text, uuid } from "drizzle-orm/pg-core";
import { clinicMembers, clinics } from "./clinics.ts";
import { idColumn, instant, timestamps } from "./columns.ts";

export const scopes = ["clinic", "provider"] as const;
export type Scope = (typeof scopes)[number];

/**
 * Weekly opening periods of a clinic (provider_id null) or of a provider in a clinic, as clinic
 * wall-clock minutes of day, half-open [opens_min, closes_min). The exclusion constraint
 * `work_hours_no_overlap` (custom migration) refuses overlapping periods of one scope, owner and
 * weekday, so concurrent writers cannot both win.
 */
export const workHours = pgTable(
  "work_hours",
  {
    id: idColumn(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    scope: text("scope", { enum: scopes }).notNull(),
    providerId: uuid("provider_id"),
    weekday: smallint("weekday").notNull(),
    opensMin: smallint("opens_min").notNull(),
    closesMin: smallint("closes_min").notNull(),
    ...timestamps(),
  },
  (t) => [
    foreignKey({
      name: "work_hours_provider_fk",
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    })
      .onUpdate("cascade")
      .onDelete("cascade"),
    check("work_hours_scope_owner", sql`(${t.scope} = 'clinic') = (${t.providerId} is null)`),
    check("work_hours_scope_check", sql`${t.scope} in ('clinic', 'provider')`),
    check("work_hours_weekday_range", sql`${t.weekday} between 1 and 7`),
    check("work_hours_time_range", sql`${t.opensMin} >= 0 and ${t.closesMin} <= 1440 and ${t.closesMin} > ${t.opensMin}`),
    index("work_hours_clinic_owner_idx").on(t.clinicId, t.providerId, t.weekday, t.opensMin),
  ],
);

/** Instant ranges [starts_at, ends_at) during which a clinic or one provider takes no bookings. */
export const closures = pgTable(
  "closures",
  {
    id: idColumn(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    scope: text("scope", { enum: scopes }).notNull(),
    providerId: uuid("provider_id"),
    startsAt: instant("starts_at").notNull(),
    endsAt: instant("ends_at").notNull(),
    reason: text("reason"),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: "closures_provider_fk",
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    })
      .onUpdate("cascade")
      .onDelete("cascade"),
    check("closures_scope_owner", sql`(${t.scope} = 'clinic') = (${t.providerId} is null)`),
    check("closures_scope_check", sql`${t.scope} in ('clinic', 'provider')`),
    check("closures_time_range", sql`${t.endsAt} > ${t.startsAt}`),
    check("closures_reason_length", sql`${t.reason} is null or char_length(${t.reason}) <= 500`),
    index("closures_clinic_owner_idx").on(t.clinicId, t.providerId, t.startsAt),
  ],
);
