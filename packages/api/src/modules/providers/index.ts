// Providers: the providers list, detail and lifecycle (docs/providers-services.md#provider-lifecycle).
export * from "./providers.ts";
