// The FHIR R4 facade (CONTRACT §16, docs/fhir.md): a mapping layer over the same tRPC procedures
// the /v1 routes call, through a caller built on the request's own context. Nothing here reads
// the database: authorization, clinic scoping and every rule stay the procedures'.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { Appointment, Bundle, CapabilityStatement } from "fhir/r4.js";
import { type Context, DomainError, toDomainError } from "@clinic/api";
import { invalid } from "./input.ts";
import {
  type OperationAnswer,
  appointmentBundle,
  bookAppointment,
  findAppointments,
  holdAppointment,
  patchAppointment,
} from "./operations.ts";
import { diagnosticsOf, expressionsOf, fhirContentType, sendFhir, sendOutcome } from "./outcome.ts";
import { type Params, countOf, single } from "./params.ts";
import { commonParams, resources } from "./resources.ts";
import { createCaller } from "./scope.ts";

/** The Appointment operations served (routes and CapabilityStatement alike). */
const appointmentOperations = ["find", "hold", "book"] as const;

export { fhirContentType };
const fhirVersion = "4.0.1";

export interface FhirOptions {
  createContext: (request: FastifyRequest) => Promise<Context>;
  now?: () => Date;
  /** Told of every UNAVAILABLE answer, like the app's own error handler (the outage detector). */
  onUnavailable?: (error: DomainError) => void;
}

export function capabilityStatement(baseUrl: string, at: Date): CapabilityStatement {
  return {
    resourceType: "CapabilityStatement",
    status: "active",
    date: at.toISOString(),
    kind: "instance",
    software: { name: "Clinic Scheduling Service" },
    implementation: { description: "FHIR R4 facade over the clinic scheduling API", url: baseUrl },
    fhirVersion,
    format: ["application/fhir+json"],
    rest: [
      {
        mode: "server",
        security: {
          description:
            "Authorization: Bearer <JWT> (or the access_token cookie), the same tokens and clinic roles as /v1 (docs/fhir.md)",
        },
        resource: Object.entries(resources).map(([type, def]) => ({
          type,
          interaction: [
            { code: "read" as const },
            ...(def.searchAll ? [{ code: "search-type" as const }] : []),
            ...(type === "Appointment" ? [{ code: "patch" as const }] : []),
          ],
          ...(type === "Appointment"
            ? {
                operation: appointmentOperations.map((name) => ({
                  name,
                  definition: `urn:clinic-scheduling:fhir:OperationDefinition/appointment-${name}`,
                  documentation: `POST /fhir/R4/Appointment/$${name} (docs/fhir.md#operations)`,
                })),
              }
            : {}),
          versioning: "versioned" as const,
          readHistory: false,
          ...(def.searchAll
            ? {
                searchParam: [
                  ...Object.entries(def.search).map(([name, param]) => ({
                    name,
                    type: param.type,
                    documentation: param.documentation,
                  })),
                  { name: "_count", type: "number" as const, documentation: "Page size, 0–500 (default 50)" },
                  {
                    name: "_offset",
                    type: "number" as const,
                    documentation: "Paging position (from Bundle.link next)",
                  },
                ],
              }
            : {}),
        })),
      },
    ],
  };
}

