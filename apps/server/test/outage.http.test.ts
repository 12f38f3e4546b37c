import { createConnection, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createTokenVerifier } from "@clinic/api";
import { type DbHandle, openDatabase } from "@clinic/db";
import { buildApp } from "../src/app.ts";
import { newIdentity, testSecret } from "@clinic/api/testing";
import { problemOf, request } from "./helpers.ts";

/**
 * A TCP proxy in front of the PostgreSQL server that the test can cut and restore, so the app
 * meets a real outage: connections refused and open ones reset.
 */
class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, "127.0.0.1", resolve));
    const address = this.server.address();
    if (typeof address === "object" && address) this.port = address.port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => {
      if (this.server)
        this.server.close(() => {
          resolve();
        });
      else resolve();
    });
  }
}

const databaseUrl = inject("databaseUrl");

// Only meaningful against a PostgreSQL server (PGlite is in-process and cannot go away).
describe.skipIf(!databaseUrl)("database outage", () => {
  let proxy: CuttableProxy;
  let handle: DbHandle;
  let app: FastifyInstance;

  beforeAll(async () => {
    const url = new URL(databaseUrl ?? "");
    proxy = new CuttableProxy(url.hostname, Number(url.port || 5432));
    await proxy.open();
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    handle = await openDatabase({ url: url.toString(), poolMax: 2 });
    app = await buildApp({
      config: { allowedOrigins: [], rateLimit: { max: 100_000, windowMs: 60_000 }, logLevel: "silent" },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
    });
  });
  afterAll(async () => {
    await app.close();
    await proxy.cut();
    await handle.close();
  });

  it("answers 503 UNAVAILABLE while the database is away and recovers by itself", async () => {
    const user = await newIdentity();
    expect((await request(app, { method: "GET", url: "/v1/clinics", token: user.token })).statusCode).toBe(200);

    await proxy.cut();
    const down = await request(app, { method: "GET", url: "/v1/clinics", token: (await newIdentity()).token });
    expect(down.statusCode).toBe(503);
    expect(problemOf(down)).toMatchObject({ status: 503, code: "UNAVAILABLE" });
    expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);

    await proxy.open();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await request(app, { method: "GET", url: "/v1/clinics", token: user.token })).statusCode;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
  });
});
