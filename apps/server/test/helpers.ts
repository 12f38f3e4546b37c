import { afterAll, beforeAll, inject } from "vitest";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { createTokenVerifier, mintToken } from "@clinic/api";
import { clinicMembers, clinics, type DbHandle, users } from "@clinic/db";
import { openTestDatabase } from "@clinic/db/testing";
import { buildApp, type AppOptions } from "../src/app.ts";

export const testSecret = "test-secret-0123456789-0123456789-abcdef";

export interface TestApp {
  readonly app: FastifyInstance;
  readonly handle: DbHandle;
}

/** A built app on this file's database, with a known HS256 secret and no logging. */
export function useTestApp(overrides: Partial<Omit<AppOptions, "database" | "verifier">> = {}): TestApp {
  let app: FastifyInstance | undefined;
  let handle: DbHandle | undefined;
  beforeAll(async () => {
    handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
    app = await buildApp({
      config: { allowedOrigins: ["https://app.clinic.example"], rateLimit: { max: 100_000, windowMs: 60_000 }, logLevel: "silent" },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
      ...overrides,
    });
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });
  return {
    get app() {
      if (!app) throw new Error("app not built yet");
      return app;
    },
    get handle() {
      if (!handle) throw new Error("database not open yet");
      return handle;
    },
  };
}

export interface TestUser {
  id: string;
  email: string;
  token: string;
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 7)}`;

/** Mints a token for a fresh identity (the user row is provisioned by the first request). */
export async function newUser(options: { admin?: boolean } = {}): Promise<TestUser> {
  const id = crypto.randomUUID();
  const email = `u-${unique()}@test.example`;
  const token = await mintToken(testSecret, { sub: id, email, roles: options.admin ? ["ADMIN"] : undefined });
  return { id, email, token };
}

/** A clinic with members of each role, created directly in the database. */
export async function seedClinic(handle: DbHandle, options: { timezone?: string } = {}) {
  const [clinic] = await handle.db
    .insert(clinics)
    .values({ name: `Clinic ${unique()}`, timezone: options.timezone ?? "UTC" })
    .returning();
  if (!clinic) throw new Error("no clinic");
  const member = async (role: string, fullName: string, isProvider = false) => {
    const user = await newUser();
    await handle.db.insert(users).values({ id: user.id, email: user.email });
    await handle.db.insert(clinicMembers).values({ clinicId: clinic.id, userId: user.id, fullName, clinicRole: role, isProvider });
    return user;
  };
  return {
    clinicId: clinic.id,
    admin: await member("CLINIC_ADMIN", "Admin Person"),
    staff: await member("STAFF", "Staff Person"),
    custom: await member("BOOKING_AGENT", "Agent Person"),
    member,
  };
}

/** Sends a request authenticated by the access_token cookie (or as given). */
export async function request(
  app: FastifyInstance,
  options: {
    method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
    url: string;
    token?: string;
    bearer?: string;
    body?: unknown;
    headers?: Record<string, string>;
  },
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: options.method,
    url: options.url,
    headers: {
      ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
      ...options.headers,
    },
    ...(options.token ? { cookies: { access_token: options.token } } : {}),
    ...(options.body !== undefined ? { payload: options.body as Record<string, unknown> } : {}),
  });
}

/** Asserts a problem+json body and returns it. */
export function problemOf(response: LightMyRequestResponse): { status: number; code: string; detail: string; title: string; type: string; errors?: { path: string; message: string }[]; [k: string]: unknown } {
  if (!String(response.headers["content-type"]).startsWith("application/problem+json")) {
    throw new Error(`expected problem+json, got ${String(response.headers["content-type"])}: ${response.body}`);
  }
  return response.json();
}
