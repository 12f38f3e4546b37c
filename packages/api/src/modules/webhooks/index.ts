// Webhooks: subscriptions, signed deliveries read from the event feed with retries, outbound
// safety (docs/events.md#webhooks). A booking writes nothing for them: each webhook follows its
// clinic's feed from its own cursor (feed.ts).
export * from "./deliver.ts";
export * from "./feed.ts";
export * from "./outbound.ts";
export * from "./webhooks.ts";
