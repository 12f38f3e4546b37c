import { sql } from "drizzle-orm";
import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, instant, timestamps } from "./columns.ts";

/**
 * Global identities. The id is the JWT `sub`; `email` and `phone_e164` follow the latest token.
 * A user created by a clinic admin before the person ever signed in is a placeholder: invited by
 * e-mail, it is re-keyed to the `sub` of their first token (all references cascade); invited by
 * id, its e-mail may be unknown (null) until then.
 */
export const users = pgTable(
  "users",
  {
    id: idColumn(),
    email: text("email"),
    phoneE164: text("phone_e164"),
    lastLoginAt: instant("last_login_at"),
    ...timestamps("users"),
  },
  (t) => [uniqueIndex("users_email_key").on(sql`lower(${t.email})`)],
);
