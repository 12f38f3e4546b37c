// The client address behind a proxy (CONTRACT §11 TRUST_PROXY, docs/operations.md): unset, the
// connection's peer is the client and a forged X-Forwarded-For changes nothing; with a hop count or
// the proxies' addresses, the client is the address X-Forwarded-For gives through those proxies
// only. Every per-address rule (RATE_LIMIT_MAX, GUEST_RATE_LIMIT, §15's guest holds) and the request
// log use that address. Over HTTP, with app.inject's remoteAddress as the connection's peer.
import { Writable } from "node:stream";
import { eq } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createTokenVerifier } from "@clinic/api";
import { addService, bookableClinic, testSecret } from "@clinic/api/testing";
import { clinics } from "@clinic/db";
import type { Config } from "@clinic/config";
import { buildApp } from "../src/app.ts";
import { problemOf, useTestApp } from "./helpers.ts";

const t = useTestApp();
const now = new Date("2027-03-01T08:00:00.000Z");
const built: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(built.splice(0).map((app) => app.close()));
});

/** An app trusting `trustProxy`, allowing 6 requests a minute per client address, logging into `lines`. */
async function appTrusting(trustProxy: Config["trustProxy"], lines: string[] = []): Promise<FastifyInstance> {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  const app = await buildApp({
    config: {
      allowedOrigins: [],
      rateLimit: { max: 6, windowMs: 60_000 },
      logLevel: "info",
      trustProxy,
      guestRateLimit: 100,
    },
    database: t.handle,
    verifier: createTokenVerifier({ secret: testSecret }),
    logger: { level: "info", stream },
    now: () => now,
  });
  built.push(app);
  return app;
}

async function guestClinic() {
  const c = await bookableClinic(t.handle.db);
  const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  await t.handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
  return { ...c, service };
}

let slot = 0;
/** A free half hour of its own for each guest booking of the file (Mon 15 March 2027 on, 16 a day). */
const nextStart = () => {
  const k = slot++;
  return new Date(Date.parse("2027-03-15T09:00:00Z") + Math.floor(k / 16) * 86_400_000 + (k % 16) * 30 * 60_000);
};

interface From {
  peer: string;
  forwardedFor?: string;
  requestId?: string;
}

const headersOf = (from: From) => ({
  ...(from.forwardedFor === undefined ? {} : { "x-forwarded-for": from.forwardedFor }),
  ...(from.requestId === undefined ? {} : { "x-request-id": from.requestId }),
});

/** O1, a cheap read every per-address limit counts. */
const readClinic = (app: FastifyInstance, clinicId: string, from: From) =>
  app.inject({
    method: "GET",
    url: `/v1/booking/clinics/${clinicId}`,
    remoteAddress: from.peer,
    headers: headersOf(from),
  });

/** O4 without a token: a guest's hold. */
const guestBook = (app: FastifyInstance, c: { clinicId: string; service: string }, email: string, from: From) =>
  app.inject({
    method: "POST",
    url: `/v1/booking/clinics/${c.clinicId}/appointments`,
    remoteAddress: from.peer,
    headers: headersOf(from),
    payload: { service_id: c.service, start: nextStart().toISOString(), patient: { name: "Guest", email } },
  });

const statuses = (answers: LightMyRequestResponse[]) => answers.map((a) => a.statusCode);

async function inSequence(count: number, send: (k: number) => Promise<LightMyRequestResponse>) {
  const answers: LightMyRequestResponse[] = [];
  for (let k = 0; k < count; k++) answers.push(await send(k));
  return answers;
}

/** The remoteAddress of the request log's line for the request with this id. */
function loggedAddress(lines: string[], requestId: string): unknown {
  for (const line of lines) {
    const entry = JSON.parse(line) as { reqId?: string; req?: { remoteAddress?: unknown } };
    if (entry.reqId === requestId && entry.req) return entry.req.remoteAddress;
  }
  return undefined;
}

