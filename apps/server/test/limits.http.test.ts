import { describe, expect, it } from "vitest";
import { newIdentity } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp({ config: { allowedOrigins: [], rateLimit: { max: 3, windowMs: 60_000 }, logLevel: "silent" } });

describe("rate limiting", () => {
  it("answers 429 problem+json with Retry-After past the limit", async () => {
    const user = await newIdentity();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await request(t.app, { method: "GET", url: "/v1/clinics", token: user.token });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    if (!last) throw new Error("no response");
    expect(problemOf(last)).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(Number(last.headers["retry-after"])).toBeGreaterThan(0);
    // Health checks are never limited.
    expect((await t.app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
  });
});
