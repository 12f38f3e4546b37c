import { sql } from "drizzle-orm";
import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, instant, timestamps } from "./columns.ts";

/**
 * Global identities. The id is the JWT `sub`; a user created by a clinic admin before the person
 * ever signed in is re-keyed to the `sub` of their first token (all references cascade).
 */
export const users = pgTable(
  "users",
  {
    id: idColumn(),
    email: text("email").notNull(),
    phoneE164: text("phone_e164"),
    lastLoginAt: instant("last_login_at"),
    ...timestamps(),
  },
  (t) => [uniqueIndex("users_email_key").on(sql`lower(${t.email})`)],
);
