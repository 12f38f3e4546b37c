import { randomUUID } from "node:crypto";
import cookie from "@fastify/cookie";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from "fastify";
import {
  type AppRouter,
  AvailabilityCache,
  type Context,
  DomainError,
  type TokenVerifier,
  UserProvisioner,
  appRouter,
  createContextInner,
  toDomainError,
} from "@clinic/api";
import type { Config } from "@clinic/config";
import type { DbHandle } from "@clinic/db";
import { assertSameSite, authenticate } from "./auth.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { problem, problemContentType, problemOf } from "./problem.ts";
import { restAdapter } from "./rest.ts";

export interface AppOptions {
  config: Pick<Config, "allowedOrigins" | "rateLimit" | "logLevel">;
  database: DbHandle;
  verifier: TokenVerifier;
  /** Shared by every request of this process; defaults to a new one. */
  availabilityCache?: AvailabilityCache;
  /** Pino options, or false for no logging (tests). */
  logger?: FastifyServerOptions["logger"];
  /** The clock, pinned by tests. */
  now?: () => Date;
}

const contextKey = Symbol("clinic-context");
type RequestWithContext = FastifyRequest & { [contextKey]?: Promise<Context> };

/** A 4xx raised by Fastify itself (bad JSON, bad content type, body too large). */
function fastifyClientError(error: unknown): { status: number; message: string } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : undefined;
  const code = "code" in error && typeof error.code === "string" ? error.code : "";
  if (status === undefined || status < 400 || status >= 500 || !code.startsWith("FST_")) return undefined;
  const message = error instanceof Error ? error.message : "bad request";
  return { status, message };
}

class RateLimitedError extends Error {
  readonly statusCode = 429;
}

/** Builds the HTTP application (REST /v1, /trpc, health, OpenAPI and docs) without listening. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: options.config.logLevel },
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: 5000 },
    bodyLimit: 1_048_576,
  });
  const availabilityCache = options.availabilityCache ?? new AvailabilityCache();
  const provisioner = new UserProvisioner();
  const db = options.database.db;

  /** One context per request, shared by the REST adapter and /trpc. */
  const createContext = (request: FastifyRequest): Promise<Context> => {
    const req = request as RequestWithContext;
    req[contextKey] ??= authenticate(request, options.verifier, provisioner, db).then((auth) =>
      createContextInner({
        db,
        user: auth.user,
        authError: auth.authError,
        requestId: request.id,
        availabilityCache,
        ...(options.now ? { now: options.now } : {}),
      }),
    );
    return req[contextKey];
  };

  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  await app.register(cookie);
  await app.register(rateLimit, {
    max: options.config.rateLimit.max,
    timeWindow: options.config.rateLimit.windowMs,
    errorResponseBuilder: (_request, context) => new RateLimitedError(`rate limit exceeded; retry after ${context.after}`),
  });

  app.addHook("onRequest", (request, _reply, done) => {
    try {
      assertSameSite(request, options.config.allowedOrigins);
      done();
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)));
    }
  });

  app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    let body;
    if (error instanceof RateLimitedError) {
      body = problem(429, "RATE_LIMITED", error.message);
    } else {
      const clientError = fastifyClientError(error);
      if (clientError) {
        body = problem(clientError.status, "VALIDATION_FAILED", clientError.message);
      } else {
        const domain = error instanceof DomainError ? error : toDomainError(error);
        body = problemOf(domain, request.id);
        if (body.status >= 500) request.log.error({ err: error, code: domain.domainCode }, "request failed");
      }
    }
    return reply.code(body.status).type(problemContentType).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    return reply
      .code(404)
      .type(problemContentType)
      .send(problem(404, "NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0] ?? ""}`));
  });

  app.get("/healthz", { config: { rateLimit: false } }, () => Promise.resolve({ status: "ok" }));
  app.get("/readyz", { config: { rateLimit: false } }, async (_request, reply) => {
    try {
      await options.database.ping();
      return { status: "ready", database: options.database.kind };
    } catch {
      return reply.code(503).type(problemContentType).send(problem(503, "UNAVAILABLE", "the database is unreachable"));
    }
  });

  const document = buildOpenApiDocument(appRouter, { version: "1.0.0" });
  app.get("/v1/openapi.json", { config: { rateLimit: false } }, () => Promise.resolve(document));
  // @fastify/swagger types its static document as OpenAPI 2/3.0; ours is 3.1 (served as is).
  await app.register(swagger, { mode: "static", specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: "/docs" });

  await app.register(fastifyTRPCPlugin, {
    prefix: "/trpc",
    trpcOptions: {
      router: appRouter,
      createContext: ({ req }) => createContext(req),
      onError: ({ error, ctx }) => {
        if (toDomainError(error).domainCode === "INTERNAL") app.log.error({ err: error, requestId: ctx?.requestId }, "trpc request failed");
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>["trpcOptions"],
  });

  await app.register(restAdapter, { router: appRouter, createContext });
  return app;
}
