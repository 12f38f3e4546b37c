// Waitlist: entries (WL1–WL4), the matcher that offers freed slots as holds, declining an offer (L5), and the next free time (docs/waitlist.md).
export * from "./entries.ts";
export * from "./matcher.ts";
export * from "./nextFree.ts";
