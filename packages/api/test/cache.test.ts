import { describe, expect, it } from "vitest";
import { type CachedAvailability, AvailabilityCache, estimateBytes } from "../src/modules/availability/cache.ts";

const service = {
  id: "s",
  name: "S",
  durationMin: 1,
  providerId: null,
  isActive: true,
  bufferBeforeMin: 0,
  bufferAfterMin: 0,
  slotStepMin: null,
  minNoticeMin: 0,
  bookingHorizonDays: null,
  capacity: 1,
  requiredResourceKinds: [],
  questions: [],
};
const answer = (slots: number, providers = 8, goodUntilMs = Infinity): CachedAvailability => ({
  service,
  dependsOn: [],
  goodUntilMs,
  slots: Array.from({ length: slots }, (_, i) => ({
    start: i * 60_000,
    end: (i + 1) * 60_000,
    startLocal: "2027-03-15T09:00",
    providerIds: Array.from({ length: providers }, (_, p) => `p${String(p)}`),
  })),
});

describe("availability cache", () => {
  it("stays within its byte budget, evicting the least recently used entries", () => {
    const one = estimateBytes(answer(1_000));
    const cache = new AvailabilityCache({ maxBytes: one * 3 + 100 });
    for (const key of ["a", "b", "c"]) cache.set(key, "v1", answer(1_000));
    expect(cache.size).toBe(3);
    expect(cache.get("a", "v1", 0)).toBeDefined(); // a is now the most recently used
    cache.set("d", "v1", answer(1_000));
    expect([cache.peek("a"), cache.peek("b"), cache.peek("c"), cache.peek("d")].map(Boolean)).toEqual([
      true,
      false,
      true,
      true,
    ]);
    expect(cache.bytes).toBeLessThanOrEqual(one * 3 + 100);
    // 20 large answers never take it over budget.
    for (let i = 0; i < 20; i++) cache.set(`big${String(i)}`, "v1", answer(2_000));
    expect(cache.bytes).toBeLessThanOrEqual(one * 3 + 100);
  });

  it("does not keep an answer larger than the whole budget, and drops entries of other versions", () => {
    const cache = new AvailabilityCache({ maxBytes: estimateBytes(answer(10)) });
    cache.set("huge", "v1", answer(10_000));
    expect(cache.size).toBe(0);
    cache.set("k", "v1", answer(10));
    expect(cache.get("k", "v2", 0)).toBeUndefined();
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
  });

  it("drops an answer once a hold it counted has ended, whatever the versions", () => {
    const cache = new AvailabilityCache();
    cache.set("k", "v1", answer(10, 1, 5_000));
    expect(cache.get("k", "v1", 4_999)).toBeDefined();
    expect(cache.get("k", "v1", 5_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("estimates the heap of an 89,280-slot answer at tens of megabytes", () => {
    // The probe of the hardening issue: 8 providers, 24 h, 62 days of a 1-minute service.
    expect(estimateBytes(answer(89_280, 8)) / 1024 / 1024).toBeGreaterThan(15);
  });
});
