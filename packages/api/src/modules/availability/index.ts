// Availability: slots computed by the pure engine, a version-checked cache, invalidation (docs/availability.md).
export * from "./cache.ts";
export * from "./compute.ts";
export * from "./versions.ts";
export * from "./range.ts";
export * from "./explain.ts";
export * from "./answer.ts";
