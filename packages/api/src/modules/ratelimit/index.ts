// Rate limits that hold across server processes (docs/patients.md#rate-limit).
export * from "./counters.ts";
