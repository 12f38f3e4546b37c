// Calendar feeds: a provider's or the clinic's appointments as an iCalendar subscription (docs/events.md#calendar-feeds).
export * from "./calendarFeeds.ts";
