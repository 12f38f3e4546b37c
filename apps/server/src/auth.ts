import type { FastifyRequest } from "fastify";
import {
  type AuthUser,
  DomainError,
  type SessionLimits,
  type TokenVerifier,
  type UserProvisioner,
  sessionOf,
  toDomainError,
} from "@clinic/api";
import type { Db } from "@clinic/db";
import { sessionCookieOf } from "./signIn.ts";

export interface RequestAuth {
  user: AuthUser | null;
  authError: string | null;
  via: "cookie" | "bearer" | null;
}

/** The token of a request: the `access_token` cookie wins over `Authorization: Bearer`. */
export function tokenOf(request: FastifyRequest): { token: string; via: "cookie" | "bearer" } | null {
  const cookie = request.cookies.access_token;
  if (cookie) return { token: cookie, via: "cookie" };
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (match?.[1]) return { token: match[1], via: "bearer" };
  return null;
}

/** How a request's session cookie is checked (§22). */
export interface SessionCheck {
  limits: SessionLimits;
  now: () => Date;
}

/**
 * The request's caller. Cookies win (§22): the `session` cookie, then `access_token`, then
 * `Authorization: Bearer`; the others are ignored, valid or not. A session is one lookup by its
 * hash; a token is verified and its user provisioned.
 *
 * Verifies the request's token and provisions its user. A refused token is not an exception here:
 * procedures that need a user answer 401 with `authError`; a database outage during provisioning is.
 */
export async function authenticate(
  request: FastifyRequest,
  verifier: TokenVerifier,
  provisioner: UserProvisioner,
  db: Db,
  sessions: SessionCheck,
): Promise<RequestAuth> {
  const sessionId = sessionCookieOf(request);
  if (sessionId !== undefined) {
    const session = await sessionOf(db, sessionId, sessions.now(), sessions.limits);
    if (session) return { user: session.user, authError: null, via: "cookie" };
    return { user: null, authError: "the session has ended: sign in again", via: "cookie" };
  }
  const found = tokenOf(request);
  if (!found) return { user: null, authError: null, via: null };
  try {
    const claims = await verifier.verify(found.token);
    const user = await provisioner.provision(db, claims);
    return { user, authError: null, via: found.via };
  } catch (error) {
    const domain = toDomainError(error);
    if (domain.domainCode === "UNAUTHENTICATED") return { user: null, authError: domain.message, via: found.via };
    throw domain;
  }
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cross-site protection: a cookie-authenticated (session or access_token) write whose Origin is neither the service's own
 * (its pages at /book and /desk) nor in ALLOWED_ORIGINS is refused. Bearer requests carry no
 * ambient credential and are not subject to it.
 */
export function assertSameSite(request: FastifyRequest, allowedOrigins: readonly string[]): void {
  if (safeMethods.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (!request.cookies.access_token && sessionCookieOf(request) === undefined) return;
  if (allowedOrigins.includes(origin)) return;
  if (origin === `${request.protocol}://${request.host}`) return;
  throw new DomainError("FORBIDDEN", `cross-site request from origin ${origin} refused`);
}
