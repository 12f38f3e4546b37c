// The service catalog: services, assignment to providers, fuzzy search (docs/providers-services.md).
export * from "./search.ts";
export * from "./services.ts";
export * from "./view.ts";
