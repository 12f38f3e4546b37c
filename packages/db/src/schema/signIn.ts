import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { idColumn, instant } from "./columns.ts";
import { users } from "./users.ts";

// Sign-in (CONTRACT §22, docs/sign-in.md#storage). None of these tables has a clinic: on Citus they
// are reference tables, read locally on every node and joined with `users` (also a reference
// table); their writes (a sign-in, a code, a session seen after a minute) are rare next to reads.
// Every secret is stored hashed (sha256, base64url) or encrypted, so a copy of the database signs
// nobody in. Instants are written by the application's clock, never by now() in a statement.

/**
 * A signed-in browser. `id_hash` is the sha256 of the opaque id in the `session` cookie;
 * `last_seen_at` moves at most once a minute; `expires_at` is the absolute end (SESSION_TTL_S).
 */
export const sessions = pgTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    method: text("method").notNull(),
    /** The issuer's `roles` claim held "ADMIN" at sign-in (as a token's would, §3). */
    isAdmin: boolean("is_admin").notNull().default(false),
    /** The ID token's `name` at sign-in (S6's full_name). */
    fullName: text("full_name"),
    /** The ID token, encrypted (AES-256-GCM): the `id_token_hint` of RP-initiated logout. */
    idToken: text("id_token"),
    createdAt: instant("created_at").notNull(),
    lastSeenAt: instant("last_seen_at").notNull(),
    expiresAt: instant("expires_at").notNull(),
  },
  (t) => [
    index("sessions_user_idx").on(t.userId),
    index("sessions_expires_idx").on(t.expiresAt),
    check("sessions_method", sql`${t.method} in ('oidc', 'email')`),
  ],
);

/** A person at an OpenID Provider, (issuer, sub), and the user they are here. */
export const identities = pgTable(
  "identities",
  {
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [
    primaryKey({ name: "identities_pkey", columns: [t.issuer, t.subject] }),
    index("identities_user_idx").on(t.userId),
  ],
);

/**
 * A started OpenID Connect sign-in (S1 → S2): the hash of its `state`, the hash of the browser
 * binding cookie, the nonce and PKCE verifier, where to go after; used once (`used_at`).
 */
export const loginStates = pgTable(
  "login_states",
  {
    stateHash: text("state_hash").primaryKey(),
    browserHash: text("browser_hash").notNull(),
    nonce: text("nonce").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    next: text("next").notNull(),
    createdAt: instant("created_at").notNull(),
    expiresAt: instant("expires_at").notNull(),
    usedAt: instant("used_at"),
  },
  (t) => [index("login_states_expires_idx").on(t.expiresAt)],
);

/**
 * An e-mailed sign-in code (S4 → S5). The address is kept only as its keyed hash, the code as
 * the hash of (address hash, code); 5 tries, 10 minutes, once.
 */
export const emailCodes = pgTable(
  "email_codes",
  {
    id: idColumn(),
    emailHash: text("email_hash").notNull(),
    codeHash: text("code_hash").notNull(),
    tries: integer("tries").notNull().default(0),
    next: text("next").notNull(),
    createdAt: instant("created_at").notNull(),
    expiresAt: instant("expires_at").notNull(),
    usedAt: instant("used_at"),
  },
  (t) => [
    index("email_codes_email_idx").on(t.emailHash, t.createdAt),
    index("email_codes_expires_idx").on(t.expiresAt),
  ],
);

/**
 * Fixed-window counters of the sign-in limits (codes per address per hour, starts per client
 * address per minute) that hold across processes: the clinic-free twin of rate_limit_counters.
 */
export const signInCounters = pgTable(
  "sign_in_counters",
  {
    key: text("key").notNull(),
    windowStart: instant("window_start").notNull(),
    hits: integer("hits").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "sign_in_counters_pkey", columns: [t.key, t.windowStart] }),
    index("sign_in_counters_window_idx").on(t.windowStart),
  ],
);
