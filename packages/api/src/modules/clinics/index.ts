// Clinics: create, list, read, update (docs/architecture.md#clinics).
export * from "./clinics.ts";
