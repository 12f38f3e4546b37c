import { type KeyObject, createHash, createSign, generateKeyPairSync, randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { createTokenVerifier, type MailTransport, mintToken, type OutgoingMail } from "@clinic/api";
import { clinicFixture, testSecret, unique } from "@clinic/api/testing";
import { type DbHandle, loginStates, sessions, users } from "@clinic/db";
import { openTestDatabase } from "@clinic/db/testing";
import { buildApp } from "../src/app.ts";
import { problemOf, request } from "./helpers.ts";
import { Browser, type TestAccount, type TestProvider, startTestProvider } from "./openIdProvider.ts";

// Sign-in (CONTRACT §22, docs/sign-in.md) against a real OpenID Provider (oidc-provider) and the
// real database: the code flow over HTTP, the attacks of issue 47, e-mail codes, and the log.

const publicUrl = "http://rp.clinic.test";
const redirectUri = `${publicUrl}/auth/callback`;

let provider: TestProvider;
let handle: DbHandle;
let app: FastifyInstance;
const mails: OutgoingMail[] = [];
const logLines: string[] = [];
/** Set by a test: rewrites the token endpoint's JSON answer on its way to the relying party. */
let tamper: ((body: Record<string, unknown>) => Record<string, unknown>) | null = null;

const mailTransport: MailTransport = {
  send: (mail) => {
    mails.push(mail);
    return Promise.resolve();
  },
  close: () => undefined,
};

beforeAll(async () => {
  provider = await startTestProvider({ redirectUri, postLogoutRedirectUri: `${publicUrl}/` });
  handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString("utf8"));
      done();
    },
  });
  app = await buildApp({
    config: {
      allowedOrigins: ["https://app.clinic.example"],
      rateLimit: { max: 100_000, windowMs: 60_000 },
      logLevel: "info",
      publicUrl,
      guestRateLimit: 10,
      signIn: {
        oidc: {
          issuer: provider.issuer,
          clientId: provider.clientId,
          clientSecret: provider.clientSecret,
          scopes: "openid email profile",
          name: "Sign in with the test provider",
        },
        emailCodes: true,
        sessionIdleS: 28_800,
        sessionTtlS: 43_200,
      },
    },
    database: handle,
    verifier: createTokenVerifier({ secret: testSecret }),
    logger: { stream: logStream },
    mail: { transport: mailTransport, from: "Clinic <no-reply@clinic.test>" },
    oidcFetch: async (url, options) => {
      const response = await fetch(url, options);
      if (!tamper || !url.endsWith("/token")) return response;
      const body = (await response.json()) as Record<string, unknown>;
      return new Response(JSON.stringify(tamper(body)), {
        status: response.status,
        headers: { "content-type": "application/json" },
      });
    },
  });
}, 30_000);

afterAll(async () => {
  await app.close();
  await handle.close();
  await provider.close();
});

const account = (overrides: Partial<TestAccount> = {}): TestAccount => ({
  sub: `person-${unique()}`,
  email: `p-${unique()}@clinic.test`,
  email_verified: true,
  name: "Pat Example",
  ...overrides,
});

/** A cookie the answer sets, by name. */
function cookieOf(response: LightMyRequestResponse, name: string) {
  return response.cookies.find((c) => c.name === name);
}

interface Started {
  binding: string;
  authorizeUrl: string;
}

/** S1 in a fresh browser: the browser binding cookie and where the issuer is. */
async function startLogin(next?: string): Promise<Started> {
  const response = await app.inject({
    method: "GET",
    url: next === undefined ? "/auth/login" : `/auth/login?next=${encodeURIComponent(next)}`,
  });
  expect(response.statusCode).toBe(302);
  const binding = cookieOf(response, "sign_in");
  expect(binding?.httpOnly).toBe(true);
  return { binding: binding?.value ?? "", authorizeUrl: String(response.headers.location) };
}

/** The person signs in at the issuer; returns the callback URL (path and query) it sends the browser to. */
async function atIssuer(started: Started, who: TestAccount | null): Promise<string> {
  provider.nextAccount = who;
  const callback = await new Browser().followUntil(started.authorizeUrl, publicUrl);
  return callback.slice(publicUrl.length);
}

