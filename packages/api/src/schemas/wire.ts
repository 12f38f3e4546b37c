// The wire format's building blocks (docs/api-conventions.md): ids, instants, times of day, dates,
// money, phone numbers and time zones, as zod schemas that every router shares.
import { z } from "zod";
import { canonicalTimeZone } from "../domain/timezone.ts";

/** A UUID in any case on input, lower-case canonical after parsing. */
export const uuid = z.uuid().transform((s) => s.toLowerCase());

const instantMessage = "must be an ISO 8601 instant with a UTC offset, e.g. 2028-01-03T10:00:00Z";

/**
 * An instant: an ISO 8601 string with an explicit UTC offset (`Z` or `+01:00`; a local time
 * without offset is refused), or a Date from the typed client (superjson keeps it a Date).
 */
export const instantInput = z.union(
  [
    z.date(),
    z
      .string()
      // An unencoded "+01:00" in a query string arrives as " 01:00" ("+" means space there).
      .transform((value) => value.replace(/^(\S+T\S+) (\d\d:?\d\d)$/, "$1+$2"))
      .pipe(z.iso.datetime({ offset: true, message: instantMessage }))
      .transform((s) => new Date(s)),
  ],
  { error: instantMessage },
);

/** Instants in responses: Date objects, serialised as ISO 8601 UTC with milliseconds. */
export const instantOutput = z.date();

const timeOfDayPattern = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;
/** `"HH:MM"` 24-hour time of day; `"24:00"` allowed (closing at midnight). Parsed to minutes. */
export const timeOfDay = z
  .string()
  .regex(timeOfDayPattern, 'must be a time of day "HH:MM" (00:00-24:00)')
  .transform((s) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5)));

/** A calendar date `YYYY-MM-DD` that exists. */
export const localDate = z.iso.date({ message: "must be a date YYYY-MM-DD" });

/** ISO weekday, Monday = 1 … Sunday = 7 (query strings are coerced). */
export const weekday = z.coerce.number<number | string>().int().min(1).max(7);

/**
 * An IANA time zone name with DST rules (UTC-offset names such as "+05:30" are refused), stored in
 * its canonical spelling ("europe/berlin" → "Europe/Berlin").
 */
export const timeZone = z
  .string()
  .min(1)
  .max(64)
  .transform((tz, ctx) => {
    const canonical = canonicalTimeZone(tz);
    if (canonical === undefined) {
      ctx.addIssue({ code: "custom", message: "must be an IANA time zone such as Europe/Berlin" });
      return z.NEVER;
    }
    return canonical;
  });

/** E.164 phone number. */
export const phoneE164 = z.string().regex(/^\+[1-9]\d{1,14}$/, "must be an E.164 phone number such as +4930123456");

const pricePattern = /^\d{1,8}(?:\.\d{1,2})?$/;
/**
 * Money: a JSON number or a decimal string, at most 10 digits with 2 after the point, not
 * negative. Normalised to a string with exactly two decimals.
 */
export const price = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value.trim();
  if (!pricePattern.test(text)) {
    ctx.addIssue({
      code: "custom",
      message: "must be a non-negative amount with at most 10 digits, 2 of them after the decimal point",
    });
    return z.NEVER;
  }
  const [whole = "0", fraction = ""] = text.split(".");
  return `${String(Number(whole))}.${fraction.padEnd(2, "0")}`;
});

/** Boolean in a query string ("true"/"false") or JSON. */
export const queryBoolean = z.union([z.boolean(), z.enum(["true", "false"]).transform((s) => s === "true")]);

/**
 * A list in a query string: one value, comma-separated values, or a repeated parameter (an
 * array); every value must pass `item` (else 400).
 */
export function queryList<T extends z.ZodType<string, string>>(item: T) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((value) =>
      (Array.isArray(value) ? value : [value])
        .flatMap((part) => part.split(","))
        .map((part) => part.trim())
        .filter((part) => part.length > 0),
    )
    .pipe(z.array(item));
}

/** The `if_updated_at` precondition of optimistic-concurrency writes (required by the write itself). */
export const ifUpdatedAt = instantInput.optional();

/** An `If-Match` header holding a record's `updated_at`, bare or as an entity tag (`"…"`, `W/"…"`). */
export const ifMatch = z.union(
  [
    z.date(),
    z
      .string()
      .transform((value) =>
        value
          .trim()
          .replace(/^W\//, "")
          .replace(/^"(.*)"$/, "$1"),
      )
      .pipe(z.iso.datetime({ offset: true, message: instantMessage }))
      .transform((s) => new Date(s)),
  ],
  { error: instantMessage },
);
