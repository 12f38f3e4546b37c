// Keyset pagination for every list that can grow (docs/api-conventions.md#lists): the input
// fields, the opaque cursor, its validation (a cursor this list did not issue is a 400, never a
// database cast error), the "after this row" condition and the page split, written once.
import { type AnyColumn, type SQL, asc, desc, sql } from "drizzle-orm";
import { z } from "zod";
import { validationFailed } from "./errors.ts";

/** `limit` (1–500, default 100) and `cursor` of a list's input. */
export const pageInput = {
  limit: z.coerce.number<number | string>().int().min(1).max(500).default(100),
  cursor: z.string().max(500).optional(),
};

/** `next_cursor` of a list's output: null on the last page. */
export const nextCursorOutput = z.string().nullable();

/** How a sort key travels in a cursor and is compared in SQL. */
type KeyKind = "text" | "uuid" | "instant";

/** One column of a list's sort key, and how to read it off a row. */
export interface SortKey<Row> {
  column: AnyColumn;
  kind: KeyKind;
  of: (row: Row) => string | Date;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const badCursor = () => validationFailed("cursor", "not a cursor returned by this list");

/** A cursor's text back to the typed key value, or a 400 when it cannot be one. */
function decodeValue(kind: KeyKind, text: unknown): SQL {
  if (typeof text !== "string") throw badCursor();
  switch (kind) {
    case "text":
      return sql`${text}::text`;
    case "uuid":
      if (!uuidPattern.test(text)) throw badCursor();
      return sql`${text}::uuid`;
    case "instant": {
      const at = new Date(text);
      if (Number.isNaN(at.getTime()) || at.toISOString() !== text) throw badCursor();
      return sql`${text}::timestamptz`;
    }
  }
}

export interface Keyset<Row> {
  /** The list's ORDER BY. */
  readonly orderBy: SQL[];
  /** The condition "after the row the cursor names", or undefined without a cursor; 400 for a bad one. */
  after(cursor: string | undefined): SQL | undefined;
  /** The cursor's key values as typed SQL values (for a list read from more than one table); 400 for a bad one. */
  values(cursor: string): SQL[];
  /** A page of `limit + 1` rows (as queried) split into the page and the next cursor. */
  page(rows: Row[], limit: number): { items: Row[]; next_cursor: string | null };
}

/**
 * A keyset over `keys` (the last one unique, e.g. the id), all ascending or all descending. The
 * condition is a row comparison `(a, b) > ($1, $2)`, which PostgreSQL answers from an index on
 * the same columns. Query `limit + 1` rows and hand them to `page`.
 */
export function keyset<Row>(direction: "asc" | "desc", ...keys: SortKey<Row>[]): Keyset<Row> {
  const columns = sql.join(
    keys.map((k) => sql`${k.column}`),
    sql`, `,
  );
  const comparison = direction === "asc" ? sql`>` : sql`<`;
  const valuesOf = (cursor: string): SQL[] => {
    let values: unknown;
    try {
      values = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    } catch {
      throw badCursor();
    }
    if (!Array.isArray(values) || values.length !== keys.length) throw badCursor();
    return keys.map((k, i) => decodeValue(k.kind, values[i]));
  };
  return {
    orderBy: keys.map((k) => (direction === "asc" ? asc(k.column) : desc(k.column))),
    values: valuesOf,
    after(cursor) {
      if (cursor === undefined) return undefined;
      return sql`(${columns}) ${comparison} (${sql.join(valuesOf(cursor), sql`, `)})`;
    },
    page(rows, limit) {
      if (rows.length <= limit) return { items: rows, next_cursor: null };
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      if (last === undefined) return { items, next_cursor: null };
      const values = keys.map((k) => {
        const value = k.of(last);
        return value instanceof Date ? value.toISOString() : value;
      });
      return { items, next_cursor: Buffer.from(JSON.stringify(values)).toString("base64url") };
    },
  };
}
