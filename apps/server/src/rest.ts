import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { AnyRouter } from "@trpc/server";
import {
  type Context,
  DomainError,
  type FastAvailabilityAnswer,
  etagOf,
  matchesEtag,
  type RestRoute,
  createCallerFactory,
} from "@clinic/api";
import { csvColumnsOf, csvContentType, csvFilenameOf, csvRowsOf, toCsv, wantsCsv } from "./csv.ts";
import { sendFhir } from "./fhir/outcome.ts";
import { fhirBaseOf, fhirRepresentations, wantsFhir } from "./fhir/patientExport.ts";
import { type RouteEntry, pathParams, restRoutes } from "./routes.ts";

type Caller = Record<string, unknown>;

/** The procedure function at a dotted path of a caller. */
function procedureAt(caller: Caller, path: string): (input: unknown) => Promise<unknown> {
  let current: unknown = caller;
  for (const segment of path.split(".")) {
    current =
      typeof current === "object" || typeof current === "function"
        ? (current as Record<string, unknown>)[segment]
        : undefined;
  }
  if (typeof current !== "function") throw new Error(`no procedure at ${path}`);
  return current as (input: unknown) => Promise<unknown>;
}

function mismatch(field: string): DomainError {
  return new DomainError("VALIDATION_FAILED", `${field}: differs between the path, the query and the body`, {
    errors: [{ path: field, message: "differs between the path, the query and the body" }],
  });
}

/**
 * Input of a REST request: body fields, then query fields, then path parameters and mapped
 * headers. A field given in two places must have the same value (e.g. clinic_id in path and query).
 */
export function restInput(entry: RouteEntry, request: FastifyRequest): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => {
    if (value === undefined) return;
    if (key in input && input[key] !== value) throw mismatch(key);
    input[key] = value;
  };
  const body: unknown = request.body;
  if (body !== undefined && body !== null && entry.rest.method !== "GET") {
    if (typeof body !== "object" || Array.isArray(body)) {
      throw new DomainError("VALIDATION_FAILED", "the request body must be a JSON object", {
        errors: [{ path: "(body)", message: "must be a JSON object" }],
      });
    }
    for (const [key, value] of Object.entries(body)) put(key, value);
  }
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(query)) put(key, value);
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const name of pathParams(entry.rest.path)) put(name, params[name]);
  for (const [header, field] of Object.entries(entry.rest.headers ?? {})) put(field, request.headers[header]);
  return input;
}

/**
 * The success status of a route's answer: fixed, for a PUT 201 when it created the resource, for a
 * write with a dry run 200 when it was one (its answer says `dry_run: true`).
 */
function statusOf(status: RestRoute["status"], result: unknown): number {
  if (status === "201 or 200 for a dry run")
    return typeof result === "object" && result !== null && "dry_run" in result && result.dry_run === true ? 200 : 201;
  if (status !== "201 or 200") return status ?? 200;
  const created =
    typeof result === "object" && result !== null && "created_at" in result && "updated_at" in result
      ? result
      : undefined;
  return created &&
    created.created_at instanceof Date &&
    created.updated_at instanceof Date &&
    created.created_at.getTime() === created.updated_at.getTime()
    ? 201
    : 200;
}

/** The chunks of an iterator whose first result was already read (to answer a refusal before the status). */
async function* resumed(first: IteratorResult<unknown>, rest: AsyncIterator<unknown>): AsyncGenerator<string> {
  for (let next = first; !next.done; next = await rest.next()) yield String(next.value);
}

/**
 * A route whose answer a twin procedure writes as text chunks (`meta.rest.csv.stream`,
 * docs/reports.md#streaming): JSON or CSV as Accept asks, sent as the chunks come, with backpressure
 * (a slow reader pauses the cursor). The first chunk is awaited before the status: the twin's
 * checks (a provider of another clinic: 404) still answer an error.
 */
