import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { z } from "zod";

/**
 * The one place that reads the environment. Everything else receives a typed `Config`.
 * Invalid values stop the start with a one-line message naming the variable.
 */

const emptyToUndefined = (value: unknown) => (value === "" ? undefined : value);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());

/** An address or a CIDR block (`10.0.0.0/8`, `2001:db8::/32`), as Fastify's `trustProxy` takes them. */
function isAddressOrCidr(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY (CONTRACT §11): unset or `false` = the client is the connection's peer; a hop count
 * or a list of addresses/CIDRs = Fastify's `trustProxy`. `true` (trust whoever connects) is
 * refused: anyone who reaches the port directly could then choose their own address.
 */
const trustProxySchema = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .default("false")
    .transform((text, ctx): false | number | string[] => {
      const value = text.trim();
      if (value === "false" || value === "0") return false;
      if (/^\d+$/.test(value)) {
        const hops = Number(value);
        if (hops <= 64) return hops;
      } else {
        const entries = value.split(",").map((entry) => entry.trim());
        if (entries.every(isAddressOrCidr)) return entries;
      }
      ctx.addIssue({
        code: "custom",
        message:
          "must be false, a hop count (e.g. 1) or a comma-separated list of proxy addresses or CIDRs (e.g. 10.0.0.0/8,192.0.2.7)",
      });
      return z.NEVER;
    }),
);

