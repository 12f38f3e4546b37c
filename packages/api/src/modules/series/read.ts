// A series as the database function clinic_series_json answers it (R1, R2, R3).
import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "@clinic/db";
import { notFound } from "../../errors.ts";
import { appointmentFromJson } from "../booking/index.ts";
import { type SeriesView, seriesOutput } from "./view.ts";

/** The series JSON of the database (instants as ISO text) as the API shows it. */
export function seriesFromJson(json: Record<string, unknown>): SeriesView {
  const occurrences = Array.isArray(json.occurrences) ? (json.occurrences as Record<string, unknown>[]) : [];
  const skipped = Array.isArray(json.skipped) ? (json.skipped as Record<string, unknown>[]) : [];
  return seriesOutput.parse({
    ...json,
    start: typeof json.start === "string" ? new Date(json.start) : json.start,
    created_at: typeof json.created_at === "string" ? new Date(json.created_at) : json.created_at,
    occurrences: occurrences.map(appointmentFromJson),
    skipped: skipped.map((s) => ({ ...s, start: typeof s.start === "string" ? new Date(s.start) : s.start })),
  });
}

/** A series of the clinic with its occurrences (R2); 404 for one of another clinic or none. */
export async function getSeries(db: Db, clinicId: string, id: string): Promise<SeriesView> {
  const [row] = rowsOf<{ series: unknown }>(
    await db.execute(sql`select clinic_series_json(${clinicId}::uuid, ${id}::uuid) as series`),
  );
  const json: unknown = typeof row?.series === "string" ? JSON.parse(row.series) : row?.series;
  if (json === null || typeof json !== "object") throw notFound("series");
  return seriesFromJson(json as Record<string, unknown>);
}
