// Series (courses of treatment, CONTRACT §14): an RRULE's occurrences booked in one transaction, read and cancelled together (docs/series.md).
export * from "./view.ts";
export * from "./book.ts";
export * from "./read.ts";
export * from "./cancel.ts";
