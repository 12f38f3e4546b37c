// What the server answers below the routes: every 4xx it writes is problem+json with an API code,
// slow requests time out, and a client hanging up is logged as that, not as a database outage.
import { createConnection } from "node:net";
import { Writable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { newIdentity } from "@clinic/api/testing";
import { useTestApp } from "./helpers.ts";

const logLines: Record<string, unknown>[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split("\n"))
      if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

const t = useTestApp({
  limits: { requestTimeoutMs: 1_500, headersTimeoutMs: 1_000, checkIntervalMs: 200 },
  logger: { level: "info", stream: logStream },
});
let port = 0;
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  const address = t.app.server.address();
  port = typeof address === "object" && address ? address.port : 0;
});

interface RawAnswer {
  status: number;
  contentType: string;
  body: Record<string, unknown>;
  closedAfterMs: number;
}

/** Writes `chunks` to a raw connection (waiting `gapMs` between them) and reads the answer until the server closes. */
function raw(chunks: string[], options: { gapMs?: number; waitMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = createConnection(port, "127.0.0.1");
    let data = "";
    socket.on("data", (d) => (data += d.toString()));
    socket.on("error", () => undefined);
    const finish = () => {
      const [head = "", ...rest] = data.split("\r\n\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const contentType = /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? "";
      try {
        resolve({
          status,
          contentType,
          body: JSON.parse(rest.join("\r\n\r\n") || "{}") as Record<string, unknown>,
          closedAfterMs: Date.now() - started,
        });
      } catch (error) {
        reject(new Error(`unreadable answer: ${data.slice(0, 300)}`, { cause: error }));
      }
    };
    socket.on("close", finish);
    setTimeout(() => socket.destroy(), options.waitMs ?? 5_000);
    void (async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
      }
    })();
  });
}

const expectProblem = (answer: RawAnswer, status: number) => {
  expect(answer.status).toBe(status);
  expect(answer.contentType).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ type: "about:blank", status, code: "VALIDATION_FAILED" });
};

describe("transport-level failures", () => {
  it("answers bad %-encoding in a path with 400 problem+json", async () => {
    expectProblem(
      await raw(["GET /v1/services/%E0%A4%A?clinic_id=x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"]),
      400,
    );
  });

  it("answers an over-long path segment with 414 problem+json that does not echo the path", async () => {
    const answer = await raw([`GET /v1/services/${"a".repeat(6000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
    expectProblem(answer, 414);
    expect(JSON.stringify(answer.body).length).toBeLessThan(500);
  });

  it("answers an oversized request head with 431 problem+json", async () => {
    expectProblem(await raw([`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`]), 431);
  });

  it("answers bytes that are not HTTP with 400 problem+json", async () => {
    expectProblem(await raw(["GARBAGE\r\n\r\n"]), 400);
  });

  it("times out a body that trickles in with 408 problem+json and closes the connection", async () => {
    const admin = await newIdentity({ admin: true });
    const head = `POST /v1/clinics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin.token}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
    const answer = await raw([head, ...Array.from({ length: 40 }, () => " ")], { gapMs: 150, waitMs: 8_000 });
    expectProblem(answer, 408);
    expect(answer.closedAfterMs).toBeLessThan(4_000);
  });

  it("times out a request head that never completes with 408", async () => {
    const answer = await raw(["GET /healthz HTTP/1.1\r\nHost: x\r\n"], { waitMs: 8_000 });
    expectProblem(answer, 408);
    expect(answer.closedAfterMs).toBeLessThan(4_000);
  });

  it("answers a complete request whose body was read with its own error, not as a client abort", async () => {
    const admin = await newIdentity({ admin: true });
    const body = JSON.stringify({ name: "", timezone: "Mars/Olympus" });
    const answer = await raw([
      `POST /v1/clinics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin.token}\r\nContent-Type: application/json\r\nContent-Length: ${String(body.length)}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expectProblem(answer, 400);
    expect(answer.body.detail).not.toMatch(/client closed/);
    expect(answer.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: "name" })]));
  });

  it("logs a client that hangs up mid-upload as a client abort, not as a database outage", async () => {
    const admin = await newIdentity({ admin: true });
    const before = logLines.length;
    await new Promise<void>((resolve) => {
      const socket = createConnection(port, "127.0.0.1", () => {
        socket.write(
          `POST /v1/clinics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    await new Promise((r) => setTimeout(r, 300));
    const lines = logLines.slice(before);
    expect(lines.some((l) => l.msg === "client aborted the request" && l.level === 30)).toBe(true);
    expect(lines.filter((l) => Number(l.level) >= 50 || l.code === "UNAVAILABLE")).toEqual([]);
  });
});