async function callback(path: string, binding: string, extra: Record<string, string> = {}) {
  return app.inject({ method: "GET", url: path, cookies: { sign_in: binding, ...extra } });
}

/** The whole code flow; returns the callback's answer. */
async function signInAs(who: TestAccount, next?: string) {
  const started = await startLogin(next);
  return callback(await atIssuer(started, who), started.binding);
}

async function sessionCookie(who: TestAccount, next?: string): Promise<string> {
  const response = await signInAs(who, next);
  expect(response.statusCode, response.body).toBe(303);
  const cookie = cookieOf(response, "session");
  if (!cookie) throw new Error("no session cookie");
  return cookie.value;
}

/** A GET with the session cookie. */
const withSession = (session: string, options: { url: string }): Promise<LightMyRequestResponse> =>
  app.inject({ method: "GET", url: options.url, cookies: { session } });

/** A JWT signed with `key` (RS256) over `payload`. */
function signJwt(payload: Record<string, unknown>, key: KeyObject, kid = "test-key"): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${b64({ alg: "RS256", typ: "JWT", kid })}.${b64(payload)}`;
  const signature = createSign("RSA-SHA256").update(input).sign(key).toString("base64url");
  return `${input}.${signature}`;
}

const payloadOf = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;

describe("OpenID Connect (S1, S2)", () => {
  it("signs in through the issuer with PKCE, state and nonce, and the session authorizes /v1 and /trpc", async () => {
    const who = account();
    const started = await startLogin("/desk/x?tab=1");
    const authorize = new URL(started.authorizeUrl);
    expect(authorize.origin).toBe(provider.issuer);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("state")).toBeTruthy();
    expect(authorize.searchParams.get("nonce")).toBeTruthy();
    expect(authorize.searchParams.get("redirect_uri")).toBe(redirectUri);
    const response = await callback(await atIssuer(started, who), started.binding);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe("/desk/x?tab=1");
    const cookie = cookieOf(response, "session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    expect(cookie?.value.length).toBeGreaterThanOrEqual(22);
    const session = await withSession(cookie?.value ?? "", { url: "/auth/session" });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toMatchObject({
      user: { email: who.email, full_name: "Pat Example" },
      method: "oidc",
    });
    // The database holds the id only hashed.
    const stored = await handle.db.select({ idHash: sessions.idHash }).from(sessions);
    expect(stored.map((s) => s.idHash)).not.toContain(cookie?.value);
    // /v1 and /trpc as that user.
    const clinics = await withSession(cookie?.value ?? "", { url: "/v1/clinics" });
    expect(clinics.statusCode).toBe(200);
    const me = await withSession(cookie?.value ?? "", { url: "/v1/me/export" });
    expect(me.statusCode).toBe(200);
  });

  it("answers 404 at S1 when OpenID Connect is not configured", async () => {
    const plain = await buildApp({
      config: { allowedOrigins: [], rateLimit: { max: 1000, windowMs: 60_000 }, logLevel: "silent" },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
    });
    try {
      expect((await plain.inject({ method: "GET", url: "/auth/login" })).statusCode).toBe(404);
      expect(
        (await plain.inject({ method: "POST", url: "/auth/email/start", payload: { email: "a@b.test" } })).statusCode,
      ).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it("refuses a replayed state, a state of another browser, and a missing state, with no session", async () => {
    const started = await startLogin();
    const path = await atIssuer(started, account());
    // Another browser (its own binding cookie, or none) cannot use this state.
    const foreign = await callback(path, "another-browser");
    expect(foreign.statusCode).toBe(400);
    expect(foreign.body).toContain("Sign-in failed");
    expect(foreign.body).toContain('href="/auth/login"');
    expect(cookieOf(foreign, "session")).toBeUndefined();
    const none = await app.inject({ method: "GET", url: path });
    expect(none.statusCode).toBe(400);
    // The right browser, once.
    const first = await callback(path, started.binding);
    expect(first.statusCode).toBe(303);
    const replay = await callback(path, started.binding);
    expect(replay.statusCode).toBe(400);
    expect(cookieOf(replay, "session")).toBeUndefined();
    const missing = await callback("/auth/callback?code=abc", started.binding);
    expect(missing.statusCode).toBe(400);
  });

  it("refuses an error= answer of the issuer", async () => {
    const started = await startLogin("/book/x");
    const path = await atIssuer(started, null);
    expect(path).toContain("error=access_denied");
    const response = await callback(path, started.binding);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain("/auth/login?next=%2Fbook%2Fx");
    expect(cookieOf(response, "session")).toBeUndefined();
  });

  it("refuses an ID token whose nonce is not the one this sign-in sent", async () => {
    const started = await startLogin();
    const path = await atIssuer(started, account());
    const state = new URL(path, publicUrl).searchParams.get("state") ?? "";
    await handle.db
      .update(loginStates)
      .set({ nonce: "a-nonce-of-another-sign-in" })
      .where(eq(loginStates.stateHash, createHash("sha256").update(state).digest("base64url")));
    const response = await callback(path, started.binding);
    expect(response.statusCode).toBe(400);
    expect(cookieOf(response, "session")).toBeUndefined();
  });

  it("refuses a tampered ID token, one signed by another key, and one for another audience", async () => {
    const { privateKey: otherKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const attempts: ((idToken: string) => string)[] = [
      // The payload changed (another sub), the signature kept.
      (idToken) => {
        const [header, , signature] = idToken.split(".");
        const payload = { ...payloadOf(idToken), sub: "someone-else" };
        return `${header ?? ""}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${signature ?? ""}`;
      },
      // Signed by a key that is not the issuer's, under the issuer's key id.
      (idToken) => signJwt(payloadOf(idToken), otherKey),
      // Signed by the issuer's own key, for another client.
      (idToken) => signJwt({ ...payloadOf(idToken), aud: "another-client" }, provider.signingKey),
    ];
    for (const change of attempts) {
      tamper = (body) => ({ ...body, id_token: change(String(body.id_token)) });
      try {
        const response = await signInAs(account());
        expect(response.statusCode).toBe(400);
        expect(cookieOf(response, "session")).toBeUndefined();
      } finally {
        tamper = null;
      }
    }
    // The same token re-signed by the issuer's key for this client passes: the refusals above were the changes.
    tamper = (body) => ({ ...body, id_token: signJwt(payloadOf(String(body.id_token)), provider.signingKey) });
    try {
      expect((await signInAs(account())).statusCode).toBe(303);
    } finally {
      tamper = null;
    }
  });

  it("sends the browser only to a path of this origin after sign-in", async () => {
    for (const next of [
      "//evil.example/x",
      "https://evil.example/",
      "/\\evil.example",
      "javascript:alert(1)",
      "/\t/evil.example",
    ]) {
      const response = await signInAs(account(), next);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location, next).toBe("/");
    }
    expect((await signInAs(account(), "/desk/abc/reports?x=1#y")).headers.location).toBe("/desk/abc/reports?x=1#y");
  });

  it("gives a new session id at every sign-in (no fixation)", async () => {
    const who = account();
    const planted = "planted-session-id-chosen-by-an-attacker";
    const started = await startLogin();
    const response = await callback(await atIssuer(started, who), started.binding, { session: planted });
    const first = cookieOf(response, "session")?.value;
    expect(first).toBeDefined();
    expect(first).not.toBe(planted);
    const second = await sessionCookie(who);
    expect(second).not.toBe(first);
    // The planted id signs nobody in.
    expect((await withSession(planted, { url: "/auth/session" })).statusCode).toBe(401);
  });

  it("gives at most one session for two simultaneous callbacks with one state", async () => {
    const started = await startLogin();
    const path = await atIssuer(started, account());
    const answers = await Promise.all([callback(path, started.binding), callback(path, started.binding)]);
    const signedIn = answers.filter((a) => cookieOf(a, "session") !== undefined);
    expect(signedIn.length).toBeLessThanOrEqual(1);
    expect(answers.map((a) => a.statusCode).sort()).toEqual(signedIn.length === 1 ? [303, 400] : [400, 400]);
  });
});

describe("who is who", () => {
  async function invite(email: string) {
    const clinic = await clinicFixture(handle.db);
    const added = await request(app, {
      method: "POST",
      url: `/v1/clinics/${clinic.clinicId}/members`,
      token: clinic.admin.token,
      body: { email, full_name: "Invited Person", clinic_role: "STAFF" },
    });
    expect(added.statusCode).toBe(201);
    return { clinic, userId: added.json<{ user_id: string }>().user_id };
  }

  it("joins a member invited by e-mail (M1) on a verified e-mail, who keeps their id", async () => {
    const email = `Invited-${unique()}@clinic.test`;
    const { clinic, userId } = await invite(email);
    const session = await sessionCookie(account({ email: email.toLowerCase(), email_verified: true }));
    const who = await withSession(session, { url: "/auth/session" });
    expect(who.json<{ user: { id: string } }>().user.id).toBe(userId);
    expect((await withSession(session, { url: `/v1/clinics/${clinic.clinicId}/members` })).statusCode).toBe(200);
    // tRPC and FHIR take the session as /v1 does (a STAFF member's reads), and refuse without it.
    const trpc = `/trpc/members.list?input=${encodeURIComponent(JSON.stringify({ json: { clinic_id: clinic.clinicId } }))}`;
    expect((await withSession(session, { url: trpc })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: trpc })).statusCode).toBe(401);
    const fhir = `/fhir/R4/Practitioner?clinic=${clinic.clinicId}`;
    expect((await withSession(session, { url: fhir })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: fhir })).statusCode).toBe(401);
  });

  it("never joins an invited member on an unverified e-mail, nor gives the new user that address", async () => {
    const email = `victim-${unique()}@clinic.test`;
    const { clinic, userId } = await invite(email);
    const session = await sessionCookie(account({ email, email_verified: false }));
    const who = (await withSession(session, { url: "/auth/session" })).json<{ user: { id: string; email: string } }>();
    expect(who.user.id).not.toBe(userId);
    expect(who.user.email).not.toBe(email);
    const members = await withSession(session, { url: `/v1/clinics/${clinic.clinicId}/members` });
    expect(members.statusCode).toBe(403);
    const [invited] = await handle.db.select({ email: users.email }).from(users).where(eq(users.id, userId));
    expect(invited?.email).toBe(email);
  });

  it("re-keys an invited placeholder to a token's sub only when the token says email_verified: true", async () => {
    const email = `token-${unique()}@clinic.test`;
    const { clinic } = await invite(email);
    const unverified = await mintToken(testSecret, { sub: randomUUID(), email, emailVerified: false });
    const refused = await request(app, {
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}/members`,
      token: unverified,
    });
    expect(refused.statusCode).toBe(401);
    const verified = await mintToken(testSecret, { sub: randomUUID(), email });
    const allowed = await request(app, {
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}/members`,
      token: verified,
    });
    expect(allowed.statusCode).toBe(200);
  });

  it("reads roles on every request: a role removed is removed at once from an old session", async () => {
    const email = `staff-${unique()}@clinic.test`;
    const { clinic, userId } = await invite(email);
    const session = await sessionCookie(account({ email, email_verified: true }));
    const url = `/v1/clinics/${clinic.clinicId}/members`;
    expect((await withSession(session, { url })).statusCode).toBe(200);
    const demoted = await request(app, {
      method: "PATCH",
      url: `${url}/${userId}`,
      token: clinic.admin.token,
      body: { clinic_role: "VOLUNTEER" },
    });
    expect(demoted.statusCode).toBe(200);
    expect((await withSession(session, { url })).statusCode).toBe(403);
  });

  it("ends every session of a user whose account is erased", async () => {
    const session = await sessionCookie(account());
    const who = (await withSession(session, { url: "/auth/session" })).json<{ user: { id: string } }>();
    await handle.db.delete(users).where(eq(users.id, who.user.id));
    expect((await withSession(session, { url: "/auth/session" })).statusCode).toBe(401);
    const clinics = await withSession(session, { url: "/v1/clinics" });
    expect(problemOf(clinics).code).toBe("UNAUTHENTICATED");
  });
});

describe("sessions (S3, S6)", () => {
  it("answers 401 at S6 without a session, and session cookies win over a token", async () => {
    expect(problemOf(await app.inject({ method: "GET", url: "/auth/session" })).code).toBe("UNAUTHENTICATED");
    const clinic = await clinicFixture(handle.db);
    // An ended session with a valid admin token beside it: the session cookie wins, so 401.
    const answer = await app.inject({
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}`,
      cookies: { session: "no-such-session", access_token: clinic.admin.token },
    });
    expect(answer.statusCode).toBe(401);
  });

  it("answers GET /v1/me with the same user for a session and for that user's token; 401 without either", async () => {
    const who = account();
    const session = await sessionCookie(who);
    const viaSession = await withSession(session, { url: "/v1/me" });
    expect(viaSession.statusCode).toBe(200);
    const user = (await withSession(session, { url: "/auth/session" })).json<{ user: { id: string } }>().user;
    expect(viaSession.json()).toEqual({ id: user.id, email: who.email });
    // The token path (the development sign-in's cookie, or a bearer): S6 cannot answer it, /v1/me does.
    const token = await mintToken(testSecret, { sub: user.id, email: who.email }, { expiresIn: "5m" });
    for (const viaToken of [
      await app.inject({ method: "GET", url: "/v1/me", cookies: { access_token: token } }),
      await app.inject({ method: "GET", url: "/v1/me", headers: { authorization: `Bearer ${token}` } }),
    ]) {
      expect(viaToken.statusCode).toBe(200);
      expect(viaToken.json()).toEqual({ id: user.id, email: who.email });
    }
    expect(
      problemOf(await app.inject({ method: "GET", url: "/auth/session", cookies: { access_token: token } })).code,
    ).toBe("UNAUTHENTICATED");
    expect(problemOf(await app.inject({ method: "GET", url: "/v1/me" })).code).toBe("UNAUTHENTICATED");
  });

  it("signs out here, and everywhere with everywhere=true, then to the issuer's end-session endpoint", async () => {
    const who = account();
    const one = await sessionCookie(who);
    const two = await sessionCookie(who);
    const three = await sessionCookie(who);
    const out = await app.inject({ method: "POST", url: "/auth/logout", cookies: { session: one } });
    expect(out.statusCode).toBe(303);
    const endSession = new URL(String(out.headers.location));
    expect(endSession.origin).toBe(provider.issuer);
    expect(endSession.searchParams.get("id_token_hint")).toBeTruthy();
    expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(`${publicUrl}/`);
    expect(cookieOf(out, "session")?.value).toBe("");
    expect((await withSession(one, { url: "/auth/session" })).statusCode).toBe(401);
    expect((await withSession(two, { url: "/auth/session" })).statusCode).toBe(200);
    const everywhere = await app.inject({
      method: "POST",
      url: "/auth/logout?everywhere=true",
      cookies: { session: two },
    });
    expect(everywhere.statusCode).toBe(303);
    expect((await withSession(three, { url: "/auth/session" })).statusCode).toBe(401);
  });

  it("refuses a cross-site POST to /auth/logout and keeps the session", async () => {
    const session = await sessionCookie(account());
    const forged = await app.inject({
      method: "POST",
      url: "/auth/logout",
      cookies: { session },
      headers: { origin: "https://evil.example" },
    });
    expect(forged.statusCode).toBe(403);
    expect(problemOf(forged).code).toBe("FORBIDDEN");
    const fetchMetadata = await app.inject({
      method: "POST",
      url: "/auth/logout",
      cookies: { session },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(fetchMetadata.statusCode).toBe(403);
    expect((await withSession(session, { url: "/auth/session" })).statusCode).toBe(200);
    // A cross-site write to /v1 with the session cookie is refused like the access_token cookie's.
    const write = await app.inject({
      method: "POST",
      url: "/v1/clinics",
      cookies: { session },
      headers: { origin: "https://evil.example" },
      payload: { name: "x" },
    });
    expect(write.statusCode).toBe(403);
  });
});

