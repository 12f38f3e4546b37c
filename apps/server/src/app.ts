import { randomUUID } from "node:crypto";
import cookie from "@fastify/cookie";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import {
  type AppRouter,
  AvailabilityCache,
  type Context,
  DomainError,
  type TokenVerifier,
  UserProvisioner,
  appRouter,
  createContextInner,
  defaultApiLimits,
  type FastAvailabilityAnswer,
  fastAvailability,
  startWorkers,
  calendarKeyOf,
  toDomainError,
  type MailTransport,
  type OidcSettings,
} from "@clinic/api";
import type { Config } from "@clinic/config";
import type { DbHandle } from "@clinic/db";
import { type SessionCheck, assertSameSite, authenticate } from "./auth.ts";
import { registerSignIn } from "./signIn.ts";
import { type WebOptions, registerWeb } from "./web.ts";
import { type MailCatcher, registerDevMail } from "./mailCatcher.ts";
import { fhirRoutes } from "./fhir/plugin.ts";
import { createMetrics, registerMetricsRoutes } from "./metrics.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { problem, problemContentType, problemOf } from "./problem.ts";
import { restAdapter } from "./rest.ts";
import { type RequestLimits, clientAborted, transportOptions } from "./transport.ts";

export interface AppOptions {
  config: Pick<Config, "allowedOrigins" | "rateLimit" | "logLevel"> &
    Partial<
      Pick<
        Config,
        | "requestTimeoutMs"
        | "availability"
        | "bookingRateLimit"
        | "guestRateLimit"
        | "guestAddressKey"
        | "trustProxy"
        | "publicUrl"
        | "webhooks"
        | "jobPollIntervalMs"
        | "jobLeaseS"
        | "metricsToken"
        | "calendars"
        | "nodeEnv"
        | "signIn"
      >
    >;
  /** Run this process's background workers (webhook deliveries, reminders, e-mails, the waitlist); default false. */
  workers?: boolean;
  /** How often the workers run the waitlist matcher (default 5 s; tests shorten it). */
  waitlistIntervalMs?: number;
  /** Request timeouts (default: config.requestTimeoutMs, 30 s, for a whole request, 10 s for its head). */
  limits?: RequestLimits;
  database: DbHandle;
  verifier: TokenVerifier;
  /** Shared by every request of this process; defaults to a new one. */
  availabilityCache?: AvailabilityCache;
  /** Pino options, or false for no logging (tests). */
  logger?: FastifyServerOptions["logger"];
  /** The clock, pinned by tests. */
  now?: () => Date;
  /** The reference web pages and the development sign-in (docs/web.md); absent = API only. */
  web?: WebOptions;
  /**
   * How the workers send patient e-mails (docs/messages.md): a transport (null: recorded
   * `skipped`), the From: address, the base of manage links (default the config's PUBLIC_URL), and
   * a local catcher whose mails /dev/mail shows (development).
   */
  mail?: { transport: MailTransport | null; from: string; publicUrl?: string | undefined; catcher?: MailCatcher };
  /** How the OpenID Connect client reaches the issuer (default fetch); tests stand between them. */
  oidcFetch?: OidcSettings["fetch"];
}

/**
 * A manage link's token is a credential: request logs show `/manage/…` paths (and /trpc's manage
 * calls) without it; nor do they show a sign-in callback's code and state (§22).
 */
