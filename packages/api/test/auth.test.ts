import { SignJWT, exportSPKI, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { createTokenVerifier, mintToken } from "../src/modules/identity/index.ts";
import { codeOf } from "../testing/index.ts";

const secret = "unit-secret-0123456789-0123456789-abcdef";

describe("token verifier", () => {
  it("keeps answering for a remembered token only until it expires", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const verifier = createTokenVerifier({ secret, now: () => now });
    const sub = crypto.randomUUID();
    const token = await new SignJWT({ email: "a@test.example" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(sub)
      .setExpirationTime(now / 1000 + 60)
      .sign(new TextEncoder().encode(secret));
    expect((await verifier.verify(token)).sub).toBe(sub);
    now += 59_000;
    expect((await verifier.verify(token)).sub).toBe(sub);
    now += 2_000;
    expect(await codeOf(verifier.verify(token))).toBe("UNAUTHENTICATED");
  });

  it("checks issuer and audience when configured", async () => {
    const verifier = createTokenVerifier({ secret, issuer: "https://id.example", audience: "clinic-api" });
    const claims = { sub: crypto.randomUUID(), email: "a@test.example" };
    expect(
      (await verifier.verify(await mintToken(secret, claims, { issuer: "https://id.example", audience: "clinic-api" })))
        .sub,
    ).toBe(claims.sub);
    expect(
      await codeOf(
        verifier.verify(await mintToken(secret, claims, { issuer: "https://other.example", audience: "clinic-api" })),
      ),
    ).toBe("UNAUTHENTICATED");
    expect(await codeOf(verifier.verify(await mintToken(secret, claims)))).toBe("UNAUTHENTICATED");
  });

  it("verifies ES256 and RS256 against a configured public key and refuses HS256 made with it", async () => {
    for (const alg of ["ES256", "RS256"] as const) {
      const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
      const pem = await exportSPKI(publicKey);
      const verifier = createTokenVerifier({ publicKey: pem });
      const sub = crypto.randomUUID();
      const token = await new SignJWT({ email: "k@test.example" })
        .setProtectedHeader({ alg })
        .setSubject(sub)
        .setExpirationTime("1h")
        .sign(privateKey);
      expect((await verifier.verify(token)).sub).toBe(sub);
      // The classic algorithm-confusion attack: an HMAC keyed with the public key's text.
      const forged = await new SignJWT({ email: "k@test.example" })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject(sub)
        .setExpirationTime("1h")
        .sign(new TextEncoder().encode(pem));
      expect(await codeOf(verifier.verify(forged))).toBe("UNAUTHENTICATED");
    }
  });

  it("refuses to start without any verification key", () => {
    expect(() => createTokenVerifier({})).toThrow(/no JWT verification key/);
  });
});
