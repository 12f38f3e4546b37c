// Providers' own calendars (CONTRACT §18, docs/calendars.md): K1–K4, the sync that reads them as
// busy time, and write-back.
export * from "./calendars.ts";
export { calendarKeyOf } from "./secret.ts";
export { type CalendarSyncSettings, defaultCalendarLimits, runCalendarSync } from "./sync.ts";
export { type WriteBackJob, runCalendarWriteBack, writeBackIcs } from "./writeBack.ts";
