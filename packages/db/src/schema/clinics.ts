import { sql } from "drizzle-orm";
import { bigint, boolean, check, foreignKey, index, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { idColumn, timestamps } from "./columns.ts";
import { users } from "./users.ts";

export const clinics = pgTable(
  "clinics",
  {
    id: idColumn(),
    name: text("name").notNull(),
    timezone: text("timezone").notNull().default("UTC"),
    ...timestamps(),
  },
  (t) => [check("clinics_name_length", sql`char_length(${t.name}) between 1 and 200`)],
);

export const memberStatuses = ["approved", "pending", "suspended"] as const;
export type MemberStatus = (typeof memberStatuses)[number];

/** The user-to-clinic membership: per-clinic name, role, provider flag and provider status. */
export const clinicMembers = pgTable(
  "clinic_members",
  {
    id: idColumn(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    userId: uuid("user_id").notNull(),
    fullName: text("full_name").notNull(),
    clinicRole: text("clinic_role").notNull().default("STAFF"),
    isProvider: boolean("is_provider").notNull().default(false),
    status: text("status", { enum: memberStatuses }).notNull().default("approved"),
    notes: text("notes"),
    ...timestamps(),
  },
  (t) => [
    unique("clinic_members_clinic_user_key").on(t.clinicId, t.userId),
    foreignKey({ name: "clinic_members_user_fk", columns: [t.userId], foreignColumns: [users.id] })
      .onUpdate("cascade")
      .onDelete("cascade"),
    check("clinic_members_status_check", sql`${t.status} in ('approved', 'pending', 'suspended')`),
    check("clinic_members_full_name_length", sql`char_length(${t.fullName}) between 1 and 200`),
    check("clinic_members_role_length", sql`char_length(${t.clinicRole}) between 1 and 64`),
    index("clinic_members_clinic_name_idx").on(t.clinicId, t.fullName, t.id),
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
    version: bigint("version", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "availability_versions_pkey", columns: [t.clinicId, t.scopeId] })],
);
