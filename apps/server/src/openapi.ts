import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { AnyRouter } from "@trpc/server";
import { z, type ZodType } from "zod";
import { DomainError, type DomainCode } from "@clinic/api";
import { type RouteEntry, pathParams, restRoutes } from "./routes.ts";

type JsonSchema = Record<string, unknown>;

const statusOf = (code: DomainCode) => getHTTPStatusCodeFromError(new DomainError(code, ""));

function toSchema(schema: ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    unrepresentable: "any",
    override: (ctx) => {
      const def = ctx.zodSchema._zod.def;
      if (def.type === "date") {
        ctx.jsonSchema.type = "string";
        ctx.jsonSchema.format = "date-time";
      }
    },
  });
  delete json.$schema;
  return json;
}

function objectShape(schema: ZodType | undefined): Record<string, ZodType> {
  if (schema && schema instanceof z.ZodObject) return schema.shape;
  return {};
}

const isOptional = (field: ZodType) => field.safeParse(undefined).success;

/** Error codes every authenticated route may answer, with the route's own ones. */
function errorCodesOf(entry: RouteEntry): DomainCode[] {
  const common: DomainCode[] = [
    "VALIDATION_FAILED",
    "UNAUTHENTICATED",
    "FORBIDDEN",
    "RATE_LIMITED",
    "UNAVAILABLE",
    "INTERNAL",
  ];
  const clinicScoped = entry.rest.path.includes(":") || Object.hasOwn(objectShape(entry.input), "clinic_id");
  return [
    ...new Set([...common, ...(clinicScoped ? (["NOT_FOUND"] as DomainCode[]) : []), ...(entry.rest.errors ?? [])]),
  ];
}

function operation(entry: RouteEntry): JsonSchema {
  const shape = objectShape(entry.input);
  const inPath = new Set(pathParams(entry.rest.path));
  const headerFields = new Map(Object.entries(entry.rest.headers ?? {}).map(([header, field]) => [field, header]));
  const inQuery = new Set(
    entry.rest.method === "GET" ? Object.keys(shape).filter((k) => !inPath.has(k)) : (entry.rest.query ?? []),
  );
  const parameters: JsonSchema[] = [];
  const bodyProperties: Record<string, JsonSchema> = {};
  const bodyRequired: string[] = [];
  for (const [name, field] of Object.entries(shape)) {
    const schema = toSchema(field, "input");
    if (inPath.has(name)) parameters.push({ name, in: "path", required: true, schema });
    else if (headerFields.has(name))
      parameters.push({ name: headerFields.get(name), in: "header", required: false, schema });
    else if (inQuery.has(name)) parameters.push({ name, in: "query", required: !isOptional(field), schema });
    else {
      bodyProperties[name] = schema;
      if (!isOptional(field)) bodyRequired.push(name);
    }
  }
  const responses: Record<string, JsonSchema> = {};
  const contentType = entry.rest.contentType ?? "application/json";
  const csv = entry.rest.csv;
  // A route that can answer CSV (docs/reports.md#csv) lists both types, the one it prefers first.
  const csvContent = csv
    ? {
        "text/csv": {
          schema: { type: "string", description: `One line per element of \`${csv.rows}\`, a header row first` },
        },
      }
    : undefined;
  // A route that can answer FHIR (docs/patient-data.md#the-fhir-form) lists it after JSON.
  const fhirContent = entry.rest.fhir
    ? {
        "application/fhir+json": {
          schema: { type: "object", description: "A FHIR R4 Bundle (type collection), chosen by Accept" },
        },
      }
    : undefined;
  const success = (description: string): JsonSchema =>
    entry.output
      ? {
          description,
          content:
            csvContent && csv?.preferred === "csv"
              ? { ...csvContent, [contentType]: { schema: toSchema(entry.output, "output") } }
              : { [contentType]: { schema: toSchema(entry.output, "output") }, ...csvContent, ...fhirContent },
        }
      : { description: "No content" };
  const status = entry.rest.status ?? 200;
  if (status === "201 or 200") {
    responses["201"] = success("Created");
    responses["200"] = success("Replaced");
  } else if (status === "201 or 200 for a dry run") {
    responses["201"] = success("Created");
    responses["200"] = success("A dry run: nothing written");
  } else {
    responses[String(status)] = status === 204 ? { description: "No content" } : success("Success");
  }
  const byStatus = new Map<number, DomainCode[]>();
  for (const code of errorCodesOf(entry)) {
    const s = statusOf(code);
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  for (const [s, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[String(s)] = {
      description: `Problem: ${codes.join(", ")}`,
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  return {
    operationId: entry.procedure,
    summary: entry.rest.summary,
    tags: [...entry.rest.tags],
    parameters,
    ...(Object.keys(bodyProperties).length > 0
      ? {
          requestBody: {
            required: bodyRequired.length > 0,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: bodyProperties,
                  required: bodyRequired,
                  additionalProperties: false,
                },
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every /v1 route, generated from the procedures' zod schemas. */
export function buildOpenApiDocument(router: AnyRouter, options: { version: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const entry of restRoutes(router)) {
    const path = entry.rest.path.replace(/:([a-z_]+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][entry.rest.method.toLowerCase()] = operation(entry);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Clinic Scheduling Service",
      version: options.version,
      description:
        "Multi-clinic appointment scheduling. Authenticate with the `access_token` cookie (or `Authorization: Bearer`). Errors are RFC 9457 problem+json with a stable `code`.",
    },
    servers: [{ url: "/" }],
    security: [{ cookieAuth: [] }, { bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        cookieAuth: { type: "apiKey", in: "cookie", name: "access_token" },
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
      schemas: {
        Problem: {
          type: "object",
          required: ["type", "title", "status", "code", "detail"],
          properties: {
            type: { type: "string", const: "about:blank" },
            title: { type: "string" },
            status: { type: "integer" },
            code: { type: "string" },
            detail: { type: "string" },
            errors: {
              type: "array",
              items: {
                type: "object",
                properties: { path: { type: "string" }, message: { type: "string" } },
                required: ["path", "message"],
              },
            },
          },
        },
      },
    },
  };
}