function paramsOf(request: FastifyRequest): Params {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const params: Params = {};
  for (const [name, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    params[name] = values.filter((v): v is string => typeof v === "string");
  }
  return params;
}

function send(reply: FastifyReply, status: number, body: object) {
  return sendFhir(reply, status, body);
}

/** The seconds a RATE_LIMITED answer asks the client to wait, as /v1 tells them (Retry-After). */
function retryAfterOf(error: DomainError): number | undefined {
  const seconds = error.domainCode === "RATE_LIMITED" ? error.extra?.retry_after_s : undefined;
  return typeof seconds === "number" ? seconds : undefined;
}

/** Registers /fhir/R4 (under the prefix the caller gives) with its own error and 404 answers. */
export function fhirRoutes(app: FastifyInstance, options: FhirOptions): Promise<void> {
  const now = options.now ?? (() => new Date());
  const baseOf = (request: FastifyRequest) => `${request.protocol}://${request.host}${app.prefix}`;

  app.setErrorHandler(async (error: unknown, request, reply) => {
    const status =
      typeof error === "object" && error !== null && "statusCode" in error && typeof error.statusCode === "number"
        ? error.statusCode
        : undefined;
    const fastifyCode = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    if (status === 429) return sendOutcome(reply, 429, "RATE_LIMITED", "rate limit exceeded");
    if (status !== undefined && status >= 400 && status < 500 && fastifyCode.startsWith("FST_")) {
      const message = error instanceof Error ? error.message : "bad request";
      return sendOutcome(reply, status, "VALIDATION_FAILED", message);
    }
    const domain = error instanceof DomainError ? error : toDomainError(error);
    if (domain.domainCode === "UNAVAILABLE") options.onUnavailable?.(domain);
    const httpStatus = getHTTPStatusCodeFromError(domain);
    if (httpStatus >= 500) request.log.error({ err: error, code: domain.domainCode }, "fhir request failed");
    if (httpStatus === 401) void reply.header("www-authenticate", 'Bearer realm="fhir"');
    const retryAfter = retryAfterOf(domain);
    if (retryAfter !== undefined) void reply.header("retry-after", String(retryAfter));
    const diagnostics =
      httpStatus >= 500 && domain.domainCode === "INTERNAL"
        ? `internal error; request id ${request.id}`
        : diagnosticsOf(domain.message, domain.errors);
    return sendOutcome(reply, httpStatus, domain.domainCode, diagnostics, expressionsOf(domain.extra));
  });

  // Authentication is judged before anything else (§16 v1.3): without a valid token every
  // request but metadata is 401, whatever its parameters, body or path (unknown routes too).
  const metadataPath = `${app.prefix}/metadata`;
  app.addHook("onRequest", async (request) => {
    if ((request.url.split("?")[0] ?? "") === metadataPath) return;
    const context = await options.createContext(request);
    if (!context.user) {
      throw new DomainError(
        "UNAUTHENTICATED",
        context.authError ?? "authentication required: send Authorization: Bearer <JWT> (or the access_token cookie)",
      );
    }
  });

  app.setNotFoundHandler((request, reply) =>
    sendOutcome(
      reply,
      404,
      "NOT_FOUND",
      `no route ${request.method} ${(request.url.split("?")[0] ?? "").slice(0, 200)}`,
    ),
  );

  // FHIR bodies are JSON under their own media types.
  const parseJson = (_request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => {
    try {
      done(null, JSON.parse(body));
    } catch {
      done(invalid("(body)", "is not valid JSON"));
    }
  };
  app.addContentTypeParser(["application/fhir+json", "application/json-patch+json"], { parseAs: "string" }, parseJson);

  const callerOf = async (request: FastifyRequest) => createCaller(await options.createContext(request));
  const header = (request: FastifyRequest, name: string): string | undefined => {
    const value = request.headers[name];
    return typeof value === "string" ? value : undefined;
  };
  const sendAppointment = (request: FastifyRequest, reply: FastifyReply, status: number, resource: Appointment) => {
    const version = resource.meta?.versionId ?? "";
    void reply
      .header("etag", `W/"${version}"`)
      .header("location", `${baseOf(request)}/Appointment/${resource.id ?? ""}/_history/${version}`);
    return send(reply, status, resource);
  };
  /** $hold and $book: the Appointment (its body or v1.2's `appointment` part), or a Bundle of it (IHE's parts). */
  const sendOperation = (request: FastifyRequest, reply: FastifyReply, status: number, answer: OperationAnswer) => {
    if (!answer.asBundle) return sendAppointment(request, reply, status, answer.appointment);
    const version = answer.appointment.meta?.versionId ?? "";
    void reply.header("location", `${baseOf(request)}/Appointment/${answer.appointment.id ?? ""}/_history/${version}`);
    return send(reply, status, appointmentBundle(baseOf(request), [answer.appointment]));
  };
  const operationHandlers = {
    find: async (request, reply) =>
      send(
        reply,
        200,
        appointmentBundle(baseOf(request), await findAppointments(await callerOf(request), request.body, now())),
      ),
    hold: async (request, reply) =>
      sendOperation(
        request,
        reply,
        201,
        await holdAppointment(await callerOf(request), request.body, header(request, "idempotency-key")),
      ),
    book: async (request, reply) =>
      sendOperation(
        request,
        reply,
        200,
        await bookAppointment(await callerOf(request), request.body, header(request, "idempotency-key")),
      ),
  } satisfies Record<
    (typeof appointmentOperations)[number],
    (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>
  >;
  for (const name of appointmentOperations) app.post(`/Appointment/$${name}`, operationHandlers[name]);
  app.patch("/Appointment/:id", async (request, reply) => {
    const { id } = request.params as { id: string };
    const caller = await callerOf(request);
    return sendAppointment(
      request,
      reply,
      200,
      await patchAppointment(caller, id, request.body, header(request, "if-match")),
    );
  });

  app.get("/metadata", (request, reply) => send(reply, 200, capabilityStatement(baseOf(request), now())));

  for (const [type, def] of Object.entries(resources)) {
    app.get(`/${type}/:id`, async (request, reply) => {
      const { id } = request.params as { id: string };
      const resource = await def.read(await callerOf(request), id, now(), baseOf(request));
      const version = resource.meta?.versionId;
      if (version) void reply.header("etag", `W/"${version}"`);
      if (resource.meta?.lastUpdated)
        void reply.header("last-modified", new Date(resource.meta.lastUpdated).toUTCString());
      return send(reply, 200, resource);
    });

    const searchAll = def.searchAll;
    if (!searchAll) continue;
    app.get(`/${type}`, async (request, reply) => {
      const params = paramsOf(request);
      const allowed = new Set([...Object.keys(def.search), ...commonParams]);
      const unknown = Object.keys(params).filter((name) => !allowed.has(name));
      if (unknown.length > 0) {
        const names = unknown.map((name) => name.slice(0, 40)).join(", ");
        throw invalid(names, `unknown search parameter of ${type}; see ${app.prefix}/metadata`);
      }
      const format = single(params, "_format");
      if (format !== undefined && !["json", "application/fhir+json", "application/json"].includes(format)) {
        throw invalid("_format", "only JSON is served");
      }
      const count = countOf(params, "_count", 50, 500);
      const offset = countOf(params, "_offset", 0, Number.MAX_SAFE_INTEGER);
      const all = await searchAll({ caller: await callerOf(request), params, now: now(), base: baseOf(request) });
      const page = all.slice(offset, offset + count);
      const base = baseOf(request);
      const linkFor = (at: number) => {
        const query = new URLSearchParams();
        for (const [name, values] of Object.entries(params)) {
          if (name === "_offset") continue;
          for (const value of values) query.append(name, value);
        }
        query.set("_offset", String(at));
        return `${base}/${type}?${query.toString()}`;
      };
      const bundle: Bundle = {
        resourceType: "Bundle",
        type: "searchset",
        total: all.length,
        link: [
          { relation: "self", url: linkFor(offset) },
          ...(count > 0 && offset + count < all.length ? [{ relation: "next", url: linkFor(offset + count) }] : []),
        ],
        entry: page.map((resource) => ({
          fullUrl: `${base}/${type}/${resource.id ?? ""}`,
          resource,
          search: { mode: "match" as const },
        })),
      };
      return send(reply, 200, bundle);
    });
  }
  return Promise.resolve();
}