describe("e-mail codes (S4, S5)", () => {
  let address = 0;
  /** Each test its own client address, so that one test's starts do not count against another's. */
  const clientAddress = () => `198.51.100.${String(++address)}`;

  const start = (email: string, ip: string, next?: string) =>
    app.inject({
      method: "POST",
      url: "/auth/email/start",
      remoteAddress: ip,
      payload: { email, ...(next === undefined ? {} : { next }) },
    });
  const verify = (email: string, code: string, ip: string) =>
    app.inject({ method: "POST", url: "/auth/email/verify", remoteAddress: ip, payload: { email, code } });

  async function codeFor(email: string): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const mail = mails.filter((m) => m.to === email).at(-1);
      const code = mail ? /\b(\d{6})\b/.exec(mail.text)?.[1] : undefined;
      if (code) return code;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error("no code was mailed");
  }

  it("signs in with the e-mailed code, once, and joins the user holding that address", async () => {
    const ip = clientAddress();
    const email = `Code-${unique()}@clinic.test`;
    const clinic = await clinicFixture(handle.db);
    const added = await request(app, {
      method: "POST",
      url: `/v1/clinics/${clinic.clinicId}/members`,
      token: clinic.admin.token,
      body: { email: email.toLowerCase(), full_name: "Coded", clinic_role: "STAFF" },
    });
    const userId = added.json<{ user_id: string }>().user_id;
    const started = await start(email, ip, "//evil.example");
    expect(started.statusCode).toBe(202);
    expect(started.json()).toEqual({});
    const code = await codeFor(email.trim());
    const verified = await verify(email, code, ip);
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toEqual({ next: "/" });
    const session = cookieOf(verified, "session")?.value ?? "";
    const who = (await withSession(session, { url: "/auth/session" })).json<{ user: { id: string }; method: string }>();
    expect(who).toMatchObject({ user: { id: userId }, method: "email" });
    const again = await verify(email, code, ip);
    expect(problemOf(again)).toMatchObject({ status: 400, code: "SIGN_IN_FAILED", errors: [{ path: "code" }] });
  });

  it("answers a start the same for an unknown address", async () => {
    const known = await clinicFixture(handle.db);
    const a = await start(known.admin.email, clientAddress());
    const b = await start(`nobody-${unique()}@clinic.test`, clientAddress());
    expect([a.statusCode, a.body]).toEqual([b.statusCode, b.body]);
  });

  it("ends a code after 5 wrong tries, even for the right code afterwards", async () => {
    const ip = clientAddress();
    const email = `brute-${unique()}@clinic.test`;
    expect((await start(email, ip)).statusCode).toBe(202);
    const code = await codeFor(email);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) expect(problemOf(await verify(email, wrong, ip)).code).toBe("SIGN_IN_FAILED");
    expect(problemOf(await verify(email, code, ip)).code).toBe("SIGN_IN_FAILED");
  });

  it("mails at most 5 codes per address per hour, whatever the client address", async () => {
    const email = `limit-${unique()}@clinic.test`;
    for (let i = 0; i < 5; i++) expect((await start(email, clientAddress())).statusCode).toBe(202);
    const sixth = await start(email, clientAddress());
    expect(problemOf(sixth).code).toBe("RATE_LIMITED");
    expect(sixth.headers["retry-after"]).toBeDefined();
  });

  it("limits starts per client address per minute (GUEST_RATE_LIMIT)", async () => {
    const ip = clientAddress();
    for (let i = 0; i < 10; i++) expect((await start(`many-${unique()}@clinic.test`, ip)).statusCode).toBe(202);
    expect(problemOf(await start(`many-${unique()}@clinic.test`, ip)).code).toBe("RATE_LIMITED");
  });

  it("refuses a malformed address with 400 VALIDATION_FAILED", async () => {
    expect(problemOf(await start("not-an-address", clientAddress())).code).toBe("VALIDATION_FAILED");
  });
});

