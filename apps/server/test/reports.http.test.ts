// Reports over REST (CONTRACT §20, docs/reports.md): JSON or CSV by Accept, RFC 4180 edge cases
// (quotes, commas, line breaks, UTF-8), formula injection defused, the header row, errors as
// problem+json whatever was accepted, and the OpenAPI document.
import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addHours, addProvider, addService, clinicFixture } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp({ now: () => new Date("2027-03-01T00:00:00Z") });

const utilizationColumns = [
  "key",
  "label",
  "available_minutes",
  "booked_minutes",
  "utilization",
  "appointments",
  "completed",
  "no_show",
  "canceled",
  "canceled_late",
  "no_show_rate",
  "median_lead_time_hours",
];

/** Names a spreadsheet or a naive CSV writer would get wrong. */
const names = {
  quoted: 'Dr. "Quote", Jr.',
  multiline: "Line one\nline two",
  formula: '=HYPERLINK("http://evil.example","x")',
  plus: "+Plus Person",
  minus: "-Minus Person",
  at: "@At Person",
  utf8: "Zoë Ünal 日本",
};

async function clinicWithAwkwardNames() {
  const db = t.handle.db;
  const c = await clinicFixture(db, { timezone: "Europe/Berlin" });
  await addHours(db, c.clinicId, null, [1, 2, 3, 4, 5], "09:00", "17:00");
  const providers: Record<keyof typeof names, string> = {} as Record<keyof typeof names, string>;
  for (const [key, name] of Object.entries(names) as [keyof typeof names, string][]) {
    const p = await addProvider(db, c.clinicId, name);
    await addHours(db, c.clinicId, p.id, [1], "09:00", "10:00");
    providers[key] = p.id;
  }
  const service = await addService(db, c.clinicId, { name: "Massage, deep" });
  // Booked two hours after its start (a back-dated entry): a negative lead time, a number.
  await db.execute(sql`
    insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end,
      status, patient_name, patient_phone_e164, notes, created_at, updated_at)
    values (${c.clinicId}::uuid, ${service}::uuid, ${providers.quoted}::uuid, '2026-03-23T08:00:00Z', '2026-03-23T08:30:00Z',
      '2026-03-23T08:00:00Z', '2026-03-23T08:30:00Z', 'completed', ${'=1+1, "Pat"\r\nNext'}, '+4930123456',
      'do not export me', '2026-03-23T10:00:00Z', '2026-03-23T10:00:00Z')`);
  return { ...c, providers, service };
}

const rp1 = (clinicId: string, query = "group_by=provider") =>
  `/v1/clinics/${clinicId}/reports/utilization?from=2026-03-23&to=2026-03-29&${query}`;
const rp2 = (clinicId: string) => `/v1/clinics/${clinicId}/reports/appointments?from=2026-03-23&to=2026-03-29`;

