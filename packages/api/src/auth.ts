import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto";
import { SignJWT, createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTHeaderParameters, type JWTVerifyGetKey } from "jose";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, pgErrorInfo, users } from "@clinic/db";
import { DomainError } from "./errors.ts";

/** The authenticated caller, as procedures see it. */
export interface AuthUser {
  id: string;
  email: string;
  phoneE164: string | null;
  /** Global administrator (`roles` claim contains "ADMIN"). */
  isAdmin: boolean;
}

export interface JwtSettings {
  secret?: string | undefined;
  jwksUrl?: string | undefined;
  publicKey?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
  /** The clock (epoch ms) for expiry checks; tests pin it. */
  now?: (() => number) | undefined;
}

const claimsSchema = z.object({
  sub: z.uuid().transform((s) => s.toLowerCase()),
  email: z.email(),
  phone_number: z
    .string()
    .regex(/^\+[1-9]\d{1,14}$/)
    .optional(),
  roles: z.array(z.string()).optional(),
});
export type TokenClaims = z.infer<typeof claimsSchema>;

/** Verifies access tokens with the configured keys; algorithms are pinned to those keys. */
export interface TokenVerifier {
  verify(token: string): Promise<TokenClaims>;
}

function algorithmsOf(key: KeyObject): string[] {
  if (key.asymmetricKeyType === "rsa") return ["RS256"];
  if (key.asymmetricKeyType === "ec") return ["ES256"];
  throw new Error("JWT_PUBLIC_KEY must be an RSA or EC (P-256) public key");
}

/** Builds the verifier from configuration; throws when no verification key is configured. */
export function createTokenVerifier(settings: JwtSettings): TokenVerifier {
  // A KeyObject, imported once: handing jose raw bytes would re-import the key on every verify.
  const secret = settings.secret ? createSecretKey(Buffer.from(settings.secret)) : undefined;
  const publicKey = settings.publicKey ? createPublicKey(settings.publicKey) : undefined;
  const jwks = settings.jwksUrl ? createRemoteJWKSet(new URL(settings.jwksUrl)) : undefined;
  const algorithms = [
    ...(secret ? ["HS256"] : []),
    ...(publicKey ? algorithmsOf(publicKey) : []),
    ...(jwks && !publicKey ? ["RS256", "ES256"] : []),
  ];
  if (algorithms.length === 0) throw new Error("no JWT verification key configured (JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL)");

  const getKey: JWTVerifyGetKey = async (header: JWTHeaderParameters, token) => {
    if (header.alg === "HS256" && secret) return secret;
    if (publicKey && header.alg !== "HS256") return publicKey;
    if (jwks) return jwks(header, token);
    throw new joseErrors.JOSEAlgNotAllowed(`algorithm ${header.alg} is not accepted`);
  };

  // Verified tokens, remembered until they expire: a client sends the same token with every
  // request, and the signature check (WebCrypto) is the costliest step of a cached read.
  const verified = new Map<string, { claims: TokenClaims; expiresAtMs: number }>();
  const maxVerified = 10_000;

  return {
    async verify(token) {
      const nowMs = settings.now?.() ?? Date.now();
      const known = verified.get(token);
      if (known && known.expiresAtMs > nowMs) return known.claims;
      if (known) verified.delete(token);
      let payload: unknown;
      try {
        ({ payload } = await jwtVerify(token, getKey, {
          algorithms,
          requiredClaims: ["exp", "sub"],
          currentDate: new Date(nowMs),
          ...(settings.issuer ? { issuer: settings.issuer } : {}),
          ...(settings.audience ? { audience: settings.audience } : {}),
        }));
      } catch (error) {
        const reason = error instanceof joseErrors.JWTExpired ? "the access token has expired" : "the access token is invalid";
        throw new DomainError("UNAUTHENTICATED", reason, { cause: error });
      }
      const claims = claimsSchema.safeParse(payload);
      if (!claims.success) throw new DomainError("UNAUTHENTICATED", "the access token lacks a valid sub or email claim");
      const exp = typeof payload === "object" && payload !== null && "exp" in payload && typeof payload.exp === "number" ? payload.exp : 0;
      if (verified.size >= maxVerified) verified.clear();
      verified.set(token, { claims: claims.data, expiresAtMs: exp * 1000 });
      return claims.data;
    },
  };
}

/** Signs a development/test token with the HS256 secret. */
export async function mintToken(
  secret: string,
  claims: { sub: string; email: string; phoneE164?: string | undefined; roles?: string[] | undefined },
  options: { expiresIn?: string | number; issuer?: string | undefined; audience?: string | undefined } = {},
): Promise<string> {
  let jwt = new SignJWT({
    email: claims.email,
    ...(claims.phoneE164 ? { phone_number: claims.phoneE164 } : {}),
    ...(claims.roles ? { roles: claims.roles } : {}),
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "12h");
  if (options.issuer) jwt = jwt.setIssuer(options.issuer);
  if (options.audience) jwt = jwt.setAudience(options.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}

/**
 * Keeps the users table in step with token claims. A process remembers which (sub, email,
 * phone) it has already written, so an ordinary request costs no database write.
 */
export class UserProvisioner {
  private readonly seen = new Map<string, string>();

  constructor(private readonly maxEntries = 10_000) {}

  /** Ensures the user row exists and follows the latest claims; returns the caller. */
  async provision(db: Db, claims: TokenClaims): Promise<AuthUser> {
    const user: AuthUser = {
      id: claims.sub,
      email: claims.email,
      phoneE164: claims.phone_number ?? null,
      isAdmin: claims.roles?.includes("ADMIN") ?? false,
    };
    const fingerprint = `${claims.email}|${claims.phone_number ?? ""}`;
    if (this.seen.get(claims.sub) === fingerprint) return user;
    await upsertUserFromClaims(db, claims);
    if (this.seen.size >= this.maxEntries) this.seen.clear();
    this.seen.set(claims.sub, fingerprint);
    return user;
  }
}

async function upsertUserFromClaims(db: Db, claims: TokenClaims): Promise<void> {
  const phone = claims.phone_number ?? null;
  try {
    await db
      .insert(users)
      .values({ id: claims.sub, email: claims.email, phoneE164: phone, lastLoginAt: new Date() })
      .onConflictDoUpdate({
        target: users.id,
        set: {
          email: claims.email,
          phoneE164: sql`coalesce(${phone}::text, ${users.phoneE164})`,
          lastLoginAt: new Date(),
          updatedAt: new Date(),
        },
      });
  } catch (error) {
    if (pgErrorInfo(error)?.constraint !== "users_email_key") throw error;
    // A clinic admin invited this e-mail before the person ever signed in: that placeholder
    // user becomes this identity (memberships, services and schedules follow by cascade).
    const claimed = await db
      .update(users)
      .set({ id: claims.sub, phoneE164: sql`coalesce(${phone}::text, ${users.phoneE164})`, lastLoginAt: new Date(), updatedAt: new Date() })
      .where(sql`lower(${users.email}) = lower(${claims.email}) and ${users.lastLoginAt} is null`)
      .returning({ id: users.id });
    if (claimed.length === 0) {
      throw new DomainError("UNAUTHENTICATED", "the token's email belongs to another identity", { cause: error });
    }
  }
}

/** Looks up a user id by e-mail (case-insensitive). */
export async function findUserIdByEmail(db: Db, email: string): Promise<string | undefined> {
  const rows = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return rows[0]?.id;
}

