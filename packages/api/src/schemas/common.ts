import { z } from "zod";
import { DomainError } from "../errors.ts";

/** A UUID in any case on input, lower-case canonical after parsing. */
export const uuid = z.uuid().transform((s) => s.toLowerCase());

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
      .pipe(z.iso.datetime({ offset: true, message: "must be an ISO 8601 instant with a UTC offset, e.g. 2028-01-03T10:00:00Z" }))
      .transform((s) => new Date(s)),
  ],
  { error: "must be an ISO 8601 instant with a UTC offset, e.g. 2028-01-03T10:00:00Z" },
);

/** Instants in responses: Date objects, serialised as ISO 8601 UTC with milliseconds. */
export const instantOutput = z.date();

const timeOfDayPattern = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;
/** `"HH:MM"` 24-hour time of day; `"24:00"` allowed (closing at midnight). Parsed to minutes. */
export const timeOfDay = z
  .string()
  .regex(timeOfDayPattern, 'must be a time of day "HH:MM" (00:00-24:00)')
  .transform((s) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5)));

/** Minutes of day → `"HH:MM"`. */
export function formatMinutes(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
}

/** A calendar date `YYYY-MM-DD` that exists. */
export const localDate = z.iso.date({ message: "must be a date YYYY-MM-DD" });

/** ISO weekday, Monday = 1 … Sunday = 7 (query strings are coerced). */
export const weekday = z.coerce.number<number | string>().int().min(1).max(7);

/** An IANA time zone name known to this runtime. */
export const timeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(
    (tz) => {
      try {
        new Intl.DateTimeFormat("en-US", { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    },
    { message: "must be an IANA time zone such as Europe/Berlin" },
  );

/** E.164 phone number. */
export const phoneE164 = z.string().regex(/^\+[1-9]\d{1,14}$/, "must be an E.164 phone number such as +4930123456");

const pricePattern = /^\d{1,8}(?:\.\d{1,2})?$/;
/**
 * Money: a JSON number or a decimal string, at most 10 digits with 2 after the point, not
 * negative. Normalised to a string with exactly two decimals.
 */
export const price = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
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

/** Pagination input of lists that can grow without bound. */
export const pageInput = {
  limit: z.coerce.number<number | string>().int().min(1).max(500).default(100),
  cursor: z.string().max(500).optional(),
};

/** Opaque keyset cursor: the sort key of the last row returned. */
export function encodeCursor(values: readonly (string | number | null)[]): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

/** Decodes a cursor produced by `encodeCursor`, with the expected number of string keys. */
export function decodeCursor(cursor: string, arity: number): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== arity || !parsed.every((v) => typeof v === "string")) {
    throw new DomainError("VALIDATION_FAILED", "cursor: not a cursor returned by this list", {
      errors: [{ path: "cursor", message: "not a cursor returned by this list" }],
    });
  }
  return parsed;
}

/** Splits a page of `limit + 1` rows into the page and the cursor of its last row. */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => string[]): { items: T[]; next_cursor: string | null } {
  if (rows.length <= limit) return { items: rows, next_cursor: null };
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: last ? encodeCursor(keyOf(last)) : null };
}

export const nextCursorOutput = z.string().nullable();