const envSchema = z.object({
  NODE_ENV: z.preprocess(emptyToUndefined, z.enum(["development", "production", "test"]).default("development")),
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  HOST: z.preprocess(emptyToUndefined, z.string().default("127.0.0.1")),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  PGLITE_DIR: z.preprocess(emptyToUndefined, z.string().default(".data/pglite")),
  // Any length is accepted (the identity provider chooses it); a start warns below 32 characters.
  JWT_SECRET: optionalString,
  JWT_JWKS_URL: z.preprocess(emptyToUndefined, z.url().optional()),
  JWT_PUBLIC_KEY: z.preprocess(
    emptyToUndefined,
    z.string().includes("BEGIN PUBLIC KEY", { message: "must be a PEM (SPKI) public key" }).optional(),
  ),
  JWT_ISSUER: optionalString,
  JWT_AUDIENCE: optionalString,
  ALLOWED_ORIGINS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default("")
      .transform((value) =>
        value
          .split(",")
          .map((origin) => origin.trim())
          .filter((origin) => origin.length > 0),
      )
      .pipe(z.array(z.url({ message: "must be a comma-separated list of origins such as https://app.example" }))),
  ),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  RATE_LIMIT_MAX: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).default(10_000)),
  RATE_LIMIT_WINDOW_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1000).default(60_000)),
  TRUST_PROXY: trustProxySchema,
  DEMO: z.preprocess(emptyToUndefined, z.enum(["auto", "off", "on"]).default("auto")),
  REQUEST_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1000).max(600_000).default(30_000)),
  AVAILABILITY_MAX_SLOTS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(100).max(1_000_000).default(10_000),
  ),
  AVAILABILITY_CACHE_MB: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(65_536).default(64)),
  PUBLIC_URL: z.preprocess(
    emptyToUndefined,
    z
      .url()
      .transform((url) => url.replace(/\/+$/, ""))
      .optional(),
  ),
  WEBHOOK_ALLOW_PRIVATE: z.preprocess(
    emptyToUndefined,
    z
      .enum(["true", "false"])
      .default("false")
      .transform((v) => v === "true"),
  ),
  // A webhook whose last batch was short waits this long before its next one (docs/events.md#webhooks):
  // events that trickle in go out in batches, not a statement pair each. 0: at the next look.
  WEBHOOK_BATCH_PACE_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(60_000).default(1_000)),
  WEBHOOK_RETRY_DELAYS_S: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default("5,30,120,600,1800,7200,21600,86400")
      .transform((text) => text.split(",").map((part) => part.trim()))
      .pipe(
        z
          .array(
            z.coerce
              .number<string>()
              .int()
              .min(0)
              .max(7 * 86_400),
          )
          .max(20, "at most 20 retries"),
      ),
  ),
  JOB_POLL_INTERVAL_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(50).max(60_000).default(250)),
  // A claimed job's lease (docs/jobs.md#retries): longer than every handler's own timeout (15 s).
  JOB_LEASE_S: z.preprocess(emptyToUndefined, z.coerce.number().int().min(20).max(3_600).default(120)),
  WORKERS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(64).optional()),
  // Unset: poolMaxFor (a database on this host gets fewer, docs/operations.md#sizing-the-pool).
  DATABASE_POOL_MAX: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(200).optional()),
  METRICS_TOKEN: z.preprocess(
    emptyToUndefined,
    z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  ),
  BOOKING_RATE_LIMIT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1_000_000).default(30)),
  GUEST_RATE_LIMIT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1_000_000).default(10)),
  GUEST_ADDRESS_KEY: z.preprocess(
    emptyToUndefined,
    z.string().min(32, "GUEST_ADDRESS_KEY must be at least 32 characters").optional(),
  ),
  // Providers' own calendars (docs/calendars.md): the key their URLs and passwords are encrypted
  // with, how often each is read, and how long a calendar that cannot be read is trusted.
  CALENDAR_KEY: z.preprocess(
    emptyToUndefined,
    z.string().min(32, "CALENDAR_KEY must be at least 32 characters").optional(),
  ),
  CALENDAR_SYNC_INTERVAL_S: z.preprocess(emptyToUndefined, z.coerce.number().int().min(30).max(86_400).default(300)),
  CALENDAR_STALE_AFTER_S: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(3600),
  ),
  SMTP_URL: z.preprocess(
    emptyToUndefined,
    z
      .url({
        protocol: /^smtps?$/,
        message: "must be an smtp:// or smtps:// URL, e.g. smtps://user:password@mail.example:465",
      })
      .optional(),
  ),
  MAIL_FROM: z.preprocess(emptyToUndefined, z.string().min(3).default("Clinic Scheduling <no-reply@localhost>")),
  // Sign-in (CONTRACT §22, docs/sign-in.md): OpenID Connect, e-mail codes, sessions.
  OIDC_ISSUER: z.preprocess(
    emptyToUndefined,
    z
      // Kept exactly as given: it must equal the discovery document's `issuer` (Auth0's ends in "/").
      .url({ message: "must be the issuer's URL, e.g. https://id.example/realms/clinic" })
      .optional(),
  ),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  OIDC_SCOPES: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default("openid email profile")
      .refine((scopes) => scopes.split(/\s+/).includes("openid"), "must include openid"),
  ),
  OIDC_NAME: optionalString,
  EMAIL_SIGN_IN: z.preprocess(emptyToUndefined, z.enum(["true", "false"]).optional()),
  SESSION_IDLE_S: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(28_800),
  ),
  SESSION_TTL_S: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number()
      .int()
      .min(60)
      .max(90 * 86_400)
      .default(43_200),
  ),
});

export type Env = z.infer<typeof envSchema>;

/** The pool of each process when `DATABASE_POOL_MAX` is unset, and what it used to be everywhere. */
export const REMOTE_POOL_MAX = 10;

/**
 * Whether `DATABASE_URL` names a PostgreSQL on this host: a loopback address, `localhost`, or a
 * Unix socket (libpq's `?host=/path`, or no host at all).
 */
