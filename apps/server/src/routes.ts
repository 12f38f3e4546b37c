import type { AnyRouter } from "@trpc/server";
import type { ZodType } from "zod";
import type { Meta, RestRoute } from "@clinic/api";

/** One REST route derived from a procedure's `meta.rest`. */
export interface RouteEntry {
  /** Procedure path in the router, e.g. `clinics.create`. */
  procedure: string;
  rest: RestRoute;
  input: ZodType | undefined;
  output: ZodType | undefined;
}

interface ProcedureDefShape {
  meta?: Meta;
  inputs?: unknown[];
  output?: unknown;
}

function isZod(value: unknown): value is ZodType {
  return typeof value === "object" && value !== null && "safeParse" in value && typeof value.safeParse === "function";
}

/** The route table: every procedure that declares `meta.rest`, in declaration order. */
export function restRoutes(router: AnyRouter): RouteEntry[] {
  const procedures = router._def.procedures as Record<string, { _def: ProcedureDefShape }>;
  const entries: RouteEntry[] = [];
  for (const [procedure, value] of Object.entries(procedures)) {
    const def = value._def;
    const rest = def.meta?.rest;
    if (!rest) continue;
    const input = def.inputs?.[0];
    entries.push({
      procedure,
      rest,
      input: isZod(input) ? input : undefined,
      output: isZod(def.output) ? def.output : undefined,
    });
  }
  return entries;
}

/** Names of the `:params` of a path. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([a-z_]+)/g)].flatMap((m) => (m[1] ? [m[1]] : []));
}
