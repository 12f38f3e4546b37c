import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto";
import {
  SignJWT,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTHeaderParameters,
  type JWTVerifyGetKey,
} from "jose";
import { z } from "zod";
import { DomainError } from "../../errors.ts";

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
  /**
   * The issuer vouches for `email` (OpenID Connect's claim). Only `true` lets a first token take
   * over a placeholder user invited by that e-mail (users.ts, claimInvitation).
   */
  email_verified: z.unknown().optional(),
  /** Issued-at and expiry (epoch seconds): with them, two tokens of the same claims differ. */
  iat: z.number().optional(),
  exp: z.number().optional(),
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
  if (algorithms.length === 0)
    throw new Error("no JWT verification key configured (JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL)");

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
        const reason =
          error instanceof joseErrors.JWTExpired ? "the access token has expired" : "the access token is invalid";
        throw new DomainError("UNAUTHENTICATED", reason, { cause: error });
      }
      const claims = claimsSchema.safeParse(payload);
      if (!claims.success)
        throw new DomainError("UNAUTHENTICATED", "the access token lacks a valid sub or email claim");
      if (verified.size >= maxVerified) verified.clear();
      verified.set(token, { claims: claims.data, expiresAtMs: (claims.data.exp ?? 0) * 1000 });
      return claims.data;
    },
  };
}

/**
 * Signs a development/test token with the HS256 secret. The service's own tokens say
 * `email_verified: true` (whoever holds JWT_SECRET vouches for the address), unless told otherwise.
 */
export async function mintToken(
  secret: string,
  claims: {
    sub: string;
    email: string;
    phoneE164?: string | undefined;
    roles?: string[] | undefined;
    emailVerified?: boolean | undefined;
  },
  options: { expiresIn?: string | number; issuer?: string | undefined; audience?: string | undefined } = {},
): Promise<string> {
  let jwt = new SignJWT({
    email: claims.email,
    email_verified: claims.emailVerified ?? true,
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
