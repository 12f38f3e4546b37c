import { SignJWT, base64url } from "jose";
import { describe, expect, it } from "vitest";
import { mintToken } from "@clinic/api";
import { clinicFixture, newIdentity, testSecret } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp();
const key = new TextEncoder().encode(testSecret);

async function tokenWith(build: (jwt: SignJWT) => SignJWT, alg = "HS256", secret: Uint8Array = key): Promise<string> {
  const jwt = new SignJWT({ email: "x@test.example" })
    .setProtectedHeader({ alg })
    .setSubject(crypto.randomUUID())
    .setIssuedAt();
  return build(jwt).sign(secret);
}

describe("authentication", () => {
  it("answers 401 problem+json without a token", async () => {
    const response = await request(t.app, { method: "GET", url: "/v1/clinics" });
    expect(response.statusCode).toBe(401);
    expect(problemOf(response)).toMatchObject({
      type: "about:blank",
      title: "Unauthorized",
      status: 401,
      code: "UNAUTHENTICATED",
    });
  });

  const refused: [string, () => Promise<string>][] = [
    [
      "a bad signature",
      () =>
        tokenWith(
          (j) => j.setExpirationTime("1h"),
          "HS256",
          new TextEncoder().encode("another-secret-another-secret-1234"),
        ),
    ],
    ["an expired token", () => tokenWith((j) => j.setExpirationTime(Math.floor(Date.now() / 1000) - 60))],
    ["a token without exp", () => tokenWith((j) => j)],
    ["another algorithm (HS512)", () => tokenWith((j) => j.setExpirationTime("1h"), "HS512")],
    [
      "alg none",
      () => {
        const header = base64url.encode(JSON.stringify({ alg: "none", typ: "JWT" }));
        const payload = base64url.encode(
          JSON.stringify({
            sub: crypto.randomUUID(),
            email: "x@test.example",
            exp: Math.floor(Date.now() / 1000) + 3600,
          }),
        );
        return Promise.resolve(`${header}.${payload}.`);
      },
    ],
    ["a malformed token", () => Promise.resolve("not-a-jwt")],
    [
      "a token whose sub is not a UUID",
      async () =>
        new SignJWT({ email: "x@test.example" })
          .setProtectedHeader({ alg: "HS256" })
          .setSubject("user-1")
          .setExpirationTime("1h")
          .sign(key),
    ],
    [
      "a token without email",
      async () =>
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256" })
          .setSubject(crypto.randomUUID())
          .setExpirationTime("1h")
          .sign(key),
    ],
  ];
  it.each(refused)("refuses %s with 401", async (_name, make) => {
    const token = await make();
    for (const auth of [{ token }, { bearer: token }]) {
      const response = await request(t.app, { method: "GET", url: "/v1/clinics", ...auth });
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe("UNAUTHENTICATED");
    }
  });

  it("accepts the cookie and the Bearer header; the cookie wins when both are present", async () => {
    const admin = await newIdentity({ admin: true });
    const plain = await newIdentity();
    const body = { name: "Either" };
    expect((await request(t.app, { method: "POST", url: "/v1/clinics", bearer: admin.token, body })).statusCode).toBe(
      201,
    );
    expect(
      (await request(t.app, { method: "POST", url: "/v1/clinics", token: admin.token, bearer: plain.token, body }))
        .statusCode,
    ).toBe(201);
    const response = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      token: plain.token,
      bearer: admin.token,
      body,
    });
    expect(response.statusCode).toBe(403);
    expect(problemOf(response).code).toBe("FORBIDDEN");
  });

  it("provisions the user from the claims and follows a changed e-mail", async () => {
    const user = await newIdentity({ admin: true });
    const created = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      token: user.token,
      body: { name: "Prov" },
    });
    const clinicId = created.json<{ id: string }>().id;
    const newEmail = `renamed-${crypto.randomUUID()}@test.example`;
    const renamed = await mintToken(testSecret, { sub: user.id, email: newEmail, roles: ["ADMIN"] });
    const added = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${clinicId}/members`,
      token: renamed,
      body: { email: newEmail, full_name: "Me" },
    });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toMatchObject({ user_id: user.id, email: newEmail });
  });

  it("hands an invited e-mail's placeholder user to the identity that signs in with it", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const email = `invited-${crypto.randomUUID()}@test.example`;
    const invited = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${clinic.clinicId}/members`,
      token: clinic.admin.token,
      body: { email, full_name: "Invited Person" },
    });
    expect(invited.statusCode).toBe(201);
    const sub = crypto.randomUUID();
    const token = await mintToken(testSecret, { sub, email });
    const mine = await request(t.app, { method: "GET", url: "/v1/clinics", token });
    expect(mine.statusCode).toBe(200);
    expect(mine.json<{ clinics: { id: string }[] }>().clinics.map((c) => c.id)).toEqual([clinic.clinicId]);
    const members = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}/members`,
      token: clinic.admin.token,
    });
    expect(
      members.json<{ members: { email: string; user_id: string }[] }>().members.find((m) => m.email === email)?.user_id,
    ).toBe(sub);
  });
});

describe("authorization", () => {
  it("answers 403 to a member of clinic A on clinic B, and to a role too low", async () => {
    const a = await clinicFixture(t.handle.db);
    const b = await clinicFixture(t.handle.db);
    const cross = await request(t.app, { method: "GET", url: `/v1/clinics/${b.clinicId}`, token: a.admin.token });
    expect(cross.statusCode).toBe(403);
    expect(problemOf(cross)).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect(cross.body).not.toContain(b.clinicId.slice(0, 8) + "x");
    const low = await request(t.app, {
      method: "PATCH",
      url: `/v1/clinics/${a.clinicId}`,
      token: a.staff.token,
      body: { name: "no" },
    });
    expect(low.statusCode).toBe(403);
    const custom = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${a.clinicId}/members`,
      token: a.custom.token,
    });
    expect(custom.statusCode).toBe(403);
    const ok = await request(t.app, { method: "GET", url: `/v1/clinics/${a.clinicId}`, token: a.custom.token });
    expect(ok.statusCode).toBe(200);
  });

  it("refuses cookie-authenticated writes from a foreign Origin, not Bearer ones", async () => {
    const admin = await newIdentity({ admin: true });
    const body = { name: "Origin" };
    const evil = { origin: "https://evil.example" };
    const refused = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      token: admin.token,
      body,
      headers: evil,
    });
    expect(refused.statusCode).toBe(403);
    expect(problemOf(refused).code).toBe("FORBIDDEN");
    const allowed = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      token: admin.token,
      body,
      headers: { origin: "https://app.clinic.example" },
    });
    expect(allowed.statusCode).toBe(201);
    // The service's own pages (same origin as the request's Host) pass without configuration.
    const own = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      token: admin.token,
      body,
      headers: { host: "clinic.test:8080", origin: "http://clinic.test:8080" },
    });
    expect(own.statusCode).toBe(201);
    const otherPort = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      token: admin.token,
      body,
      headers: { host: "clinic.test:8080", origin: "http://clinic.test:8081" },
    });
    expect(otherPort.statusCode).toBe(403);
    const bearer = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      bearer: admin.token,
      body,
      headers: evil,
    });
    expect(bearer.statusCode).toBe(201);
    const read = await request(t.app, { method: "GET", url: "/v1/clinics", token: admin.token, headers: evil });
    expect(read.statusCode).toBe(200);
  });
});
