export * from "./auth.ts";
export * from "./availability/cache.ts";
export * from "./availability/versions.ts";
export * from "./context.ts";
export * from "./errors.ts";
export { appRouter, type AppRouter } from "./router/index.ts";
export { createCallerFactory, type Meta, type RestRoute } from "./trpc.ts";
