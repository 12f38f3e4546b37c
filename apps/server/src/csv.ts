// CSV answers of routes whose `meta.rest.csv` says they can give one (CONTRACT §20 reports,
// docs/reports.md#csv): negotiated on Accept, written by toCsv below (RFC 4180: fields with a
// comma, quote or line break quoted, quotes doubled, CRLF line ends), a header row of the row
// schema's field names, UTF-8, and no formula injection.
import { z, type ZodType } from "zod";
import type { RestRoute } from "@clinic/api";

type CsvMeta = NonNullable<RestRoute["csv"]>;

export const csvContentType = "text/csv; charset=utf-8; header=present";

/** The q of the most specific media range of `accept` that matches `type`/`subtype` (0 when none does). */
function qualityOf(accept: readonly { range: string; q: number }[], type: string, subtype: string): number {
  let best = -1;
  let q = 0;
  for (const entry of accept) {
    const specificity =
      entry.range === `${type}/${subtype}` ? 2 : entry.range === `${type}/*` ? 1 : entry.range === "*/*" ? 0 : -1;
    if (specificity > best) {
      best = specificity;
      q = entry.q;
    }
  }
  return q;
}

/**
 * Whether the answer is CSV: Accept (RFC 9110 §12.5.1) rates text/csv above application/json, or
 * rates them equally (both unnamed, `*\/*`, no Accept at all) and the route prefers CSV.
 */
export function wantsCsv(accept: string | undefined, preferred: CsvMeta["preferred"]): boolean {
  if (!accept) return preferred === "csv";
  const ranges = accept.split(",").flatMap((part) => {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!range) return [];
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    return [{ range, q: Number.isFinite(q) ? q : 0 }];
  });
  const csv = qualityOf(ranges, "text", "csv");
  const json = qualityOf(ranges, "application", "json");
  return csv === json ? preferred === "csv" : csv > json;
}

/** The CSV columns of a route: the fields of its answer's row schema, in order (the header row). */
export function csvColumnsOf(output: ZodType | undefined, meta: CsvMeta, procedure: string): string[] {
  const rows = output instanceof z.ZodObject ? (output.shape as Record<string, ZodType>)[meta.rows] : undefined;
  const row = rows instanceof z.ZodArray ? (rows.element as ZodType) : undefined;
  if (!(row instanceof z.ZodObject)) throw new Error(`${procedure}: meta.rest.csv.rows must name an array of objects`);
  return Object.keys(row.shape);
}

/** The attachment's file name: `{field}` replaced by the input's value, anything but [A-Za-z0-9._-] by `_`. */
export function csvFilenameOf(template: string, input: Record<string, unknown>): string {
  return template
    .replace(/\{([a-z_]+)\}/g, (_, field: string) => {
      const value = input[field];
      return typeof value === "string" || typeof value === "number" ? String(value) : "";
    })
    .replace(/[^A-Za-z0-9._-]/g, "_");
}

/**
 * A text a spreadsheet would run as a formula (it begins with `=`, `+`, `-` or `@`, or with a tab
 * or carriage return, which some spreadsheets skip before reading one) is prefixed with `'`
 * (OWASP "CSV injection"). Only texts: numbers, booleans and instants are written as in JSON, so a
 * negative number stays a number.
 */
export function defused(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** A field that must be quoted (RFC 4180 §2.6): a comma, a quote, or a line break (CR or LF alone too). */
const needsQuotes = /[",\r\n]/;
const quotes = /"/g;

/** One value as a CSV field: texts defused, instants in ISO 8601, numbers and booleans as in JSON. */
function fieldOf(value: unknown): string {
  let text: string;
  switch (typeof value) {
    case "string":
      text = defused(value);
      break;
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "object":
      if (value === null) return "";
      text = value instanceof Date ? value.toISOString() : defused(JSON.stringify(value));
      break;
    default:
      return "";
  }
  return needsQuotes.test(text) ? `"${text.replace(quotes, '""')}"` : text;
}

/**
 * The rows as CSV, header row first; null and absent values are empty fields. Hand-written rather
 * than csv-stringify (docs/reports.md#csv, docs/performance.md#reports): the same bytes, and
 * faster on RP2's 100,000 rows (bench/csvWriters.ts); test/csv.test.ts checks it against
 * csv-stringify and parses it back with csv-parse.
 */
export function toCsv(rows: readonly unknown[], columns: readonly string[]): string {
  const lines: string[] = [columns.map(fieldOf).join(",")];
  for (const row of rows) {
    const record = (typeof row === "object" && row !== null ? row : {}) as Record<string, unknown>;
    let line = "";
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i] as string;
      line += (i === 0 ? "" : ",") + fieldOf(record[column]);
    }
    lines.push(line);
  }
  return lines.join("\r\n") + "\r\n";
}

/** The array of rows of a route's answer. */
export function csvRowsOf(result: unknown, meta: CsvMeta): unknown[] {
  const rows =
    typeof result === "object" && result !== null ? (result as Record<string, unknown>)[meta.rows] : undefined;
  return Array.isArray(rows) ? rows : [];
}
