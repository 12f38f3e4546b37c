import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@clinic/config";
import { resolveJwtSecret } from "../src/secrets.ts";

describe("start-up secrets", () => {
  it("refuses a production start without a verification key", async () => {
    const config = loadConfig({ NODE_ENV: "production" });
    await expect(resolveJwtSecret(config)).rejects.toThrow(/JWT_SECRET .* required when NODE_ENV=production/);
  });

  it("creates a development secret once, in the data directory, and reuses it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "clinic-secret-"));
    const config = loadConfig({ PGLITE_DIR: join(dir, "pglite") });
    const first = await resolveJwtSecret(config);
    expect(first?.length).toBeGreaterThanOrEqual(32);
    expect(await resolveJwtSecret(config)).toBe(first);
    expect((await readFile(join(dir, "jwt-secret"), "utf8")).trim()).toBe(first);
  });

  it("uses a configured secret, and none when only a public key is configured", async () => {
    expect(await resolveJwtSecret(loadConfig({ JWT_SECRET: "s".repeat(40) }))).toBe("s".repeat(40));
    expect(
      await resolveJwtSecret(loadConfig({ JWT_JWKS_URL: "https://id.example/.well-known/jwks.json" })),
    ).toBeUndefined();
  });
});