export function redactUrl(url: string): string {
  return url
    .replace(/^(\/auth\/callback)\?.*$/, "$1?[redacted]")
    .replace(/\/manage\/[^/?#]+/g, "/manage/[redacted]")
    .replace(/^(\/trpc\/[^?]*manage\.[^?]*)\?.*$/, "$1?[redacted]");
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

/** The seconds a RATE_LIMITED answer asks the client to wait (the Retry-After header). */
function retryAfterOf(error: DomainError): number | undefined {
  const seconds = error.domainCode === "RATE_LIMITED" ? error.extra?.retry_after_s : undefined;
  return typeof seconds === "number" ? seconds : undefined;
}

/**
 * Fastify's `trustProxy` for TRUST_PROXY (§11, docs/operations.md#client-address). Proxies named by
 * address are Fastify's own list. A hop count trusts that many hops back from the server, whoever
 * they are, as Express and earlier Fastify releases read a number; this Fastify ignores a plain
 * number (it cannot tell a proxy from a client that forges the header), so the count is given as
 * the function it stood for. Only for a server that nothing but the proxies can reach.
 */
function trustProxyOption(trust: Config["trustProxy"]): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== "number") return trust;
  return (_address, hop) => hop < trust;
}

class RateLimitedError extends Error {
  readonly statusCode = 429;
}

/** The user id of a visitor without a token on the fast path: no member has it. */
const nobody = "00000000-0000-0000-0000-000000000000";

/** Builds the HTTP application (REST /v1, /trpc, health, OpenAPI and docs) without listening. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: options.config.logLevel,
            ...(typeof options.logger === "object" ? options.logger : {}),
            // A manage link's token never reaches a log line (§15).
            serializers: {
              req: (request: FastifyRequest) => ({
                method: request.method,
                url: redactUrl(request.url),
                host: request.host,
                remoteAddress: request.ip,
              }),
            },
          },
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    },
    // The client address (request.ip) of every per-address rule and of the log: the connection's
    // peer, or the X-Forwarded-For entry behind the trusted proxies only (TRUST_PROXY, §11).
    trustProxy: trustProxyOption(options.config.trustProxy ?? false),
    routerOptions: { maxParamLength: 5000 },
    bodyLimit: 1_048_576,
    ...transportOptions(options.limits ?? { requestTimeoutMs: options.config.requestTimeoutMs ?? 30_000 }),
  });
  const availability = options.config.availability;
  const availabilityCache =
    options.availabilityCache ??
    new AvailabilityCache(availability ? { maxBytes: availability.cacheMb * 1024 * 1024 } : {});
  const limits = {
    maxSlotsPerAnswer: availability?.maxSlots ?? defaultApiLimits.maxSlotsPerAnswer,
    bookingWritesPerMinute: options.config.bookingRateLimit ?? defaultApiLimits.bookingWritesPerMinute,
    guestWritesPerMinute: options.config.guestRateLimit ?? defaultApiLimits.guestWritesPerMinute,
  };
  const provisioner = new UserProvisioner();
  const db = options.database.db;
  const signIn = options.config.signIn ?? {
    oidc: null,
    emailCodes: false,
    sessionIdleS: 28_800,
    sessionTtlS: 43_200,
  };
  const sessionCheck: SessionCheck = {
    limits: { idleS: signIn.sessionIdleS, ttlS: signIn.sessionTtlS },
    now: options.now ?? (() => new Date()),
  };
  const metrics = createMetrics(options.database, availabilityCache, options.now ?? (() => new Date()));
  registerMetricsRoutes(app, metrics, options.config.metricsToken);

  // Providers' own calendars: the key of their secrets (none on a production start without CALENDAR_KEY).
  const calendarAccess = {
    key: calendarKeyOf({ key: options.config.calendars?.key, production: options.config.nodeEnv === "production" }),
    allowPrivate: options.config.webhooks?.allowPrivate ?? false,
  };
  /** One context per request, shared by the REST adapter and /trpc. */
  const createContext = (request: FastifyRequest): Promise<Context> => {
    const req = request as RequestWithContext;
    req[contextKey] ??= authenticate(request, options.verifier, provisioner, db, sessionCheck).then((auth) =>
      createContextInner({
        db,
        user: auth.user,
        authError: auth.authError,
        requestId: request.id,
        clientAddress: request.ip,
        guestAddressKey: options.config.guestAddressKey,
        availabilityCache,
        limits,
        publicUrl: options.config.publicUrl ?? `${request.protocol}://${request.host}`,
        webhooks: { allowPrivate: options.config.webhooks?.allowPrivate ?? false },
        calendars: calendarAccess,
        observer: metrics.observer,
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
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(`rate limit exceeded; retry after ${context.after}`),
  });

  const health = options.database.health;
  // Routes that do not need the database answer during an outage too.
  const withoutDatabase = new Set(["/healthz", "/readyz", "/metrics", "/v1/openapi.json", "/fhir/R4/metadata"]);
  app.addHook("onRequest", (request, _reply, done) => {
    try {
      // While the database is known to be away, answer at once instead of queueing for it.
      const path = request.url.split("?")[0] ?? "";
      if (health.isDown && !withoutDatabase.has(path) && !path.startsWith("/docs")) {
        done(new DomainError("UNAVAILABLE", "the database is unavailable; retry shortly"));
        return;
      }
      assertSameSite(request, options.config.allowedOrigins);
      done();
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)));
    }
  });

  app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    let body;
    if (clientAborted(request)) {
      // Not the server's failure (and not the database's): the client went away mid-request.
      request.log.info(
        { reason: error instanceof Error ? error.message : String(error) },
        "client aborted the request",
      );
      body = problem(400, "VALIDATION_FAILED", "the client closed the request before it was complete");
    } else if (error instanceof RateLimitedError) {
      body = problem(429, "RATE_LIMITED", error.message);
    } else {
      const clientError = fastifyClientError(error);
      if (clientError) {
        body = problem(clientError.status, "VALIDATION_FAILED", clientError.message);
      } else {
        const domain = error instanceof DomainError ? error : toDomainError(error);
        if (domain.domainCode === "UNAVAILABLE") health.report(domain);
        body = problemOf(domain, request.id);
        const retryAfter = retryAfterOf(domain);
        if (retryAfter !== undefined) void reply.header("retry-after", String(retryAfter));
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

  // The process id tells which of several worker processes answered (docs/operations.md#workers).
  app.get("/healthz", { config: { rateLimit: false } }, () => Promise.resolve({ status: "ok", pid: process.pid }));
  app.get("/readyz", { config: { rateLimit: false } }, async (_request, reply) => {
    // Not ready unless the database answers within half a second: during an outage the pool's
    // queries wait for reconnects, and a load balancer must learn at once.
    let timer: NodeJS.Timeout | undefined;
    try {
      if (health.isDown) throw new Error("the database is away");
      await Promise.race([
        options.database.ping(),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            reject(new Error("the database did not answer within 500 ms"));
          }, 500);
        }),
      ]).finally(() => {
        clearTimeout(timer);
      });
      return { status: "ready", database: options.database.kind };
    } catch (error) {
      health.report(error);
      return reply
        .code(503)
        .type(problemContentType)
        .send(problem(503, "UNAVAILABLE", "the database is unreachable"));
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
      responseMeta: ({ errors }) => {
        const retryAfter = errors.map((e) => retryAfterOf(toDomainError(e))).find((s) => s !== undefined);
        return retryAfter === undefined ? {} : { headers: { "retry-after": String(retryAfter) } };
      },
      onError: ({ error, ctx }) => {
        const domain = toDomainError(error);
        if (domain.domainCode === "UNAVAILABLE") health.report(domain);
        if (domain.domainCode === "INTERNAL")
          app.log.error({ err: error, requestId: ctx?.requestId }, "trpc request failed");
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>["trpcOptions"],
  });

  const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const datePattern = /^\d{4}-\d{2}-\d{2}$/;
  const fastAvailabilityOf = async (
    request: FastifyRequest,
    kind: "member" | "online",
  ): Promise<FastAvailabilityAnswer | undefined> => {
    // Only a plain request: anything else (no token, odd input) the procedure answers, errors included.
    const query = request.query as Record<string, unknown>;
    const { clinic_id: clinicId, service_id: serviceId, provider_id: providerId, from, to } = query;
    const param = (request.params as Record<string, unknown>).clinic_id;
    const clinic = kind === "online" ? param : clinicId;
    if (
      typeof clinic !== "string" ||
      !uuidPattern.test(clinic) ||
      (kind === "online" && clinicId !== undefined && clinicId !== clinic)
    )
      return undefined;
    if (typeof serviceId !== "string" || !uuidPattern.test(serviceId)) return undefined;
    if (providerId !== undefined && (typeof providerId !== "string" || !uuidPattern.test(providerId))) return undefined;
    if (
      (from !== undefined && (typeof from !== "string" || !datePattern.test(from))) ||
      (to !== undefined && (typeof to !== "string" || !datePattern.test(to)))
    )
      return undefined;
    const auth = await authenticate(request, options.verifier, provisioner, db, sessionCheck);
    // O3 answers guests too (§15): a visitor is nobody's member, which is all the lookup asks.
    if (!auth.user && (kind !== "online" || auth.authError !== null)) return undefined;
    const ifNoneMatch = request.headers["if-none-match"];
    return fastAvailability(db, availabilityCache, {
      userId: auth.user?.id ?? nobody,
      clinicId: clinic,
      serviceId,
      providerId,
      from,
      to,
      online: kind === "online",
      now: (options.now ?? (() => new Date()))(),
      maxSlots: limits.maxSlotsPerAnswer,
      ifNoneMatch: typeof ifNoneMatch === "string" ? ifNoneMatch : undefined,
    });
  };
  await app.register(restAdapter, { router: appRouter, createContext, fastAvailability: fastAvailabilityOf });
  // The FHIR R4 facade over the same procedures, with its own OperationOutcome errors (docs/fhir.md).
  await app.register(
    (fhir) =>
      fhirRoutes(fhir, {
        createContext,
        onUnavailable: (error) => {
          health.report(error);
        },
        ...(options.now ? { now: options.now } : {}),
      }),
    { prefix: "/fhir/R4" },
  );
  // Sign-in (§22): OpenID Connect, e-mailed codes, sessions (docs/sign-in.md).
  await registerSignIn(app, {
    db,
    oidc: signIn.oidc ? { ...signIn.oidc, fetch: options.oidcFetch } : null,
    emailCodes: signIn.emailCodes,
    limits: sessionCheck.limits,
    publicUrl: options.config.publicUrl,
    allowedOrigins: options.config.allowedOrigins,
    startsPerMinute: limits.guestWritesPerMinute,
    addressKey: options.config.guestAddressKey,
    mail: {
      transport: options.mail?.transport ?? null,
      from: options.mail?.from ?? "Clinic Scheduling <no-reply@localhost>",
    },
    now: sessionCheck.now,
  });
  if (options.web) await registerWeb(app, options.web);
  if (options.mail?.catcher) registerDevMail(app, options.mail.catcher);

  if (options.workers) {
    const workers = startWorkers(options.database, {
      allowPrivate: options.config.webhooks?.allowPrivate ?? false,
      retryDelaysS: options.config.webhooks?.retryDelaysS ?? [5, 30, 120, 600, 1800, 7200, 21600, 86400],
      timeoutMs: 10_000,
      webhookBatchPaceMs: options.config.webhooks?.batchPaceMs,
      pollIntervalMs: options.config.jobPollIntervalMs,
      jobRetry: options.config.jobLeaseS === undefined ? undefined : { leaseS: options.config.jobLeaseS },
      waitlistIntervalMs: options.waitlistIntervalMs,
      now: options.now,
      calendars: {
        key: options.config.calendars?.key,
        production: options.config.nodeEnv === "production",
        syncIntervalS: options.config.calendars?.syncIntervalS,
        staleAfterS: options.config.calendars?.staleAfterS,
      },
      mail: {
        transport: options.mail?.transport ?? null,
        from: options.mail?.from ?? "Clinic Scheduling <no-reply@localhost>",
        publicUrl: options.mail?.publicUrl ?? options.config.publicUrl ?? "http://127.0.0.1:3000",
      },
      guestAddressKey: options.config.guestAddressKey,
      onRetention: metrics.retentionRun,
      onError: (error) => {
        app.log.error({ err: error }, "job queue error");
      },
    });
    app.addHook("onClose", () => workers.stop());
  }
  return app;
}
