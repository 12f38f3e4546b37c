// RP2 written by PostgreSQL and streamed (docs/reports.md#streaming): the REST answer, JSON and CSV,
// is the same as the row procedure's answer written by JSON.stringify and by toCsv, on thousands of
// rows (several cursor batches) with every status, null fields, awkward names, negative and
// fractional lead times and a DST change; its JSON rows satisfy the row schema; and a refusal is
// still a 4xx before any byte. A property: any patient name and e-mail PostgreSQL's writer puts in
// the CSV is what toCsv writes (apps/server/src/csv.ts, itself proven against csv-stringify and
// parsed back by csv-parse in test/csv.test.ts), and parses back to the value, defused.
import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addProvider, addService, clinicFixture } from "@clinic/api/testing";
import { toCsv } from "../src/csv.ts";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp({ now: () => new Date("2027-03-01T00:00:00Z") });

const awkward = [
  'Dr. "Quote", Jr.',
  "Line one\nline two",
  "Carriage\rreturn",
  '=HYPERLINK("http://evil.example","x")',
  "+Plus Person",
  "-Minus Person",
  "@At Person",
  "\tTabbed",
  "Zoë Ünal 日本 🦷",
  "Plain Name",
  "back\\slash",
];

/** Rows over three cursor batches: two providers, 35-minute steps through March and April 2026. */
const rowCount = 4600;

async function clinicWithManyAppointments() {
  const db = t.handle.db;
  const c = await clinicFixture(db, { timezone: "Europe/Berlin" });
  const first = await addProvider(db, c.clinicId, awkward[0] ?? "");
  const second = await addProvider(db, c.clinicId, "Ben, Koch");
  const service = await addService(db, c.clinicId, { name: '"Massage", deep' });
  await db.execute(sql`
    insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end,
      status, canceled_at, rescheduled_at, patient_name, patient_email, patient_phone_e164, created_at, updated_at)
    select ${c.clinicId}::uuid, ${service}::uuid,
      case when i % 2 = 0 then ${first.id}::uuid else ${second.id}::uuid end,
      at, at + interval '30 minutes', at, at + interval '30 minutes',
      (array['pending','booked','arrived','completed','no_show','canceled'])[1 + i % 6],
      case when i % 6 = 5 then at - (i % 50) * interval '7 minutes' end,
      case when i % 7 = 0 then at - interval '3 days' end,
      ${JSON.stringify(awkward)}::jsonb ->> (i % ${awkward.length}),
      case when i % 3 = 0 then null else 'p' || i || '@example.com' end,
      case when i % 4 = 0 then '+4930' || (100000 + i) end,
      at - (i % 500) * interval '17 minutes' + (i % 5) * interval '1 hour 13 minutes', now()
    from generate_series(0, ${rowCount - 1}) as i,
      lateral (select '2026-03-01T00:00:00Z'::timestamptz + (i / 2) * interval '35 minutes' as at) s`);
  return c;
}

const range = "from=2026-03-01&to=2026-04-30";

