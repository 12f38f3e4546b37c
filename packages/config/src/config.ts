import { z } from "zod";

/**
 * The one place that reads the environment. Everything else receives a typed `Config`.
 * Invalid values stop the start with a one-line message naming the variable.
 */

const emptyToUndefined = (value: unknown) => (value === "" ? undefined : value);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());

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
  DEMO: z.preprocess(emptyToUndefined, z.enum(["auto", "off", "on"]).default("auto")),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  nodeEnv: "development" | "production" | "test";
  port: number;
  host: string;
  databaseUrl: string | undefined;
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
  /** Seed the demo clinic on an empty embedded database ("auto"), always ("on") or never ("off"). */
  demo: "auto" | "off" | "on";
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
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
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
    demo: e.DEMO,
  };
}
