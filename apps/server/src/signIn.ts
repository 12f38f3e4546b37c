import { randomBytes, randomUUID } from "node:crypto";
import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  DomainError,
  type MailTransport,
  OidcClient,
  type OidcSettings,
  type SessionLimits,
  SignInFailed,
  consumeLoginState,
  createSession,
  decryptFor,
  emailCodeRules,
  encryptFor,
  endSession,
  endSessionsOfUser,
  idTokenKeyOf,
  safeNext,
  saveLoginState,
  sessionOf,
  startEmailCode,
  userForEmail,
  userForIdentity,
  verifyEmailCode,
  fieldErrorsOf,
} from "@clinic/api";
import type { Db } from "@clinic/db";

/** What the sign-in routes need (CONTRACT §22, docs/sign-in.md). */
export interface SignInOptions {
  db: Db;
  /** OpenID Connect, or null (S1 answers 404). */
  oidc: (OidcSettings & { name: string }) | null;
  /** E-mailed codes on (S4/S5; else 404). */
  emailCodes: boolean;
  limits: SessionLimits;
  /** PUBLIC_URL: the base of the redirect URI; unset = the request's origin. */
  publicUrl: string | undefined;
  /** ALLOWED_ORIGINS: origins whose pages may post to /auth (besides the service's own). */
  allowedOrigins: readonly string[];
  /** GUEST_RATE_LIMIT and GUEST_ADDRESS_KEY. */
  startsPerMinute: number;
  addressKey: string | undefined;
  mail: { transport: MailTransport | null; from: string };
  now: () => Date;
}

/** The session cookie's name: `__Host-session` over https (no other path or host may set it), else `session`. */
export function sessionCookieName(request: FastifyRequest): string {
  return request.protocol === "https" ? "__Host-session" : "session";
}

/** The session id a request carries (only the name that fits its scheme counts). */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const value = request.cookies[sessionCookieName(request)];
  return value === undefined || value === "" ? undefined : value;
}

/** The browser binding of a started OpenID Connect sign-in (S1 → S2), a short-lived cookie. */
function bindingCookieName(request: FastifyRequest): string {
  return request.protocol === "https" ? "__Host-sign_in" : "sign_in";
}

const cookieBase = (request: FastifyRequest) => ({
  path: "/",
  httpOnly: true,
  sameSite: "lax" as const,
  secure: request.protocol === "https",
});

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);

/** S2's failure: 400, a page that says so with a way to try again, and no session. */
function failedPage(reply: FastifyReply, tryAgain: string | null): FastifyReply {
  const link = tryAgain
    ? `<p><a href="${escape(tryAgain)}">Try again</a></p>`
    : `<p><a href="/">Back to the start</a></p>`;
  return reply
    .code(400)
    .header("cache-control", "no-store")
    .type("text/html; charset=utf-8")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in failed</title><style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}</style></head><body><h1>Sign-in failed</h1><p>The sign-in could not be completed: it may have expired, been used already, or been started in another browser.</p>${link}</body></html>`,
    );
}

/**
 * Writes to /auth come from the service's own pages (or ALLOWED_ORIGINS): a cross-site POST — a
 * foreign `Origin`, or a browser that says `Sec-Fetch-Site: cross-site` — is refused with 403,
 * whether or not it carries a cookie (a forged sign-in is as harmful as a forged sign-out).
 */
function assertOwnOrigin(request: FastifyRequest, allowedOrigins: readonly string[]): void {
  const origin = request.headers.origin;
  const own = `${request.protocol}://${request.host}`;
  if (origin !== undefined && origin !== own && !allowedOrigins.includes(origin))
    throw new DomainError("FORBIDDEN", `cross-site request from origin ${origin} refused`);
  if (origin === undefined && request.headers["sec-fetch-site"] === "cross-site")
    throw new DomainError("FORBIDDEN", "cross-site request refused");
}

const startBody = z.object({ email: z.email().max(320), next: z.string().max(2000).optional() });
const verifyBody = z.object({ email: z.email().max(320), code: z.string().max(20) });

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success)
    throw new DomainError("VALIDATION_FAILED", "the request body is invalid", { errors: fieldErrorsOf(parsed.error) });
  return parsed.data;
}

