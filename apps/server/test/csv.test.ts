// The hand-written CSV writer (src/csv.ts, docs/reports.md#csv): the same bytes as csv-stringify
// with the options it replaced, and values that parse back (csv-parse) as written.
import fc from "fast-check";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { describe, expect, it } from "vitest";
import { defused, toCsv } from "../src/csv.ts";

const columns = ["a", "b", "c", "d"];
const text = fc.string({
  unit: fc.constantFrom("a", "b", ",", '"', "\r", "\n", "\t", "=", "+", "-", "@", " ", "é", "'"),
});
const value = fc.oneof(
  text,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.date({ noInvalidDate: true }),
);
const rows = fc.array(fc.record({ a: value, b: value, c: value, d: value }), { maxLength: 20 });

/** What the previous writer gave (csv-stringify, the options of main before this change). */
function reference(input: readonly Record<string, unknown>[]): string {
  return stringify([...input], {
    header: true,
    columns,
    record_delimiter: "\r\n",
    quoted_match: /[\r\n]/,
    cast: {
      string: (v) => defused(v),
      boolean: (v) => String(v),
      number: (v) => String(v),
      date: (v) => v.toISOString(),
      object: (v) => defused(JSON.stringify(v)),
    },
  });
}

/** A value as the CSV field should read back. */
function expected(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return defused(v);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  throw new Error(`no CSV form expected for ${typeof v}`);
}

describe("toCsv", () => {
  it("writes what csv-stringify wrote", () => {
    fc.assert(
      fc.property(rows, (input) => {
        expect(toCsv(input, columns)).toBe(reference(input));
      }),
      { numRuns: 500 },
    );
  });

  it("parses back to the values, CRLF records, formulas defused, numbers left alone", () => {
    fc.assert(
      fc.property(rows, (input) => {
        const csv = toCsv(input, columns);
        expect(csv.endsWith("\r\n")).toBe(true);
        const parsed: string[][] = parse(csv, { record_delimiter: "\r\n", relax_column_count: false });
        expect(parsed[0]).toEqual(columns);
        expect(parsed.slice(1)).toEqual(input.map((row) => columns.map((c) => expected(row[c as keyof typeof row]))));
      }),
      { numRuns: 500 },
    );
  });

  it("quotes a bare LF and keeps a negative number", () => {
    expect(toCsv([{ a: "x\ny", b: -1, c: "-1", d: null }], columns)).toBe('a,b,c,d\r\n"x\ny",-1,\'-1,\r\n');
  });
});
