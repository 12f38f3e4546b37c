// Events: the changes of a clinic recorded in their own transaction, and the gap-free feed of them (docs/events.md).
export * from "./record.ts";
export * from "./types.ts";
export * from "./feed.ts";
