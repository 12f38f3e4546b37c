// Booking: appointments, booking with idempotency keys, rescheduling, cancelling, reminders (docs/availability.md#booking).
export * from "./appointments.ts";
export * from "./book.ts";
export * from "./cancel.ts";
export * from "./busy.ts";
export * from "./idempotency.ts";
export * from "./reschedule.ts";
export * from "./reminders.ts";
export * from "./status.ts";
export * from "./confirmation.ts";
export {
  WriteAttempts,
  appointmentFromJson,
  callClinicFunction,
  lostRace,
  resourcesWanted,
  scheduleOf,
} from "./clinicFunctions.ts";
