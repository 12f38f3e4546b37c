import { describe, expect, it } from "vitest";
import {
  closestNames,
  isAmbiguous,
  mentionMatchesName,
  mergeMatches,
  narrowByProvider,
  similarity,
} from "../src/matching.ts";

const match = (id: string, name: string, score: number, provider: string | null = null) => ({
  service: { id, name, provider_id: provider ? `user-${provider}` : null, provider_name: provider },
  score,
});

describe("isAmbiguous", () => {
  it("is ambiguous when the best two scores are within 0.1", () => {
    expect(isAmbiguous([0.9, 0.8])).toBe(true);
    expect(isAmbiguous([0.9, 0.85, 0.2])).toBe(true);
    expect(isAmbiguous([0.9, 0.799])).toBe(false);
    expect(isAmbiguous([0.9])).toBe(false);
    expect(isAmbiguous([])).toBe(false);
  });
});

describe("provider names", () => {
  it("matches a spoken first name, surname or prefix, without case, accents or titles", () => {
    expect(mentionMatchesName("Anna", "Anna Berg")).toBe(true);
    expect(mentionMatchesName("anna b", "Anna Berg")).toBe(true);
    expect(mentionMatchesName("Dr. Berg", "Anna Berg")).toBe(true);
    expect(mentionMatchesName("Muller", "Jonas Müller")).toBe(true);
    expect(mentionMatchesName("Ben", "Anna Berg")).toBe(false);
    expect(mentionMatchesName("Dr.", "Anna Berg")).toBe(false);
  });

  it("narrows matches to the named provider's and unassigned services, or keeps all when none fits", () => {
    const matches = [
      match("ben", "Deep Tissue Massage - Ben Koch", 0.82, "Ben Koch"),
      match("anna", "Deep Tissue Massage - Anna Berg", 0.8, "Anna Berg"),
      match("any", "Deep Tissue Massage", 0.5),
    ];
    expect(narrowByProvider(matches, "Anna").matches.map((m) => m.service.id)).toEqual(["anna", "any"]);
    expect(narrowByProvider(matches, "Anna").narrowed).toBe(true);
    expect(narrowByProvider(matches, "hot stones")).toEqual({ matches, narrowed: false });
    expect(narrowByProvider(matches, undefined).narrowed).toBe(false);
  });
});

describe("mergeMatches", () => {
  it("keeps each service once with its best score, best first", () => {
    const merged = mergeMatches([[match("a", "A", 0.4), match("b", "B", 0.9)], [match("a", "A", 0.7)]]);
    expect(merged.map((m) => [m.service.id, m.score])).toEqual([
      ["b", 0.9],
      ["a", 0.7],
    ]);
  });
});

describe("closestNames", () => {
  const names = [
    "Deep Tissue Massage - Anna Berg",
    "Sports Massage - Ben Koch",
    "Physiotherapy Assessment",
    "Acupuncture",
  ];
  it("suggests the names closest to a query the search found nothing for", () => {
    expect(closestNames("massge", names)[0]).toMatch(/Massage/);
    expect(closestNames("physio", names)).toContain("Physiotherapy Assessment");
    expect(closestNames("xyzzy", names)).toEqual([]);
  });

  it("scores like pg_trgm: identical 1, disjoint 0", () => {
    expect(similarity("Massage", "massage")).toBe(1);
    expect(similarity("abc", "xyz")).toBe(0);
  });
});
