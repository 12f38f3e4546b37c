// The reference pages and the development sign-in (docs/web.md), at the HTTP level; the pages
// themselves are tested in Chromium by apps/web.
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTokenVerifier } from "@clinic/api";
import { testSecret } from "@clinic/api/testing";
import { useTestApp } from "./helpers.ts";

const dist = await mkdtemp(join(tmpdir(), "clinic-web-"));
await mkdir(join(dist, "assets"));
await writeFile(join(dist, "index.html"), "<!doctype html><title>pages</title>");
await writeFile(join(dist, "assets", "app-abc123.js"), "console.log(1)");

const clinicId = "6f1f4c1e-0000-4000-8000-000000000001";
const devUser = {
  label: "Paula Patient",
  sub: "00000000-0000-4000-8000-0000000000c1",
  email: "paula@example.test",
  next: `/book/${clinicId}`,
};

describe("the pages, with the development sign-in", () => {
  const t = useTestApp({ web: { distDir: `${dist}/`, devSignIn: { secret: testSecret, users: [devUser] } } });

  it("serves the page at /, /book/{id}, /desk/{id} (its reports and setup) and /manage/{token}, assets cached for good, unknown paths still problem+json", async () => {
    for (const url of [
      "/",
      `/book/${clinicId}`,
      `/desk/${clinicId}`,
      `/desk/${clinicId}/reports`,
      `/desk/${clinicId}/setup`,
      `/desk/${clinicId}/setup/services`,
      `/manage/${"A".repeat(64)}`,
    ]) {
      const page = await t.app.inject({ method: "GET", url });
      expect(page.statusCode).toBe(200);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expect(page.headers["cache-control"]).toBe("no-cache");
    }
    const asset = await t.app.inject({ method: "GET", url: "/assets/app-abc123.js" });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["cache-control"]).toContain("immutable");
    const unknown = await t.app.inject({ method: "GET", url: "/v1/nothing-here" });
    expect(unknown.statusCode).toBe(404);
    // Deeper than a setup area is not a page.
    const tooDeep = await t.app.inject({ method: "GET", url: `/desk/${clinicId}/setup/services/more` });
    expect(tooDeep.statusCode).toBe(404);
    expect(unknown.headers["content-type"]).toMatch(/^application\/problem\+json/);
  });

  it("mints an HttpOnly token cookie for a chosen demo user and lands on their page", async () => {
    const form = await t.app.inject({ method: "GET", url: "/dev/sign-in" });
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain("Paula Patient");
    const signIn = await t.app.inject({
      method: "POST",
      url: "/dev/sign-in",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "user=0",
    });
    expect(signIn.statusCode).toBe(303);
    expect(signIn.headers.location).toBe(`/book/${clinicId}`);
    const cookie = signIn.cookies.find((c) => c.name === "access_token");
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe("Lax");
    const claims = await createTokenVerifier({ secret: testSecret }).verify(cookie?.value ?? "");
    expect(claims.sub).toBe(devUser.sub);
    const unknown = await t.app.inject({
      method: "POST",
      url: "/dev/sign-in",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "user=7",
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(unknown.json<{ code: string }>().code).toBe("VALIDATION_FAILED");
  });
});

describe("the pages in production (no development secret)", () => {
  const t = useTestApp({ web: { distDir: `${dist}/` } });

  it("has no sign-in page", async () => {
    expect((await t.app.inject({ method: "GET", url: "/dev/sign-in" })).statusCode).toBe(404);
    expect(
      (
        await t.app.inject({
          method: "POST",
          url: "/dev/sign-in",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          payload: "user=0",
        })
      ).statusCode,
    ).toBe(404);
  });
});
