import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Config } from "@clinic/config";

/** The development admin identity printed at start (a fixed sub so tokens survive restarts). */
export const devAdmin = { sub: "00000000-0000-4000-8000-000000000001", email: "admin@clinic.test" } as const;

/** Directory of local state next to the embedded database (`.data` by default). */
export const dataDirOf = (config: Pick<Config, "pgliteDir">) => dirname(config.pgliteDir);

/**
 * The HS256 secret to verify (and, in development, mint) tokens with. Without any configured key a
 * development start creates a random secret kept in the data directory; production refuses.
 */
export async function resolveJwtSecret(config: Config): Promise<string | undefined> {
  if (config.jwt.secret) return config.jwt.secret;
  if (config.jwt.publicKey || config.jwt.jwksUrl) return undefined;
  if (config.nodeEnv === "production") {
    throw new Error(
      "invalid configuration: JWT_SECRET (or JWT_PUBLIC_KEY / JWT_JWKS_URL) is required when NODE_ENV=production",
    );
  }
  const file = join(dataDirOf(config), "jwt-secret");
  try {
    const stored = (await readFile(file, "utf8")).trim();
    if (stored.length >= 32) return stored;
  } catch {
    // First start: create it below.
  }
  const secret = randomBytes(48).toString("base64url");
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
