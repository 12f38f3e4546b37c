// Events out: the gap-free event feed, webhooks and their deliveries (docs/events.md).
export * from "./calendarFeeds.ts";
export * from "./record.ts";
export * from "./types.ts";
export * from "./feed.ts";
