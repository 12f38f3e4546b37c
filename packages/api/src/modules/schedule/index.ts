// Schedules: weekly work hours and closures of a clinic or of one provider in it (docs/work-hours.md).
export * from "./closures.ts";
export * from "./owner.ts";
export * from "./view.ts";
export * from "./workHours.ts";
export * from "./dateOverrides.ts";
