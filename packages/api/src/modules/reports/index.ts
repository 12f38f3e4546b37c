// Reports (CONTRACT §20, docs/reports.md): utilization (RP1) and the appointment list (RP2), aggregated in SQL;
// available minutes from the slot engine's open time.
export * from "./view.ts";
export * from "./range.ts";
export * from "./schedule.ts";
export * from "./utilization.ts";
export * from "./appointments.ts";
