// The durable job queue (pg-boss) on the service's own database (docs/events.md#jobs).
export * from "./queue.ts";