describe("reports over REST", () => {
  it("RP1 answers JSON by default, with the contract's row", async () => {
    const c = await clinicWithAwkwardNames();
    const response = await request(t.app, { method: "GET", url: rp1(c.clinicId), token: c.admin.token });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.headers.vary).toMatch(/accept/i);
    const { rows } = response.json<{ rows: Record<string, unknown>[] }>();
    expect(rows).toHaveLength(7);
    expect(Object.keys(rows[0] ?? {})).toEqual(utilizationColumns);
    const quoted = rows.find((r) => r.key === c.providers.quoted);
    expect(quoted).toMatchObject({ label: names.quoted, available_minutes: 60, booked_minutes: 30, utilization: 0.5 });
  });

  it("RP1 as CSV: RFC 4180 quoting, CRLF, a header row, UTF-8, formulas defused, numbers as in JSON", async () => {
    const c = await clinicWithAwkwardNames();
    const response = await request(t.app, {
      method: "GET",
      url: rp1(c.clinicId),
      token: c.admin.token,
      headers: { accept: "text/csv" },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8; header=present");
    expect(response.headers["content-disposition"]).toBe(
      'attachment; filename="utilization_2026-03-23_2026-03-29.csv"',
    );
    const body = response.body;
    expect(body.startsWith(`${utilizationColumns.join(",")}\r\n`)).toBe(true);
    // Quotes doubled inside a quoted field; a line break inside a quoted field; the prefix inside the quotes.
    expect(body).toContain(`"Dr. ""Quote"", Jr."`);
    expect(body).toContain(`"Line one\nline two"`);
    expect(body).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(body).toContain(`,'+Plus Person,`);
    expect(body).toContain(`,'-Minus Person,`);
    expect(body).toContain(`,'@At Person,`);
    expect(body).toContain(`,Zoë Ünal 日本,`);
    // Every record ends with CRLF; the only bare LF is inside the quoted name.
    expect(body.endsWith("\r\n")).toBe(true);
    expect(body.replaceAll("\r\n", "").split("\n")).toHaveLength(2);
    const records = parse<Record<string, string>>(body, { columns: true, record_delimiter: "\r\n" });
    expect(records).toHaveLength(7);
    const byKey = new Map(records.map((r) => [r.key, r]));
    expect(byKey.get(c.providers.quoted)).toEqual({
      key: c.providers.quoted,
      label: names.quoted,
      available_minutes: "60",
      booked_minutes: "30",
      utilization: "0.5",
      appointments: "1",
      completed: "1",
      no_show: "0",
      canceled: "0",
      canceled_late: "0",
      no_show_rate: "0",
      median_lead_time_hours: "-2",
    });
    expect(byKey.get(c.providers.multiline)?.label).toBe(names.multiline);
    expect(byKey.get(c.providers.formula)?.label).toBe(`'${names.formula}`);
    expect(byKey.get(c.providers.utf8)?.label).toBe(names.utf8);
    // Null is an empty field.
    expect(byKey.get(c.providers.plus)?.no_show_rate).toBe("");
  });

  it("RP2 answers CSV by default and JSON when asked; no notes, no answers; a phone's + is defused", async () => {
    const c = await clinicWithAwkwardNames();
    const csv = await request(t.app, { method: "GET", url: rp2(c.clinicId), token: c.admin.token });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["content-type"]).toMatch(/^text\/csv/);
    expect(csv.headers["content-disposition"]).toBe('attachment; filename="appointments_2026-03-23_2026-03-29.csv"');
    expect(csv.body).not.toContain("do not export me");
    const [header] = csv.body.split("\r\n");
    expect(header?.split(",")).not.toContain("notes");
    expect(header?.split(",")).not.toContain("answers");
    const [row] = parse<Record<string, string>>(csv.body, { columns: true });
    expect(row).toMatchObject({
      start: "2026-03-23T08:00:00.000Z",
      start_local: "2026-03-23T09:00",
      status: "completed",
      provider_name: names.quoted,
      service_name: "Massage, deep",
      patient_name: `'=1+1, "Pat"\r\nNext`,
      patient_phone_e164: "'+4930123456",
      lead_time_hours: "-2",
      canceled_late: "false",
      canceled_at: "",
    });
    const json = await request(t.app, {
      method: "GET",
      url: rp2(c.clinicId),
      token: c.admin.token,
      headers: { accept: "application/json" },
    });
    expect(json.headers["content-type"]).toMatch(/^application\/json/);
    const { rows } = json.json<{ rows: Record<string, unknown>[] }>();
    expect(rows[0]).toMatchObject({ patient_name: '=1+1, "Pat"\r\nNext', patient_phone_e164: "+4930123456" });
    expect(rows[0]).not.toHaveProperty("notes");
  });

  it("Accept negotiation: q-values and wildcards; ties go to the route's preference", async () => {
    const c = await clinicWithAwkwardNames();
    const typeOf = async (url: string, accept: string) =>
      String(
        (await request(t.app, { method: "GET", url, token: c.admin.token, headers: { accept } })).headers[
          "content-type"
        ],
      ).split(";")[0];
    expect(await typeOf(rp1(c.clinicId), "*/*")).toBe("application/json");
    expect(await typeOf(rp2(c.clinicId), "*/*")).toBe("text/csv");
    expect(await typeOf(rp1(c.clinicId), "text/csv;q=0.5, application/json")).toBe("application/json");
    expect(await typeOf(rp2(c.clinicId), "text/csv;q=0.5, application/json")).toBe("application/json");
    expect(await typeOf(rp1(c.clinicId), "application/json;q=0.1, text/*")).toBe("text/csv");
    expect(await typeOf(rp1(c.clinicId), "text/html,application/xhtml+xml,*/*;q=0.8")).toBe("application/json");
    expect(await typeOf(rp2(c.clinicId), "text/html,application/xhtml+xml,*/*;q=0.8")).toBe("text/csv");
  });

  it("errors stay problem+json when CSV was asked: 403 for STAFF, 400 with the field's path", async () => {
    const c = await clinicWithAwkwardNames();
    const csv = { accept: "text/csv" };
    const staff = await request(t.app, { method: "GET", url: rp1(c.clinicId), token: c.staff.token, headers: csv });
    expect(staff.statusCode).toBe(403);
    expect(problemOf(staff).code).toBe("FORBIDDEN");
    const badGroup = await request(t.app, {
      method: "GET",
      url: rp1(c.clinicId, "group_by=year"),
      token: c.admin.token,
      headers: csv,
    });
    expect(badGroup.statusCode).toBe(400);
    expect(problemOf(badGroup).errors?.map((e) => e.path)).toEqual(["group_by"]);
    const tooLong = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/reports/appointments?from=2026-01-01&to=2027-01-02`,
      token: c.admin.token,
    });
    expect(tooLong.statusCode).toBe(400);
    expect(problemOf(tooLong).errors?.map((e) => e.path)).toEqual(["to"]);
  });

  it("the OpenAPI document lists both routes with their JSON and CSV answers", async () => {
    const response = await request(t.app, { method: "GET", url: "/v1/openapi.json" });
    const doc = response.json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>();
    const utilization = doc.paths["/v1/clinics/{clinic_id}/reports/utilization"]?.get;
    const appointments = doc.paths["/v1/clinics/{clinic_id}/reports/appointments"]?.get;
    expect(Object.keys((utilization?.responses["200"] as { content: object }).content)).toEqual([
      "application/json",
      "text/csv",
    ]);
    expect(Object.keys((appointments?.responses["200"] as { content: object }).content)).toEqual([
      "text/csv",
      "application/json",
    ]);
  });
});