describe("over https", () => {
  it("names the cookie __Host-session, Secure, and reads no plain session cookie there", async () => {
    const proxied = await buildApp({
      config: {
        allowedOrigins: [],
        rateLimit: { max: 1000, windowMs: 60_000 },
        logLevel: "silent",
        trustProxy: 1,
        signIn: { oidc: null, emailCodes: true, sessionIdleS: 600, sessionTtlS: 3600 },
      },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
      mail: { transport: mailTransport, from: "Clinic <no-reply@clinic.test>" },
    });
    try {
      const https = { "x-forwarded-proto": "https" };
      const email = `https-${unique()}@clinic.test`;
      await proxied.inject({ method: "POST", url: "/auth/email/start", headers: https, payload: { email } });
      const code = /\b(\d{6})\b/.exec(mails.filter((m) => m.to === email).at(-1)?.text ?? "")?.[1] ?? "";
      const verified = await proxied.inject({
        method: "POST",
        url: "/auth/email/verify",
        headers: https,
        payload: { email, code },
      });
      expect(verified.statusCode).toBe(200);
      const cookie = cookieOf(verified, "__Host-session");
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, path: "/", sameSite: "Lax" });
      expect(cookie?.domain).toBeUndefined();
      const id = cookie?.value ?? "";
      const asHttps = (cookies: Record<string, string>) =>
        proxied.inject({ method: "GET", url: "/auth/session", headers: https, cookies });
      expect((await asHttps({ "__Host-session": id })).statusCode).toBe(200);
      // A `session` cookie (which plain http could have planted) means nothing over https.
      expect((await asHttps({ session: id })).statusCode).toBe(401);
    } finally {
      await proxied.close();
    }
  });

  it("answers S1 with 503 while the issuer cannot be reached, and the database stays up", async () => {
    const away = await buildApp({
      config: {
        allowedOrigins: [],
        rateLimit: { max: 1000, windowMs: 60_000 },
        logLevel: "silent",
        signIn: {
          oidc: { issuer: "http://127.0.0.1:9", clientId: "c", clientSecret: "s", scopes: "openid", name: "x" },
          emailCodes: false,
          sessionIdleS: 600,
          sessionTtlS: 3600,
        },
      },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
    });
    try {
      expect(problemOf(await away.inject({ method: "GET", url: "/auth/login" })).code).toBe("UNAVAILABLE");
      expect((await away.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
    } finally {
      await away.close();
    }
  });
});

