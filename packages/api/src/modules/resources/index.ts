// Resources: rooms and equipment a service needs, and their closures (CONTRACT §14 Q1–Q5, docs/resources.md).
export * from "./closures.ts";
export * from "./resources.ts";
export * from "./view.ts";
