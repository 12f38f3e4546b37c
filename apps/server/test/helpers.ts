import { afterAll, beforeAll, inject } from "vitest";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { createTokenVerifier } from "@clinic/api";
import { testSecret } from "@clinic/api/testing";
import { type DbHandle, migrate } from "@clinic/db";
import { type ScratchDatabase, createScratchDatabase, openTestDatabase } from "@clinic/db/testing";
import { buildApp, type AppOptions } from "../src/app.ts";

export interface TestApp {
  readonly app: FastifyInstance;
  readonly handle: DbHandle;
  /** The connection string of the file's own database (`ownDatabase` on PostgreSQL and Citus), else undefined. */
  readonly url: string | undefined;
}

/**
 * A built app on this file's database, verifying the fixtures' test tokens, with no logging.
 * `ownDatabase` gives the file a database of its own on PostgreSQL and Citus too (on PGlite every
 * file has one anyway): for a file whose workers must run its own jobs and no other file's — the
 * test files of a run share one database there, and every process's workers take jobs from it.
 */
export function useTestApp(
  overrides: Partial<Omit<AppOptions, "database" | "verifier">> = {},
  options: { ownDatabase?: string } = {},
): TestApp {
  let app: FastifyInstance | undefined;
  let handle: DbHandle | undefined;
  let scratch: ScratchDatabase | undefined;
  beforeAll(async () => {
    const url = inject("databaseUrl");
    if (options.ownDatabase && url) {
      scratch = await createScratchDatabase(url, options.ownDatabase, { migrated: true });
      handle = await scratch.open({ poolMax: 20 });
      await migrate(handle.db);
    } else {
      handle = await openTestDatabase({ url, templatePath: inject("pgliteTemplate"), own: !!options.ownDatabase });
    }
    app = await buildApp({
      config: {
        allowedOrigins: ["https://app.clinic.example"],
        rateLimit: { max: 100_000, windowMs: 60_000 },
        logLevel: "silent",
      },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
      ...overrides,
    });
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
    await scratch?.drop();
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
    get url() {
      return scratch?.url;
    },
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
export function problemOf(response: LightMyRequestResponse): {
  status: number;
  code: string;
  detail: string;
  title: string;
  type: string;
  errors?: { path: string; message: string }[];
  [k: string]: unknown;
} {
  if (!String(response.headers["content-type"]).startsWith("application/problem+json")) {
    throw new Error(`expected problem+json, got ${String(response.headers["content-type"])}: ${response.body}`);
  }
  return response.json();
}