export function isLocalDatabase(databaseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return false;
  }
  if (url.searchParams.get("host")?.startsWith("/")) return true;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "" || host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Each process's PostgreSQL connections when `DATABASE_POOL_MAX` is unset
 * (docs/operations.md#sizing-the-pool). A database on this host shares this host's cores: about
 * twice as many connections as cores across all `WORKERS` processes, at least 4 a process (room
 * for the job workers beside requests) and never more than the remote default. More backends than
 * cores only contend: each query to an idle backend wakes a process, and a backend holding a
 * clinic's row lock waits for a core while the clinic's other bookings wait for it; with fewer,
 * postgres.js pipelines queries to busy connections. A database elsewhere: 10, its cores unknown.
 * The embedded database has one connection whatever this says.
 */
export function poolMaxFor(databaseUrl: string | undefined, workers: number, cores: number): number {
  if (databaseUrl === undefined || !isLocalDatabase(databaseUrl)) return REMOTE_POOL_MAX;
  return Math.min(REMOTE_POOL_MAX, Math.max(4, Math.ceil((2 * cores) / Math.max(1, workers))));
}

export interface Config {
  nodeEnv: "development" | "production" | "test";
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** PostgreSQL connections of each server process (docs/operations.md#workers). */
  databasePoolMax: number;
  pgliteDir: string;
  jwt: {
    secret: string | undefined;
    jwksUrl: string | undefined;
    publicKey: string | undefined;
    issuer: string | undefined;
    audience: string | undefined;
  };
  allowedOrigins: string[];
  logLevel: Env["LOG_LEVEL"];
  rateLimit: { max: number; windowMs: number };
  /**
   * Which proxies' X-Forwarded-For names the client (Fastify's `trustProxy`): false = none, the
   * connection's peer is the client; a hop count; or the proxies' addresses/CIDRs. Every
   * per-address rule and the request log use the address this gives (`request.ip`).
   */
  trustProxy: false | number | string[];
  /** Seed the demo clinic on an empty embedded database ("auto"), always ("on") or never ("off"). */
  demo: "auto" | "off" | "on";
  /** A request (head and body) must arrive within this many ms (else 408). */
  requestTimeoutMs: number;
  /** Bounds on availability: slots per answer, and the cache's size in MiB. */
  availability: { maxSlots: number; cacheMb: number };
  /** Booking writes one user may make per minute, across every server process. */
  bookingRateLimit: number;
  /** Guest writes (O4 without a token) one client address may make per minute, across every server process. */
  guestRateLimit: number;
  /**
   * The key of the keyed hash (HMAC-SHA256) under which a guest's client address is stored and
   * counted (docs/manage-links.md#guest-holds); unset = a fixed key, so the stored value is a
   * pseudonym that a copy of the database alone can reverse by trying addresses.
   */
  guestAddressKey: string | undefined;
  /**
   * Patient e-mails (docs/messages.md): the SMTP server, or none — then a development start runs a
   * local catcher (shown at /dev/mail) and a production start records every message `skipped`.
   */
  mail: { smtpUrl: string | undefined; from: string };
  /** The bearer token /metrics requires; unset = /metrics answers 404. */
  metricsToken: string | undefined;
  /** The service's public base URL for links it hands out (calendar feeds); unset = the request's own host. */
  publicUrl: string | undefined;
  /** Webhooks: http and internal addresses allowed (development only), and the retry schedule in seconds. */
  webhooks: {
    allowPrivate: boolean;
    retryDelaysS: number[];
    /** WEBHOOK_BATCH_PACE_MS (always set from the environment; absent in a test's config: no pace). */
    batchPaceMs?: number | undefined;
  };
  /**
   * Providers' own calendars (docs/calendars.md): the key (CALENDAR_KEY) their URLs and credentials
   * are encrypted with at rest — unset outside production = a fixed development key, and a
   * production start stores no calendar without it; the sync interval and the stale limit, seconds.
   */
  calendars: { key: string | undefined; syncIntervalS: number; staleAfterS: number };
  /**
   * Sign-in (CONTRACT §22, docs/sign-in.md): the OpenID Provider (null = OIDC off, S1 answers
   * 404), whether e-mail codes are on (EMAIL_SIGN_IN; default on with SMTP_URL or outside
   * production), and the sessions' idle and absolute lifetimes in seconds.
   */
  signIn: {
    oidc: { issuer: string; clientId: string; clientSecret: string; scopes: string; name: string } | null;
    emailCodes: boolean;
    sessionIdleS: number;
    sessionTtlS: number;
  };
  /** How often the background workers poll the job queue. */
  jobPollIntervalMs: number;
  jobLeaseS: number;
  /** Server processes sharing the port: default the CPUs on PostgreSQL, always 1 on the embedded database. */
  workers: number;
}

/** Raised for an invalid variable; `message` is the one line to print. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`invalid configuration: ${variable} ${detail}`);
    this.name = "ConfigError";
  }
}

/** Parses and validates the environment (default: `process.env`). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = typeof issue?.path[0] === "string" ? issue.path[0] : "environment";
    throw new ConfigError(variable, issue?.message ?? "is invalid");
  }
  const e = parsed.data;
  if (!e.DATABASE_URL && e.WORKERS !== undefined && e.WORKERS > 1) {
    throw new ConfigError(
      "WORKERS",
      "must be 1 on the embedded database (one process owns it): set DATABASE_URL for more",
    );
  }
  const oidcParts = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET];
  if (oidcParts.some((part) => part !== undefined) && oidcParts.some((part) => part === undefined)) {
    const missing = (["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const).find(
      (_name, i) => oidcParts[i] === undefined,
    );
    throw new ConfigError(
      missing ?? "OIDC_ISSUER",
      "is required: OpenID Connect needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET",
    );
  }
  const workers = e.DATABASE_URL ? (e.WORKERS ?? availableParallelism()) : 1;
  const oidc =
    e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
      ? {
          issuer: e.OIDC_ISSUER,
          clientId: e.OIDC_CLIENT_ID,
          clientSecret: e.OIDC_CLIENT_SECRET,
          scopes: e.OIDC_SCOPES,
          name: e.OIDC_NAME ?? "Sign in",
        }
      : null;
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX ?? poolMaxFor(e.DATABASE_URL, workers, availableParallelism()),
    pgliteDir: e.PGLITE_DIR,
    jwt: {
      secret: e.JWT_SECRET,
      jwksUrl: e.JWT_JWKS_URL,
      publicKey: e.JWT_PUBLIC_KEY,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
    },
    allowedOrigins: e.ALLOWED_ORIGINS,
    logLevel: e.LOG_LEVEL,
    rateLimit: { max: e.RATE_LIMIT_MAX, windowMs: e.RATE_LIMIT_WINDOW_MS },
    trustProxy: e.TRUST_PROXY,
    demo: e.DEMO,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    availability: { maxSlots: e.AVAILABILITY_MAX_SLOTS, cacheMb: e.AVAILABILITY_CACHE_MB },
    bookingRateLimit: e.BOOKING_RATE_LIMIT,
    guestRateLimit: e.GUEST_RATE_LIMIT,
    guestAddressKey: e.GUEST_ADDRESS_KEY,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    metricsToken: e.METRICS_TOKEN,
    publicUrl: e.PUBLIC_URL,
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      retryDelaysS: e.WEBHOOK_RETRY_DELAYS_S,
      batchPaceMs: e.WEBHOOK_BATCH_PACE_MS,
    },
    calendars: {
      key: e.CALENDAR_KEY,
      syncIntervalS: e.CALENDAR_SYNC_INTERVAL_S,
      staleAfterS: e.CALENDAR_STALE_AFTER_S,
    },
    signIn: {
      oidc,
      emailCodes:
        e.EMAIL_SIGN_IN === undefined
          ? e.SMTP_URL !== undefined || e.NODE_ENV !== "production"
          : e.EMAIL_SIGN_IN === "true",
      sessionIdleS: e.SESSION_IDLE_S,
      sessionTtlS: e.SESSION_TTL_S,
    },
    jobPollIntervalMs: e.JOB_POLL_INTERVAL_MS,
    jobLeaseS: e.JOB_LEASE_S,
    workers,
  };
}
