import { describe, expect, it } from "vitest";
import { clinicFixture, codeOf, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

const catalogue = [
  "Deep Tissue Massage",
  "Swedish Massage",
  "Hot Stone Massage",
  "Sports Massage",
  "Physiotherapy",
  "Dental Cleaning",
  "Deep Cleaning",
  "Xylophone Therapy",
];

/** A clinic whose catalogue holds the names above (all active). */
async function searchableClinic() {
  const c = await clinicFixture(t.db);
  const ids = new Map<string, string>();
  for (const name of catalogue) {
    const service = await c.asAdmin.services.create({ clinic_id: c.clinicId, name, duration_min: 30 });
    ids.set(name, service.id);
  }
  return { ...c, ids };
}

describe("services.search (S7)", () => {
  it.each([
    ["deep tisue masage"],
    ["massage deep tissue"],
    ["DEEP TISSUE MASSAGE"],
    ["Déep Tissué"],
    ["  deep   tissue massage  "],
  ])("finds Deep Tissue Massage first for %j", async (q) => {
    const c = await searchableClinic();
    const { matches } = await c.asCustom.services.search({ clinic_id: c.clinicId, q });
    expect(matches[0]?.service.name).toBe("Deep Tissue Massage");
    expect(matches[0]?.service.id).toBe(c.ids.get("Deep Tissue Massage"));
    // Best first, scores within 0..1 rounded to 3 decimals.
    const scores = matches.map((m) => m.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);
      expect(Math.round(score * 1000) / 1000).toBe(score);
    }
  });

  it("scores an exact (case- and accent-folded) name 1 and a typo lower", async () => {
    const c = await searchableClinic();
    const exact = await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "DÉEP TISSUE MASSAGE" });
    expect(exact.matches[0]).toMatchObject({ score: 1, service: { name: "Deep Tissue Massage" } });
    const typo = await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "deep tisue masage" });
    expect(typo.matches[0]?.score).toBeGreaterThan(0.6);
    expect(typo.matches[0]?.score).toBeLessThan(1);
  });

  it("finds nothing for an unrelated query", async () => {
    const c = await searchableClinic();
    expect((await c.asStaff.services.search({ clinic_id: c.clinicId, q: "xyz" })).matches).toEqual([]);
    expect((await c.asStaff.services.search({ clinic_id: c.clinicId, q: "qqqq wwww" })).matches).toEqual([]);
  });

  it("matches one word of a longer name and honours limit", async () => {
    const c = await searchableClinic();
    const all = await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "masage", limit: 20 });
    expect(all.matches.map((m) => m.service.name).sort()).toEqual([
      "Deep Tissue Massage",
      "Hot Stone Massage",
      "Sports Massage",
      "Swedish Massage",
    ]);
    const two = await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "masage", limit: 2 });
    expect(two.matches).toHaveLength(2);
    const byDefault = await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "massage" });
    expect(byDefault.matches.length).toBeLessThanOrEqual(5);
  });

  it("leaves out inactive and deleted services and other clinics' services", async () => {
    const c = await searchableClinic();
    const other = await clinicFixture(t.db);
    await other.asAdmin.services.create({
      clinic_id: other.clinicId,
      name: "Deep Tissue Massage Deluxe",
      duration_min: 60,
    });
    const deep = c.ids.get("Deep Tissue Massage") ?? "";
    const swedish = c.ids.get("Swedish Massage") ?? "";
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: swedish, is_active: false });
    await c.asAdmin.services.remove({ clinic_id: c.clinicId, id: deep });
    const { matches } = await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "massage", limit: 20 });
    const names = matches.map((m) => m.service.name);
    expect(names).not.toContain("Deep Tissue Massage");
    expect(names).not.toContain("Swedish Massage");
    expect(names).not.toContain("Deep Tissue Massage Deluxe");
    expect(names.sort()).toEqual(["Hot Stone Massage", "Sports Massage"]);
  });

  it("takes % and _ in q as ordinary characters", async () => {
    const c = await searchableClinic();
    expect((await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "%" })).matches).toEqual([]);
    expect(
      (await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "_massage_" })).matches[0]?.service.name,
    ).toMatch(/Massage$/);
  });

  it("validates q and limit, and needs membership", async () => {
    const c = await searchableClinic();
    expect(await codeOf(c.asAdmin.services.search({ clinic_id: c.clinicId, q: "   " }))).toBe("VALIDATION_FAILED");
    expect(await codeOf(c.asAdmin.services.search({ clinic_id: c.clinicId, q: "x".repeat(201) }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asAdmin.services.search({ clinic_id: c.clinicId, q: "massage", limit: 21 }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asAdmin.services.search({ clinic_id: c.clinicId, q: "massage", limit: 0 }))).toBe(
      "VALIDATION_FAILED",
    );
    const other = await clinicFixture(t.db);
    expect(await codeOf(other.asCustom.services.search({ clinic_id: c.clinicId, q: "massage" }))).toBe("FORBIDDEN");
  });
});