describe("TRUST_PROXY unset: the client is the connection's peer", () => {
  it("a forged X-Forwarded-For changes nothing: RATE_LIMIT_MAX, guest holds and the log count the peer", async () => {
    const lines: string[] = [];
    const app = await appTrusting(false, lines);
    const c = await guestClinic();

    const reads = await inSequence(7, (k) =>
      readClinic(app, c.clinicId, {
        peer: "203.0.113.5",
        forwardedFor: `198.51.100.${String(k + 1)}`,
        requestId: `unset-read-${String(k)}`,
      }),
    );
    expect(statuses(reads)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    const limited = reads[6];
    if (!limited) throw new Error("no answer");
    expect(problemOf(limited).code).toBe("RATE_LIMITED");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(loggedAddress(lines, "unset-read-0")).toBe("203.0.113.5");

    const holds = await inSequence(4, (k) =>
      guestBook(app, c, `unset${String(k)}@example.test`, {
        peer: "203.0.113.6",
        forwardedFor: `198.51.100.${String(k + 10)}`,
      }),
    );
    expect(statuses(holds)).toEqual([201, 201, 201, 409]);
    const refused = holds[3];
    if (!refused) throw new Error("no answer");
    expect(problemOf(refused).code).toBe("BOOKING_LIMIT");
    expect(lines.join("")).not.toContain("198.51.100.");
  });
});

describe("TRUST_PROXY with the proxies' addresses", () => {
  it("takes the client from X-Forwarded-For through a trusted proxy, for every per-address rule and the log", async () => {
    const lines: string[] = [];
    const app = await appTrusting(["10.0.0.0/8"], lines);
    const c = await guestClinic();

    // Many clients behind one proxy: each is counted on its own.
    const clients = await inSequence(8, (k) =>
      readClinic(app, c.clinicId, { peer: "10.1.2.3", forwardedFor: `198.51.100.${String(k + 1)}` }),
    );
    expect(statuses(clients)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    // One client through two proxies: counted once, whichever proxy carries it.
    const one = await inSequence(7, (k) =>
      readClinic(app, c.clinicId, {
        peer: k % 2 === 0 ? "10.0.0.1" : "10.0.0.2",
        forwardedFor: "198.51.100.50",
        requestId: `list-read-${String(k)}`,
      }),
    );
    expect(statuses(one)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(loggedAddress(lines, "list-read-0")).toBe("198.51.100.50");

    // Guest holds per client address.
    const holds = await inSequence(4, (k) =>
      guestBook(app, c, `list${String(k)}@example.test`, { peer: "10.0.0.1", forwardedFor: "198.51.100.60" }),
    );
    expect(statuses(holds)).toEqual([201, 201, 201, 409]);
    expect(
      (await guestBook(app, c, "list4@example.test", { peer: "10.0.0.1", forwardedFor: "198.51.100.61" })).statusCode,
    ).toBe(201);
    // A client that forges the leftmost entry is still the address the proxy saw.
    const forgedLeft = await guestBook(app, c, "list5@example.test", {
      peer: "10.0.0.1",
      forwardedFor: "198.51.100.99, 198.51.100.60",
      requestId: "list-forged-left",
    });
    expect(forgedLeft.statusCode).toBe(409);
    expect(problemOf(forgedLeft).code).toBe("BOOKING_LIMIT");
    expect(loggedAddress(lines, "list-forged-left")).toBe("198.51.100.60");
  });

  it("a peer that is not a trusted proxy is the client, whatever X-Forwarded-For it sends", async () => {
    const lines: string[] = [];
    const app = await appTrusting(["10.0.0.0/8"], lines);
    const c = await guestClinic();
    const reads = await inSequence(7, (k) =>
      readClinic(app, c.clinicId, {
        peer: "203.0.113.9",
        forwardedFor: k % 2 === 0 ? `198.51.100.${String(k + 1)}` : "10.0.0.7",
        requestId: `untrusted-read-${String(k)}`,
      }),
    );
    expect(statuses(reads)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(loggedAddress(lines, "untrusted-read-0")).toBe("203.0.113.9");
    expect(loggedAddress(lines, "untrusted-read-1")).toBe("203.0.113.9");
    const holds = await inSequence(4, (k) =>
      guestBook(app, c, `untrusted${String(k)}@example.test`, {
        peer: "203.0.113.10",
        forwardedFor: `198.51.100.${String(k + 20)}`,
      }),
    );
    expect(statuses(holds)).toEqual([201, 201, 201, 409]);
  });
});

describe("TRUST_PROXY as a hop count", () => {
  it("takes the client from that many proxies back", async () => {
    const lines: string[] = [];
    const app = await appTrusting(1, lines);
    const c = await guestClinic();
    const answer = await readClinic(app, c.clinicId, {
      peer: "192.0.2.1",
      forwardedFor: "198.51.100.80, 198.51.100.81",
      requestId: "hops-read",
    });
    expect(answer.statusCode).toBe(200);
    expect(loggedAddress(lines, "hops-read")).toBe("198.51.100.81");
    const holds = await inSequence(4, (k) =>
      guestBook(app, c, `hops${String(k)}@example.test`, {
        peer: `192.0.2.${String(k + 2)}`,
        forwardedFor: "198.51.100.82",
      }),
    );
    expect(statuses(holds)).toEqual([201, 201, 201, 409]);
  });
});
