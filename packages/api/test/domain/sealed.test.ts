import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seal, unseal } from "../../src/domain/sealed.ts";

// domain/sealed.ts: calendars' secrets and sessions' ID tokens at rest.
describe("a sealed value", () => {
  const key = randomBytes(32);

  it("opens to its text under its key and row, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.uuid(), (plain, row) => {
        expect(unseal(key, row, seal(key, row, plain))).toBe(plain);
      }),
    );
  });

  it("does not open under another key, on another row, or changed, and never repeats its ciphertext", () => {
    const sealed = seal(key, "row-1", "the secret");
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain("the secret");
    expect(unseal(randomBytes(32), "row-1", sealed)).toBeNull();
    expect(unseal(key, "row-2", sealed)).toBeNull();
    const [version, iv, tag, body = ""] = sealed.split(".");
    const flipped = `${body.startsWith("A") ? "B" : "A"}${body.slice(1)}`;
    expect(unseal(key, "row-1", [version, iv, tag, flipped].join("."))).toBeNull();
    expect(unseal(key, "row-1", "v2.a.b.c")).toBeNull();
    expect(unseal(key, "row-1", "not sealed")).toBeNull();
    expect(seal(key, "row-1", "the secret")).not.toBe(sealed);
  });
});
