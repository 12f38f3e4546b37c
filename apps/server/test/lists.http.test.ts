// Every list that takes a cursor answers a cursor it did not issue with 400, never a database
// error; and pages through its rows without gaps or repeats. Driven by the route table, so a new
// list is covered as soon as it exists.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter, webhookFeedEnd } from "@clinic/api";
import { clinicFixture, newIdentity } from "@clinic/api/testing";
import { type Db, webhooks } from "@clinic/db";
import { restRoutes } from "../src/routes.ts";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp();

const lists = restRoutes(appRouter).filter(
  (e) => e.rest.method === "GET" && e.input instanceof z.ZodObject && "cursor" in e.input.shape,
);

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const tampered = {
  "not base64 JSON": "zzz",
  "not an array": encode({ a: 1 }),
  "wrong arity": encode(["x"]),
  "wrong types": encode([1, 2]),
  "not a uuid": encode(["2027-01-01T00:00:00.000Z", "not-a-uuid"]),
};
/** Lists sorted by an instant first also refuse a first key that is not one. */
const instantKeyed = new Set([
  "appointments.list",
  "audit.list",
  "me.appointments",
  "messages.list",
  "waitlist.list",
  "waitlist.mine",
  "webhooks.deliveries",
]);

/** Path parameters besides the clinic, made in the test's clinic. */
const pathParameters: Record<string, (db: Db, clinicId: string) => Promise<Record<string, string>>> = {
  "webhooks.deliveries": async (db, clinicId) => {
    const [hook] = await db
      .insert(webhooks)
      .values({
        clinicId,
        url: "https://example.org/h",
        eventTypes: ["*"],
        secret: "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=",
        feedSeq: await webhookFeedEnd(db, clinicId),
      })
      .returning({ id: webhooks.id });
    return { id: hook?.id ?? "" };
  },
};
const notAnInstant = encode(["yesterday", "00000000-0000-4000-8000-000000000000"]);

describe("lists", () => {
  it("are the lists that can grow", () => {
    expect(lists.map((e) => e.procedure).sort()).toEqual([
      "appointments.list",
      "audit.list",
      "clinics.list",
      "me.appointments",
      "members.list",
      "messages.list",
      "providers.list",
      "services.list",
      "waitlist.list",
      "waitlist.mine",
      "webhooks.deliveries",
    ]);
  });

  it.each(lists.map((e) => [e.procedure, e] as const))(
    "%s answers a cursor it did not issue with 400 VALIDATION_FAILED",
    async (_name, entry) => {
      const clinic = await clinicFixture(t.handle.db);
      const admin = await newIdentity({ admin: true });
      let path = entry.rest.path.replace(":clinic_id", clinic.clinicId);
      for (const [name, value] of Object.entries(
        (await pathParameters[entry.procedure]?.(t.handle.db, clinic.clinicId)) ?? {},
      ))
        path = path.replace(`:${name}`, value);
      expect(path, "a list with other path parameters needs this test extended").not.toContain(":");
      const base =
        entry.input instanceof z.ZodObject && "clinic_id" in entry.input.shape
          ? `${path}?clinic_id=${clinic.clinicId}&`
          : `${path}?`;
      const cases = Object.entries(
        instantKeyed.has(entry.procedure) ? { ...tampered, "not an instant": notAnInstant } : tampered,
      );
      for (const [what, cursor] of cases) {
        const response = await request(t.app, {
          method: "GET",
          url: `${base}cursor=${encodeURIComponent(cursor)}`,
          token: admin.token,
        });
        expect(response.statusCode, `${what}: ${response.body}`).toBe(400);
        expect(problemOf(response)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "cursor" }] });
      }
    },
  );
});
