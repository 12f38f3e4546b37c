import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createTokenVerifier } from "@clinic/api";
import { type DbHandle, openDatabase, services, workHours } from "@clinic/db";
import { buildApp } from "../src/app.ts";
import { addProvider, clinicFixture, testSecret } from "@clinic/api/testing";
import { request } from "./helpers.ts";

const databaseUrl = inject("databaseUrl");

// Two server instances, each with its own connection pool and its own in-process availability
// cache, sharing one PostgreSQL database: what several processes behind a load balancer are.
describe.skipIf(!databaseUrl)("availability cache coherence across two instances", () => {
  const instances: { app: FastifyInstance; handle: DbHandle }[] = [];

  beforeAll(async () => {
    for (let k = 0; k < 2; k++) {
      const handle = await openDatabase({ url: databaseUrl, poolMax: 4 });
      const app = await buildApp({
        config: { allowedOrigins: [], rateLimit: { max: 100_000, windowMs: 60_000 }, logLevel: "silent" },
        database: handle,
        verifier: createTokenVerifier({ secret: testSecret }),
        logger: false,
        now: () => new Date("2027-03-01T00:00:00Z"),
      });
      instances.push({ app, handle });
    }
  });
  afterAll(async () => {
    for (const { app, handle } of instances) {
      await app.close();
      await handle.close();
    }
  });

  it("a write through one instance is visible in the other's next read, with no TTL", async () => {
    const [one, two] = instances;
    if (!one || !two) throw new Error("instances not built");
    const clinic = await clinicFixture(one.handle.db);
    const provider = await addProvider(one.handle.db, clinic.clinicId, "Anna Provider");
    await one.handle.db.insert(workHours).values([
      { clinicId: clinic.clinicId, scope: "clinic", weekday: 1, opensMin: 540, closesMin: 720 },
      {
        clinicId: clinic.clinicId,
        scope: "provider",
        providerId: provider.id,
        weekday: 1,
        opensMin: 540,
        closesMin: 720,
      },
    ]);
    const [service] = await one.handle.db
      .insert(services)
      .values({ clinicId: clinic.clinicId, name: "Check-up", durationMin: 60, providerId: provider.id })
      .returning();
    if (!service) throw new Error("no service");
    const url = `/v1/availability?clinic_id=${clinic.clinicId}&service_id=${service.id}&from=2027-03-15&to=2027-03-15`;
    const startsOn = async (app: FastifyInstance) => {
      const response = await request(app, { method: "GET", url, token: clinic.custom.token });
      expect(response.statusCode).toBe(200);
      return response.json<{ slots: { start_local: string }[] }>().slots.map((s) => s.start_local.slice(11));
    };
    // Both instances compute and cache the answer.
    expect(await startsOn(one.app)).toEqual(["09:00", "10:00", "11:00"]);
    expect(await startsOn(two.app)).toEqual(["09:00", "10:00", "11:00"]);
    expect(await startsOn(two.app)).toEqual(["09:00", "10:00", "11:00"]);

    // Book through instance one; instance two's very next read must not show the slot.
    const booked = await request(one.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${clinic.clinicId}`,
      bearer: clinic.custom.token,
      body: { service_id: service.id, start: "2027-03-15T10:00:00Z", patient: { name: "Pat" } },
    });
    expect(booked.statusCode).toBe(201);
    expect(await startsOn(two.app)).toEqual(["09:00", "11:00"]);

    // Cancel through instance two; instance one sees the slot again.
    const id = booked.json<{ id: string }>().id;
    const canceled = await request(two.app, {
      method: "POST",
      url: `/v1/appointments/${id}/cancel?clinic_id=${clinic.clinicId}`,
      bearer: clinic.custom.token,
    });
    expect(canceled.statusCode).toBe(200);
    expect(await startsOn(one.app)).toEqual(["09:00", "10:00", "11:00"]);
  });
});
