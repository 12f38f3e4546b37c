// Webhooks: subscriptions, signed deliveries with retries, outbound safety (docs/events.md#webhooks).
export * from "./deliver.ts";
export * from "./outbound.ts";
export * from "./webhooks.ts";
