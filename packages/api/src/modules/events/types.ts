/** What happened (docs/events.md#events): the types recorded in the feed. */
export const eventTypes = [
  "appointment.booked",
  "appointment.canceled",
  "appointment.rescheduled",
  "appointment.status_changed",
  "appointment.reminder",
  "waitlist.offered",
  "provider.status_changed",
  "service.created",
  "service.updated",
  "service.deleted",
  "calendar.sync_failed",
  "calendar.recovered",
  "patient.erased",
] as const;
export type EventType = (typeof eventTypes)[number];
