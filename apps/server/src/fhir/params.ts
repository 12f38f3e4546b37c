// Search parameters as the facade reads them (docs/fhir.md#what-is-served): every value a
// string from the query, comma lists split (FHIR's OR), each checked before it is used.
import { isUuid, parsePairId, referenceId } from "./ids.ts";
import { invalid } from "./input.ts";
import { serviceSystem } from "./mapping.ts";

export type Params = Record<string, string[]>;

/** The most values one parameter may have: each may cost a lookup (an id, a clinic). */
const maxValues = 100;

/** Every value of a parameter, comma lists split (FHIR's OR). */
export function valuesOf(params: Params, name: string): string[] {
  const values = (params[name] ?? []).flatMap((value) => value.split(","));
  if (values.length > maxValues) throw invalid(name, `at most ${maxValues} values`);
  return values;
}

export function single(params: Params, name: string): string | undefined {
  const values = params[name] ?? [];
  if (values.length > 1) throw invalid(name, "given more than once");
  return values[0];
}

export function booleanOf(params: Params, name: string): boolean | undefined {
  const value = single(params, name);
  if (value === undefined) return undefined;
  if (value !== "true" && value !== "false") throw invalid(name, "must be true or false");
  return value === "true";
}

/** A whole number parameter (`_count`, `_offset`) within 0–max. */
export function countOf(params: Params, name: string, fallback: number, max: number): number {
  const value = single(params, name);
  if (value === undefined) return fallback;
  if (!/^\d{1,16}$/.test(value) || Number(value) > max) throw invalid(name, `must be a whole number 0–${max}`);
  return Number(value);
}

/** The clinic ids of the `clinic` parameter (Organization ids). */
export function clinicIdsOf(params: Params): string[] {
  return valuesOf(params, "clinic").map((clinic) => {
    if (!isUuid(clinic)) throw invalid("clinic", "must be a clinic id (an Organization id)");
    return clinic;
  });
}

/** The clinics named by `Organization/{id}` or `Location/{id}` references. */
export function clinicsOfOrgRefs(params: Params, name: string, types: string[]): string[] {
  return valuesOf(params, name).map((value) => {
    const id = referenceId(value, types, name);
    if (!isUuid(id)) throw invalid(name, "not a clinic's id");
    return id;
  });
}

/** The (clinic, local id) pairs of references to pair-id resources. */
export function pairsOf(params: Params, name: string, types: string[]) {
  return valuesOf(params, name).map((value) => {
    const pair = parsePairId(referenceId(value, types, name));
    if (!pair) throw invalid(name, `not an id of this server: ${value.slice(0, 100)}`);
    return pair;
  });
}

/** A service named by a `service-type` token (`code` or `system|code`). */
export function serviceIdsOf(params: Params): string[] {
  return valuesOf(params, "service-type").map((token) => {
    const bar = token.indexOf("|");
    if (bar >= 0 && token.slice(0, bar) !== "" && token.slice(0, bar) !== serviceSystem) {
      throw invalid("service-type", `unknown code system; use ${serviceSystem}`);
    }
    const code = bar >= 0 ? token.slice(bar + 1) : token;
    if (!isUuid(code)) throw invalid("service-type", "must be a service id");
    return code;
  });
}

/** A date parameter's bounds: ge/gt → from, lt/le → to; values are instants with an offset. */
export function instantBounds(params: Params, name: string): { from?: Date; to?: Date } {
  const bounds: { from?: Date; to?: Date } = {};
  for (const value of params[name] ?? []) {
    const match = /^(ge|gt|lt|le)(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))$/.exec(
      value,
    );
    const instant = match?.[2] ? new Date(match[2]) : undefined;
    if (!match || !instant || Number.isNaN(instant.getTime()) || !inServedYears(instant)) {
      throw invalid(name, "must be ge, gt, lt or le followed by an instant with a time zone offset");
    }
    if (match[1] === "ge" || match[1] === "gt") bounds.from = instant;
    else bounds.to = match[1] === "le" ? new Date(instant.getTime() + 1) : instant;
  }
  return bounds;
}

/**
 * An instant in the years 1000–9999: what every layer below reads and writes alike (PostgreSQL
 * has no year 0, the wire's instants have four digits).
 */
export function inServedYears(at: Date): boolean {
  const year = at.getUTCFullYear();
  return year >= 1000 && year <= 9999;
}
