import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { availabilityVersions, hasCitus, rowsOf } from "@clinic/db";
import { addMember, createClinic, useTestDatabase } from "../testing/index.ts";

// availability_fast_lookups (drizzle/functions/availability_fast_lookups.sql): one call for a
// batch of requests answers each request with its own clinic, role and versions (the same scopes
// asked by several callers, all of a clinic's, another clinic's, a caller who is not a member),
// though it reads the versions once for each distinct clinic and scope list.
const t = useTestDatabase();

describe("the fast path's batch lookup", () => {
  it("answers every request of a mixed batch with its own role and the versions of its own scopes", async (context) => {
    // One call reads several clinics' rows: on Citus the fast path steps aside and never calls it.
    if (await hasCitus(t.db)) context.skip();
    const [a, b] = [await createClinic(t.db, { timezone: "Europe/Berlin" }), await createClinic(t.db)];
    const admin = await addMember(t.db, a, { role: "CLINIC_ADMIN" });
    const agent = await addMember(t.db, a, { role: "BOOKING_AGENT" });
    const other = await addMember(t.db, b, { role: "STAFF" });
    const [s1, s2, s3] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await t.db.insert(availabilityVersions).values([
      { clinicId: a, scopeId: a, version: 11, scheduleVersion: 11 },
      { clinicId: a, scopeId: s1, version: 12, scheduleVersion: 12 },
      { clinicId: a, scopeId: s2, version: 13, scheduleVersion: 13 },
      { clinicId: b, scopeId: s3, version: 14, scheduleVersion: 14 },
    ]);
    const requests = [
      { clinic: a, user: admin.id, scopes: `${a},${s1}` },
      { clinic: a, user: agent.id, scopes: `${a},${s1}` }, // the same versions, another caller
      { clinic: a, user: agent.id, scopes: "" }, // all of the clinic's
      { clinic: b, user: other.id, scopes: s3 },
      { clinic: a, user: other.id, scopes: s2 }, // not a member of a
      { clinic: a, user: admin.id, scopes: `${a},${s1}` },
    ];
    const rows = rowsOf<{ i: number; timezone: string; role: string | null; versions: string }>(
      await t.db.execute(sql`select i, timezone, role, versions from availability_fast_lookups(
        ${requests.map((r) => r.clinic).join(",")}, ${requests.map((r) => r.user).join(",")},
        ${requests.map((r) => r.scopes).join("|")}) order by i`),
    );
    const sorted = (versions: string) => versions.split(",").sort().join(",");
    expect(rows.map((r) => ({ ...r, versions: sorted(r.versions) }))).toEqual([
      { i: 1, timezone: "Europe/Berlin", role: "CLINIC_ADMIN", versions: sorted(`${a}=11,${s1}=12`) },
      { i: 2, timezone: "Europe/Berlin", role: "BOOKING_AGENT", versions: sorted(`${a}=11,${s1}=12`) },
      { i: 3, timezone: "Europe/Berlin", role: "BOOKING_AGENT", versions: sorted(`${a}=11,${s1}=12,${s2}=13`) },
      { i: 4, timezone: "UTC", role: "STAFF", versions: `${s3}=14` },
      { i: 5, timezone: "Europe/Berlin", role: null, versions: `${s2}=13` },
      { i: 6, timezone: "Europe/Berlin", role: "CLINIC_ADMIN", versions: sorted(`${a}=11,${s1}=12`) },
    ]);
  });
});
