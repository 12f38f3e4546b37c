import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createTokenVerifier, mintToken } from "@clinic/api";
import { type TestUser, addProvider, clinicFixture, testSecret, unique } from "@clinic/api/testing";
import { buildApp } from "../src/app.ts";
import { request, useTestApp } from "./helpers.ts";

// Contract §3/§4: a member's `email` is the user's and follows the latest token in every clinic at
// once; `phone_e164` is the membership's own when set, else the phone of the latest token.
const one = useTestApp();
// A second instance on the same database, with its own token cache and user provisioner: what a
// second server process is.
let second: FastifyInstance | undefined;
beforeAll(async () => {
  second = await buildApp({
    config: { allowedOrigins: [], rateLimit: { max: 100_000, windowMs: 60_000 }, logLevel: "silent" },
    database: one.handle,
    verifier: createTokenVerifier({ secret: testSecret }),
    logger: false,
  });
});
afterAll(async () => {
  await second?.close();
});
const two = () => {
  if (!second) throw new Error("second instance not built yet");
  return second;
};

const newEmail = () => `new-${unique()}@test.example`;

/** A token for `user` with other claims; `lifetime` makes two tokens of the same second differ. */
const tokenFor = (user: { id: string }, email: string, options: { phone?: string; lifetime?: string } = {}) =>
  mintToken(testSecret, { sub: user.id, email, phoneE164: options.phone }, { expiresIn: options.lifetime ?? "1h" });

/** The person signs in: any authenticated request provisions them from the token. */
async function signIn(app: FastifyInstance, token: string): Promise<void> {
  const response = await request(app, { method: "GET", url: "/v1/clinics", token });
  expect(response.statusCode).toBe(200);
}

/** The member entry of `userId` as the clinic admin sees it in M2. */
async function memberIn(app: FastifyInstance, clinic: { clinicId: string; admin: TestUser }, userId: string) {
  const response = await request(app, {
    method: "GET",
    url: `/v1/clinics/${clinic.clinicId}/members`,
    token: clinic.admin.token,
  });
  expect(response.statusCode).toBe(200);
  return response
    .json<{ members: { user_id: string; email: string; phone_e164: string | null }[] }>()
    .members.find((m) => m.user_id === userId);
}

/** Clinic `b`'s admin links `person` (a member of `a`) by user id (M1). */
async function link(
  app: FastifyInstance,
  b: { clinicId: string; admin: TestUser },
  person: TestUser,
  body: Record<string, unknown> = {},
) {
  const response = await request(app, {
    method: "POST",
    url: `/v1/clinics/${b.clinicId}/members`,
    token: b.admin.token,
    body: { user_id: person.id, email: person.email, full_name: "Linked Person", ...body },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ email: string; phone_e164: string | null }>();
}

describe("a member's e-mail and phone follow the latest token", () => {
  it("shows the e-mail of the latest token in every clinic at once", async () => {
    const a = await clinicFixture(one.handle.db);
    const b = await clinicFixture(one.handle.db);
    const person = a.staff;
    await link(one.app, b, person);
    const email = newEmail();
    await signIn(one.app, await tokenFor(person, email));
    expect(await memberIn(one.app, a, person.id)).toMatchObject({ email });
    expect(await memberIn(one.app, b, person.id)).toMatchObject({ email });
  });

  it("finds a provider (P1 q) by the e-mail of their latest token", async () => {
    const a = await clinicFixture(one.handle.db);
    const provider = await addProvider(one.handle.db, a.clinicId, "Anna Provider");
    const email = newEmail();
    await signIn(one.app, await tokenFor(provider, email));
    const url = `/v1/clinics/${a.clinicId}/providers?clinic_id=${a.clinicId}&q=${encodeURIComponent(email)}`;
    const response = await request(one.app, { method: "GET", url, token: a.admin.token });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ providers: { user_id: string; email: string }[] }>().providers).toMatchObject([
      { user_id: provider.id, email },
    ]);
  });

  it("shows the membership's own phone when set, else the phone of the latest token", async () => {
    const a = await clinicFixture(one.handle.db);
    const b = await clinicFixture(one.handle.db);
    const person = a.staff;
    await link(one.app, b, person, { phone_e164: "+4930111111" });
    await signIn(one.app, await tokenFor(person, person.email, { phone: "+15550001111" }));
    expect(await memberIn(one.app, a, person.id)).toMatchObject({ phone_e164: "+15550001111" });
    expect(await memberIn(one.app, b, person.id)).toMatchObject({ phone_e164: "+4930111111" });
    // M3 clearing the membership's phone falls back to the token's.
    const cleared = await request(one.app, {
      method: "PATCH",
      url: `/v1/clinics/${b.clinicId}/members/${person.id}`,
      token: b.admin.token,
      body: { phone_e164: null },
    });
    expect(cleared.statusCode).toBe(200);
    expect(await memberIn(one.app, b, person.id)).toMatchObject({ phone_e164: "+15550001111" });
    // A later token with another phone.
    await signIn(one.app, await tokenFor(person, person.email, { phone: "+15550002222", lifetime: "2h" }));
    expect(await memberIn(one.app, a, person.id)).toMatchObject({ phone_e164: "+15550002222" });
  });

  it("follows a token another process saw, and a process's own later token after that", async () => {
    const a = await clinicFixture(one.handle.db);
    const person = a.staff;
    const first = newEmail();
    const second = newEmail();
    await signIn(one.app, await tokenFor(person, first));
    expect(await memberIn(two(), a, person.id)).toMatchObject({ email: first });
    // The person's next token reaches the other process: both answer with it.
    await signIn(two(), await tokenFor(person, second));
    expect(await memberIn(one.app, a, person.id)).toMatchObject({ email: second });
    expect(await memberIn(two(), a, person.id)).toMatchObject({ email: second });
    // A later token goes back to the first address, through the process that wrote it before.
    await signIn(one.app, await tokenFor(person, first, { lifetime: "2h" }));
    expect(await memberIn(one.app, a, person.id)).toMatchObject({ email: first });
    expect(await memberIn(two(), a, person.id)).toMatchObject({ email: first });
  });

  it("linking a person who has signed in discloses nothing of theirs until their next token", async () => {
    const a = await clinicFixture(one.handle.db);
    const b = await clinicFixture(one.handle.db);
    const person = a.staff;
    const own = newEmail();
    await signIn(one.app, await tokenFor(person, own, { phone: "+15550003333" }));
    const linked = await link(one.app, b, person, { email: "chosen-by-b@test.example" });
    expect(linked).toMatchObject({ email: "chosen-by-b@test.example", phone_e164: null });
    expect(await memberIn(one.app, b, person.id)).toMatchObject({
      email: "chosen-by-b@test.example",
      phone_e164: null,
    });
    // The person's next token is the latest word on their contact details, in B too.
    await signIn(one.app, await tokenFor(person, own, { phone: "+15550003333", lifetime: "2h" }));
    expect(await memberIn(one.app, b, person.id)).toMatchObject({ email: own, phone_e164: "+15550003333" });
  });
});
