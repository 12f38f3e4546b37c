import { describe, expect, inject, it } from "vitest";
import { clinicFixture, codeOf, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

// Only the PostgreSQL server has real parallel connections (PGlite is one connection).
describe.skipIf(!inject("databaseUrl"))("work hours under concurrency (PostgreSQL)", () => {
  it("10 concurrent creates of overlapping periods: exactly one succeeds, the rest 409 WORK_HOUR_OVERLAP", async () => {
    const c = await clinicFixture(t.db);
    const attempts = Array.from({ length: 10 }, (_, k) =>
      codeOf(
        c.asAdmin.workHours.createClinic({
          clinic_id: c.clinicId,
          weekday: 3,
          opens_at: `0${String(k % 3)}:00`.slice(-5),
          closes_at: "12:00",
        }),
      ).catch(() => "OK"),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((o) => o === "OK")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "WORK_HOUR_OVERLAP")).toHaveLength(9);
    expect((await c.asAdmin.workHours.listClinic({ clinic_id: c.clinicId })).work_hours).toHaveLength(1);
  });

  it("10 concurrent edits carrying one stamp: exactly one 200, the rest 409 STALE_UPDATED_AT", async () => {
    const c = await clinicFixture(t.db);
    const hour = await c.asAdmin.workHours.createClinic({
      clinic_id: c.clinicId,
      weekday: 2,
      opens_at: "09:00",
      closes_at: "12:00",
    });
    const stamp = hour.updated_at.toISOString();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        codeOf(
          c.asAdmin.workHours.editClinic({
            clinic_id: c.clinicId,
            work_hour_id: hour.id,
            if_updated_at: stamp,
            closes_at: `1${String(3 + (k % 5))}:00`,
          }),
        ).catch(() => "OK"),
      ),
    );
    expect(outcomes.filter((o) => o === "OK")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "STALE_UPDATED_AT")).toHaveLength(9);
  });
});
