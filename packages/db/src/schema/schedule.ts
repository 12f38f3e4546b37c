import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  check,
  date,
  foreignKey,
  index,
  pgTable,
  primaryKey,
  smallint,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { clinicMembers, clinics } from "./clinics.ts";
import { instant, tenantRowId, timestamps } from "./columns.ts";

export const scopes = ["clinic", "provider"] as const;
export type Scope = (typeof scopes)[number];

/** Who a schedule row belongs to: the clinic (provider_id null) or one provider in it. */
const scheduleOwner = () => ({
  clinicId: uuid("clinic_id")
    .notNull()
    .references(() => clinics.id, { onDelete: "cascade" }),
  scope: text("scope", { enum: scopes }).notNull(),
  providerId: uuid("provider_id"),
});

/**
 * The owner's constraints: a provider owner is a member of the clinic (a removed member takes
 * their rows along), and the scope says exactly whether there is a provider.
 */
function scheduleOwnerConstraints(
  table: string,
  t: { clinicId: AnyPgColumn; scope: AnyPgColumn; providerId: AnyPgColumn },
) {
  return [
    foreignKey({
      name: `${table}_provider_fk`,
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    }).onDelete("cascade"),
    check(`${table}_scope_owner`, sql`(${t.scope} = 'clinic') = (${t.providerId} is null)`),
    check(`${table}_scope_check`, sql`${t.scope} in ('clinic', 'provider')`),
  ];
}

/**
 * Weekly opening periods of a clinic (provider_id null) or of a provider in a clinic, as clinic
 * wall-clock minutes of day, half-open [opens_min, closes_min). The exclusion constraint
 * `work_hours_no_overlap` (custom migration) refuses overlapping periods of one scope, owner and
 * weekday, so concurrent writers cannot both win.
 */
export const workHours = pgTable(
  "work_hours",
  {
    id: tenantRowId(),
    ...scheduleOwner(),
    weekday: smallint("weekday").notNull(),
    opensMin: smallint("opens_min").notNull(),
    closesMin: smallint("closes_min").notNull(),
    ...timestamps("work_hours"),
  },
  (t) => [
    primaryKey({ name: "work_hours_pkey", columns: [t.clinicId, t.id] }),
    ...scheduleOwnerConstraints("work_hours", t),
    check("work_hours_weekday_range", sql`${t.weekday} between 1 and 7`),
    check(
      "work_hours_time_range",
      sql`${t.opensMin} >= 0 and ${t.closesMin} <= 1440 and ${t.closesMin} > ${t.opensMin}`,
    ),
    index("work_hours_clinic_owner_idx").on(t.clinicId, t.providerId, t.weekday, t.opensMin),
  ],
);

/** Instant ranges [starts_at, ends_at) during which a clinic or one provider takes no bookings. */
export const closures = pgTable(
  "closures",
  {
    id: tenantRowId(),
    ...scheduleOwner(),
    startsAt: instant("starts_at").notNull(),
    endsAt: instant("ends_at").notNull(),
    reason: text("reason"),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "closures_pkey", columns: [t.clinicId, t.id] }),
    ...scheduleOwnerConstraints("closures", t),
    check("closures_time_range", sql`${t.endsAt} > ${t.startsAt}`),
    check("closures_reason_length", sql`${t.reason} is null or char_length(${t.reason}) <= 500`),
    index("closures_clinic_owner_idx").on(t.clinicId, t.providerId, t.startsAt),
  ],
);

/**
 * A date on which an owner's periods replace its weekly hours (a clinic's Saturday surgery, a
 * provider's short day); no periods = closed all day. One per owner and local date.
 */
export const dateOverrides = pgTable(
  "date_overrides",
  {
    id: tenantRowId(),
    ...scheduleOwner(),
    date: date("date", { mode: "string" }).notNull(),
    reason: text("reason"),
    ...timestamps("date_overrides"),
  },
  (t) => [
    primaryKey({ name: "date_overrides_pkey", columns: [t.clinicId, t.id] }),
    unique("date_overrides_owner_date_key").on(t.clinicId, t.providerId, t.date).nullsNotDistinct(),
    ...scheduleOwnerConstraints("date_overrides", t),
    check("date_overrides_reason_length", sql`${t.reason} is null or char_length(${t.reason}) <= 500`),
  ],
);

/**
 * The periods of a date override, in clinic wall-clock minutes, half-open. The exclusion
 * constraint `date_override_periods_no_overlap` (custom migration) refuses overlapping periods of
 * one override.
 */
export const dateOverridePeriods = pgTable(
  "date_override_periods",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    overrideId: uuid("override_id").notNull(),
    opensMin: smallint("opens_min").notNull(),
    closesMin: smallint("closes_min").notNull(),
  },
  (t) => [
    primaryKey({ name: "date_override_periods_pkey", columns: [t.clinicId, t.overrideId, t.opensMin] }),
    foreignKey({
      name: "date_override_periods_override_fk",
      columns: [t.clinicId, t.overrideId],
      foreignColumns: [dateOverrides.clinicId, dateOverrides.id],
    }).onDelete("cascade"),
    check(
      "date_override_periods_time_range",
      sql`${t.opensMin} >= 0 and ${t.closesMin} <= 1440 and ${t.closesMin} > ${t.opensMin}`,
    ),
  ],
);