/** The routes S1–S6. Thin: the rules live in @clinic/api's signIn module. */
export async function registerSignIn(app: FastifyInstance, options: SignInOptions): Promise<void> {
  const { db, limits } = options;
  const oidc = options.oidc ? new OidcClient(options.oidc) : null;
  const idTokenKey = options.oidc ? idTokenKeyOf(options.oidc.clientSecret) : null;
  const baseOf = (request: FastifyRequest) => options.publicUrl ?? `${request.protocol}://${request.host}`;
  const redirectUriOf = (request: FastifyRequest) => `${baseOf(request)}/auth/callback`;

  const setSession = (request: FastifyRequest, reply: FastifyReply, id: string) => {
    void reply.setCookie(sessionCookieName(request), id, { ...cookieBase(request), maxAge: limits.ttlS });
  };

  await app.register(async (scope) => {
    await scope.register(formbody);

    // S1
    scope.get<{ Querystring: { next?: unknown } }>("/auth/login", async (request, reply) => {
      if (!oidc) throw new DomainError("NOT_FOUND", "OpenID Connect sign-in is not configured");
      const next = safeNext(request.query.next);
      let started;
      try {
        started = await oidc.start(redirectUriOf(request));
      } catch (error) {
        request.log.warn({ reason: error instanceof Error ? error.message : "unknown" }, "sign-in could not start");
        throw new DomainError("UNAVAILABLE", "the identity provider cannot be reached; retry shortly");
      }
      const browser = randomBytes(32).toString("base64url");
      await saveLoginState(db, { ...started, browser, next, now: options.now() });
      void reply.setCookie(bindingCookieName(request), browser, { ...cookieBase(request), maxAge: 600 });
      void reply.header("cache-control", "no-store");
      return reply.redirect(started.url.href, 302);
    });

    // S2
    scope.get<{ Querystring: Record<string, unknown> }>("/auth/callback", async (request, reply) => {
      if (!oidc) throw new DomainError("NOT_FOUND", "OpenID Connect sign-in is not configured");
      const query = request.query;
      const tryAgain = "/auth/login";
      void reply.clearCookie(bindingCookieName(request), { path: "/" });
      const browser = request.cookies[bindingCookieName(request)] ?? "";
      const state = typeof query.state === "string" ? query.state : "";
      // The state is spent whatever follows, an error answer too: it never serves twice.
      const started = state ? await consumeLoginState(db, { state, browser, now: options.now() }) : null;
      if (typeof query.error === "string") {
        request.log.info({ reason: "the issuer answered with an error" }, "sign-in failed");
        return failedPage(reply, started ? `${tryAgain}?next=${encodeURIComponent(started.next)}` : tryAgain);
      }
      if (!started) {
        request.log.info({ reason: "missing, unknown, used, expired or foreign state" }, "sign-in failed");
        return failedPage(reply, tryAgain);
      }
      const again = `${tryAgain}?next=${encodeURIComponent(started.next)}`;
      const search = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
      let verified;
      try {
        verified = await oidc.finish(redirectUriOf(request), search, { state, ...started });
      } catch (error) {
        const reason = error instanceof SignInFailed ? error.message : "unexpected failure";
        request.log.info({ reason }, "sign-in failed");
        return failedPage(reply, again);
      }
      const now = options.now();
      const userId = await userForIdentity(
        db,
        {
          issuer: verified.issuer,
          subject: verified.subject,
          email: verified.email,
          emailVerified: verified.emailVerified,
        },
        now,
      );
      const session = await createSession(db, {
        userId,
        method: "oidc",
        isAdmin: verified.isAdmin,
        fullName: verified.name,
        encryptIdToken: idTokenKey ? (idHash) => encryptFor(idTokenKey, idHash, verified.idToken) : undefined,
        now,
        limits,
      });
      setSession(request, reply, session.id);
      request.log.info({ method: "oidc" }, "signed in");
      return reply.redirect(started.next, 303);
    });

    // S3
    scope.post<{ Querystring: { everywhere?: unknown } }>("/auth/logout", async (request, reply) => {
      assertOwnOrigin(request, options.allowedOrigins);
      const id = sessionCookieOf(request);
      const everywhere = request.query.everywhere === "true";
      void reply.clearCookie(sessionCookieName(request), { path: "/" });
      void reply.header("cache-control", "no-store");
      const ended = id ? await endSession(db, id) : null;
      if (!ended) return reply.redirect("/", 303);
      if (everywhere) await endSessionsOfUser(db, ended.userId);
      request.log.info({ everywhere }, "signed out");
      if (oidc && ended.method === "oidc") {
        const idToken = ended.idToken && idTokenKey ? decryptFor(idTokenKey, ended.idHash, ended.idToken) : null;
        const url = await oidc.endSessionUrl(idToken, `${baseOf(request)}/`);
        if (url) return reply.redirect(url.href, 303);
      }
      return reply.redirect("/", 303);
    });

    // S4
    scope.post("/auth/email/start", async (request, reply) => {
      assertOwnOrigin(request, options.allowedOrigins);
      if (!options.emailCodes) throw new DomainError("NOT_FOUND", "e-mail sign-in is not on");
      const body = parse(startBody, request.body);
      const email = body.email.trim();
      const code = await startEmailCode(
        db,
        { email, next: safeNext(body.next), clientAddress: request.ip, now: options.now() },
        { addressKey: options.addressKey, startsPerMinute: options.startsPerMinute },
      );
      sendCode(request, options.mail, email, code);
      return reply.code(202).header("cache-control", "no-store").send({});
    });

    // S5
    scope.post("/auth/email/verify", async (request, reply) => {
      assertOwnOrigin(request, options.allowedOrigins);
      if (!options.emailCodes) throw new DomainError("NOT_FOUND", "e-mail sign-in is not on");
      const body = parse(verifyBody, request.body);
      const email = body.email.trim();
      const now = options.now();
      const verified = await verifyEmailCode(
        db,
        { email, code: body.code.trim(), now },
        { addressKey: options.addressKey },
      );
      if (!verified) {
        throw new DomainError("SIGN_IN_FAILED", "code: the code is wrong, expired or used; ask for a new one", {
          errors: [{ path: "code", message: "wrong, expired or used" }],
        });
      }
      const userId = await userForEmail(db, email, now);
      const session = await createSession(db, { userId, method: "email", now, limits });
      setSession(request, reply, session.id);
      request.log.info({ method: "email" }, "signed in");
      return reply.header("cache-control", "no-store").send({ next: verified.next });
    });

    // S6
    scope.get("/auth/session", async (request, reply) => {
      const id = sessionCookieOf(request);
      const session = id ? await sessionOf(db, id, options.now(), limits) : null;
      if (!session) throw new DomainError("UNAUTHENTICATED", "no session: sign in");
      void reply.header("cache-control", "no-store");
      return {
        user: { id: session.user.id, email: session.user.email, full_name: session.fullName },
        method: session.method,
        expires_at: session.expiresAt.toISOString(),
      };
    });

    // Which ways in this service offers (the pages choose between S1 and the code form).
    scope.get("/auth/methods", () => ({
      oidc: options.oidc ? { name: options.oidc.name } : null,
      email: options.emailCodes,
    }));
  });
}

/** Sends the code through §15's mail transport, in the background: the answer never waits on it or tells of it. */
function sendCode(request: FastifyRequest, mail: SignInOptions["mail"], email: string, code: string): void {
  const { transport } = mail;
  if (!transport) {
    request.log.warn("a sign-in code was not sent: no mail transport (SMTP_URL)");
    return;
  }
  const minutes = String(emailCodeRules.validS / 60);
  const text = `Your sign-in code is ${code}\n\nIt is valid for ${minutes} minutes and can be used once. If you did not ask for it, ignore this e-mail.\n`;
  transport
    .send({
      from: mail.from,
      to: email,
      subject: `Your sign-in code: ${code}`,
      text,
      html: `<p>Your sign-in code is <strong>${code}</strong></p><p>It is valid for ${minutes} minutes and can be used once. If you did not ask for it, ignore this e-mail.</p>`,
      messageId: `<${randomUUID()}@sign-in.clinic-scheduling>`,
      attachments: [],
    })
    .catch(() => {
      request.log.warn("a sign-in code e-mail could not be sent");
    });
}
