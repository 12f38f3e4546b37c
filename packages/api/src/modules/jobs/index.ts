// The job queue on the service's own database: one table, consumed where it is written (docs/jobs.md).
export * from "./queue.ts";
