export * from "./client.ts";
export * from "./errors.ts";
export * from "./migrate.ts";
export * from "./schema/index.ts";
export * from "./health.ts";
export * from "./citus.ts";
export { upsertStamp } from "./schema/columns.ts";
