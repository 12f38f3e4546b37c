// Availability: slots computed by the pure engine, a version-checked cache, invalidation (docs/availability.md).
export * from "./service.ts";
export * from "./schedule.ts";
export * from "./context.ts";
export * from "./versions.ts";
export * from "./cache.ts";
export * from "./cached.ts";
export * from "./range.ts";
export * from "./explain.ts";
export * from "./answer.ts";
export * from "./fast.ts";