async function sendStream(
  reply: FastifyReply,
  request: FastifyRequest,
  twin: (input: unknown) => Promise<unknown>,
  input: Record<string, unknown>,
  csv: NonNullable<RestRoute["csv"]>,
): Promise<FastifyReply> {
  const asCsv = wantsCsv(request.headers.accept, csv.preferred);
  const chunks = await twin({ ...input, format: asCsv ? "csv" : "json" });
  if (typeof chunks !== "object" || chunks === null || !(Symbol.asyncIterator in chunks))
    throw new Error("a stream twin must answer an async iterable of text");
  const iterator = (chunks as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const first = await iterator.next();
  reply.code(200).header("vary", "Accept");
  if (asCsv)
    reply
      .type(csvContentType)
      .header("content-disposition", `attachment; filename="${csvFilenameOf(csv.filename, input)}"`);
  else reply.type("application/json; charset=utf-8");
  return reply.send(Readable.from(resumed(first, iterator), { objectMode: false }));
}

export interface RestOptions {
  router: AnyRouter;
  createContext: (request: FastifyRequest, reply: FastifyReply) => Promise<Context>;
  /** The cached availability answer of V1/O3 without the procedure, when it can (docs/performance.md#availability). */
  fastAvailability?: (
    request: FastifyRequest,
    kind: "member" | "online",
  ) => Promise<FastAvailabilityAnswer | undefined>;
}

/** V1, O3 and next-free answers may be cached by the caller, but revalidated every time (contract §17). */
const availabilityCacheControl = "private, no-cache";

/** Maps every procedure with `meta.rest` to its /v1 route. Errors go to the app's error handler. */
export const restAdapter = fp(
  (app: FastifyInstance, options: RestOptions, done: (error?: Error) => void) => {
    const createCaller = createCallerFactory(options.router);
    for (const entry of restRoutes(options.router)) {
      const csv = entry.rest.csv;
      const csvColumns = csv ? csvColumnsOf(entry.output, csv, entry.procedure) : undefined;
      app.route({
        method: entry.rest.method,
        url: entry.rest.path,
        handler: async (request, reply) => {
          const fast = entry.rest.fastAvailability;
          if (fast && options.fastAvailability) {
            const answer = await options.fastAvailability(request, fast);
            if (answer) {
              reply.header("cache-control", availabilityCacheControl).header("etag", answer.etag);
              if (answer.status === 304) return reply.code(304).send();
              return reply.code(200).type("application/json; charset=utf-8").send(answer.body);
            }
          }
          const ctx = await options.createContext(request, reply);
          const caller = createCaller(ctx) as unknown as Caller;
          const input = restInput(entry, request);
          if (csv?.stream) return sendStream(reply, request, procedureAt(caller, csv.stream), input, csv);
          const result = await procedureAt(caller, entry.procedure)(input);
          if (fast || entry.rest.revalidate) {
            // Not from the fast path (a miss, or an answer it does not keep): the tag is the body's own hash.
            const body = JSON.stringify(result);
            const etag = etagOf(body);
            reply.header("cache-control", availabilityCacheControl).header("etag", etag);
            if (matchesEtag(request.headers["if-none-match"], etag)) return reply.code(304).send();
            return reply.code(200).type("application/json; charset=utf-8").send(body);
          }
          if (csv && csvColumns) {
            // One URL, two representations (docs/reports.md#csv): caches must key on Accept.
            reply.header("vary", "Accept");
            if (wantsCsv(request.headers.accept, csv.preferred))
              return reply
                .code(200)
                .type(csvContentType)
                .header("content-disposition", `attachment; filename="${csvFilenameOf(csv.filename, input)}"`)
                .send(toCsv(csvRowsOf(result, csv), csvColumns));
          }
          if (entry.rest.fhir) {
            // One URL, two representations (docs/patient-data.md#the-fhir-form): caches must key on Accept.
            reply.header("vary", "Accept");
            if (wantsFhir(request.headers.accept))
              return sendFhir(
                reply,
                200,
                fhirRepresentations[entry.rest.fhir](result, fhirBaseOf(`${request.protocol}://${request.host}`)),
              );
          }
          const status = statusOf(entry.rest.status, result);
          if (status === 204) return reply.code(204).send();
          if (entry.rest.contentType) return reply.code(status).type(entry.rest.contentType).send(String(result));
          return reply.code(status).send(result);
        },
      });
    }
    done();
  },
  { name: "rest-adapter" },
);