describe("the log", () => {
  it("holds no code, token, session id, state or e-mail address of a sign-in", async () => {
    const secrets: string[] = [];
    const who = account();
    secrets.push(who.email);
    const started = await startLogin("/book/here");
    const path = await atIssuer(started, who);
    const query = new URL(path, publicUrl).searchParams;
    secrets.push(query.get("code") ?? "", query.get("state") ?? "", started.binding);
    const signedIn = await callback(path, started.binding);
    const session = cookieOf(signedIn, "session")?.value ?? "";
    secrets.push(session);
    const out = await app.inject({ method: "POST", url: "/auth/logout", cookies: { session } });
    const hint = new URL(String(out.headers.location)).searchParams.get("id_token_hint") ?? "";
    secrets.push(hint);
    const email = `logged-${unique()}@clinic.test`;
    secrets.push(email);
    await app.inject({ method: "POST", url: "/auth/email/start", remoteAddress: "203.0.113.9", payload: { email } });
    let code = "";
    for (let i = 0; i < 50 && !code; i++) {
      code = /\b(\d{6})\b/.exec(mails.filter((m) => m.to === email).at(-1)?.text ?? "")?.[1] ?? "";
      if (!code) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    secrets.push(code);
    const verified = await app.inject({
      method: "POST",
      url: "/auth/email/verify",
      remoteAddress: "203.0.113.9",
      payload: { email, code },
    });
    secrets.push(cookieOf(verified, "session")?.value ?? "");
    await app.inject({ method: "POST", url: "/auth/email/verify", payload: { email, code: "999999" } });
    const log = logLines.join("");
    expect(log).toContain("/auth/callback");
    expect(log).toContain("signed in");
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(5);
      // A code of digits only counts as itself, not inside a longer number (a timestamp or a
      // response time of the log: CI once found a 6-digit code so, by chance).
      const shown = /^\d+$/.test(secret) ? new RegExp(`(?<!\\d)${secret}(?!\\d)`).test(log) : log.includes(secret);
      expect(shown, `the log shows a secret of ${String(secret.length)} characters`).toBe(false);
    }
  });
});
