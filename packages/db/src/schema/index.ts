export * from "./appointments.ts";
export * from "./clinics.ts";
export * from "./schedule.ts";
export * from "./services.ts";
export * from "./users.ts";
export * from "./events.ts";
export * from "./messages.ts";
export * from "./resources.ts";