describe("RP2 streamed from PostgreSQL's text", () => {
  it("answers the row procedure's rows, as JSON and as CSV, byte for byte where the writers are ours", async () => {
    const c = await clinicWithManyAppointments();
    const { rows } = await c.asAdmin.reports.appointments({
      clinic_id: c.clinicId,
      from: "2026-03-01",
      to: "2026-04-30",
    });
    expect(rows).toHaveLength(rowCount);
    // The DST change (2026-03-29 02:00 → 03:00 in Berlin) is inside: local starts move by an hour.
    expect(rows.some((r) => r.start_local.startsWith("2026-03-29T03"))).toBe(true);
    expect(rows.some((r) => r.lead_time_hours < 0 && !Number.isInteger(r.lead_time_hours))).toBe(true);

    const url = `/v1/clinics/${c.clinicId}/reports/appointments?${range}`;
    const json = await request(t.app, {
      method: "GET",
      url,
      token: c.admin.token,
      headers: { accept: "application/json" },
    });
    expect(json.statusCode).toBe(200);
    expect(json.headers["content-type"]).toMatch(/^application\/json/);
    expect(json.json()).toEqual(JSON.parse(JSON.stringify({ rows })));
    // Byte for byte: keys in the row schema's order, numbers and escapes as JSON.stringify writes them.
    expect(json.body).toBe(JSON.stringify({ rows }));

    const csv = await request(t.app, { method: "GET", url, token: c.admin.token, headers: { accept: "text/csv" } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["content-disposition"]).toBe('attachment; filename="appointments_2026-03-01_2026-04-30.csv"');
    const columns = Object.keys(rows[0] ?? {});
    expect(csv.body).toBe(toCsv(rows, columns));
    // And a CSV reader gets the values back (the formula defused with a leading ').
    const parsed: Record<string, string>[] = parse(csv.body, { columns: true });
    expect(parsed).toHaveLength(rowCount);
    expect(parsed.map((r) => r.patient_name)).toEqual(
      rows.map((r) => (/^[=+\-@\t\r]/.test(r.patient_name) ? `'${r.patient_name}` : r.patient_name)),
    );
  });

  it("filters, an empty answer, and a provider of another clinic refused with 404 before any byte", async () => {
    const c = await clinicWithManyAppointments();
    const other = await clinicFixture(t.handle.db);
    const stranger = await addProvider(t.handle.db, other.clinicId, "Someone Else");
    const base = `/v1/clinics/${c.clinicId}/reports/appointments?${range}`;

    const canceled = await request(t.app, {
      method: "GET",
      url: `${base}&status=canceled`,
      token: c.admin.token,
      headers: { accept: "application/json" },
    });
    const expected = await c.asAdmin.reports.appointments({
      clinic_id: c.clinicId,
      from: "2026-03-01",
      to: "2026-04-30",
      status: "canceled",
    });
    expect(canceled.json()).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(expected.rows.length).toBeGreaterThan(0);

    const empty = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/reports/appointments?from=2025-01-01&to=2025-01-31`,
      token: c.admin.token,
    });
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toBe(`${Object.keys(expected.rows[0] ?? {}).join(",")}\r\n`);
    const emptyJson = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/reports/appointments?from=2025-01-01&to=2025-01-31`,
      token: c.admin.token,
      headers: { accept: "application/json" },
    });
    expect(emptyJson.json()).toEqual({ rows: [] });

    const foreign = await request(t.app, {
      method: "GET",
      url: `${base}&provider_id=${stranger.id}`,
      token: c.admin.token,
    });
    expect(foreign.statusCode).toBe(404);
    expect(problemOf(foreign).code).toBe("NOT_FOUND");
    const staff = await request(t.app, { method: "GET", url: base, token: c.staff.token });
    expect(staff.statusCode).toBe(403);
  });

  it("any text PostgreSQL writes as a CSV field is toCsv's field and parses back, and as JSON is JSON.stringify's (property)", async () => {
    const c = await clinicFixture(t.handle.db, { timezone: "Europe/Berlin" });
    const provider = await addProvider(t.handle.db, c.clinicId, "Prop Erty");
    const service = await addService(t.handle.db, c.clinicId, { name: "Property" });
    const text = fc.string({
      unit: fc.constantFrom(
        "a",
        ",",
        '"',
        "\r",
        "\n",
        "\t",
        "=",
        "+",
        "-",
        "@",
        " ",
        "é",
        "'",
        "\\",
        "日",
        "\u0001",
        "\u001f",
        "\u007f",
        "\u2028",
        "😀",
        "/",
      ),
      maxLength: 12,
    });
    let day = 0;
    await fc.assert(
      fc.asyncProperty(text, fc.option(text, { nil: null }), async (name, email) => {
        day += 1;
        // A day of its own per run: each run reads back only its own row.
        const at = new Date(Date.UTC(2026, 0, 1, 10) + day * 86_400_000).toISOString();
        const date = at.slice(0, 10);
        await t.handle.db.execute(sql`
          insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end,
            status, patient_name, patient_email, created_at, updated_at)
          values (${c.clinicId}::uuid, ${service}::uuid, ${provider.id}::uuid, ${at}::timestamptz,
            ${at}::timestamptz + interval '30 minutes', ${at}::timestamptz, ${at}::timestamptz + interval '30 minutes',
            'booked', ${name}, ${email}, ${at}::timestamptz, ${at}::timestamptz)`);
        const { rows } = await c.asAdmin.reports.appointments({
          clinic_id: c.clinicId,
          from: date,
          to: date,
        });
        const response = await request(t.app, {
          method: "GET",
          url: `/v1/clinics/${c.clinicId}/reports/appointments?from=${date}&to=${date}`,
          token: c.admin.token,
        });
        expect(response.body).toBe(toCsv(rows, Object.keys(rows[0] ?? {})));
        expect(rows).toHaveLength(1);
        // As JSON, the same row written by PostgreSQL is JSON.stringify's, byte for byte.
        const asJson = await request(t.app, {
          method: "GET",
          url: `/v1/clinics/${c.clinicId}/reports/appointments?from=${date}&to=${date}`,
          token: c.admin.token,
          headers: { accept: "application/json" },
        });
        expect(asJson.body).toBe(JSON.stringify({ rows }));
        const parsed: Record<string, string>[] = parse(response.body, { columns: true });
        const [last] = parsed;
        const defuse = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
        expect(last?.patient_name).toBe(defuse(name));
        expect(last?.patient_email).toBe(email === null ? "" : defuse(email));
      }),
      { numRuns: 60 },
    );
  });
});
