// The calendars' outbound fetch (docs/calendars.md): a WHATWG-compatible fetch on node:http(s) with
// the webhooks' outbound rules — no internal address, https only, no redirect followed — and limits
// on time and size, exercised against a local server.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../src/modules/calendars/fetch.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const maxBytes = 1000;
const seen: Seen[] = [];
let server: Server;
let base: string;
let port: number;

const routes: Record<string, (response: ServerResponse, request: Seen) => void> = {
  "/echo": (response, request) => {
    response.writeHead(207, "Multi-Status", {
      "content-type": "application/xml; charset=utf-8",
      etag: '"v1"',
      "x-many": ["one", "two"],
    });
    response.end(JSON.stringify(request));
  },
  "/calendar.ics": (response) => {
    response.writeHead(200, { "content-type": "text/calendar", "last-modified": "Tue, 01 Apr 2025 10:00:00 GMT" });
    response.end("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
  },
  "/not-modified": (response) => {
    response.writeHead(304, { etag: '"v1"' });
    response.end();
  },
  "/moved": (response) => {
    response.writeHead(302, { location: "/echo" });
    response.end("moved");
  },
  "/permanent": (response) => {
    response.writeHead(301, { location: "https://elsewhere.example/" });
    response.end();
  },
  "/hang": () => {
    // Never answers.
  },
  "/trickle": (response) => {
    // Answers the headers, then never ends the body.
    response.writeHead(200, { "content-type": "text/calendar" });
    response.write("BEGIN:VCALENDAR\r\n");
  },
  "/big-declared": (response) => {
    response.writeHead(200, { "content-type": "text/calendar", "content-length": String(maxBytes + 1) });
    response.end("x".repeat(maxBytes + 1));
  },
  "/big-streamed": (response) => {
    // Chunked, no Content-Length: only counting the bytes catches it.
    response.writeHead(200, { "content-type": "text/calendar" });
    for (let i = 0; i < 5; i++) response.write("x".repeat(300));
    response.end();
  },
  "/exactly-max": (response) => {
    response.writeHead(200, { "content-type": "text/calendar" });
    response.end("y".repeat(maxBytes));
  },
  "/five-mb": (response) => {
    const size = 5 * 1024 * 1024 + 1;
    response.writeHead(200, { "content-length": String(size) });
    response.end(Buffer.alloc(size));
  },
  "/gzip": (response) => {
    response.writeHead(200, { "content-type": "text/calendar", "content-encoding": "gzip" });
    response.end(gzipSync("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"));
  },
  "/gzip-bomb": (response) => {
    // Small on the wire, over maxBytes once decompressed.
    response.writeHead(200, { "content-type": "text/calendar", "content-encoding": "gzip" });
    response.end(gzipSync("z".repeat(maxBytes * 50)));
  },
};

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://local");
      const entry: Seen = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(entry);
      const route = routes[url.pathname];
      if (route) route(response, entry);
      else {
        response.writeHead(404);
        response.end("no such path");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${String(port)}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const local = guardedFetch({ allowPrivate: true, timeoutMs: 5000, maxBytes });
const echoed = async (response: Response) => JSON.parse(await response.text()) as Seen;

/** The rejection of a call, to look at its message and everything else it carries. */
async function failureOf(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`rejected with a non-Error: ${String(error)}`);
  }
  throw new Error("the call did not fail");
}

describe("guardedFetch: requests and answers", () => {
  it("GETs a calendar and answers a real Response with status, headers, url and body", async () => {
    const response = await local(`${base}/calendar.ics?token=abc`);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${base}/calendar.ics?token=abc`);
    expect(response.headers.get("content-type")).toBe("text/calendar");
    expect(response.headers.get("last-modified")).toBe("Tue, 01 Apr 2025 10:00:00 GMT");
    expect(await response.text()).toBe("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
    const request = seen.at(-1);
    expect(request?.method).toBe("GET");
    expect(request?.url).toBe("/calendar.ics?token=abc");
    expect(request?.headers.accept).toBe("*/*");
  });

  it("sends PROPFIND with a body and a headers record, and answers the status, status text and repeated headers", async () => {
    const xml = '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>';
    const response = await local(`${base}/echo`, {
      method: "PROPFIND",
      headers: { Depth: "1", "Content-Type": "text/xml;charset=UTF-8", Authorization: "Basic dTpw" },
      body: xml,
    });
    expect(response.status).toBe(207);
    expect(response.statusText).toBe("Multi-Status");
    expect(response.headers.get("etag")).toBe('"v1"');
    expect(response.headers.get("x-many")).toBe("one, two");
    const request = await echoed(response);
    expect(request.method).toBe("PROPFIND");
    expect(request.body).toBe(xml);
    expect(request.headers.depth).toBe("1");
    expect(request.headers["content-type"]).toBe("text/xml;charset=UTF-8");
    expect(request.headers.authorization).toBe("Basic dTpw");
    expect(request.headers["content-length"]).toBe(String(Buffer.byteLength(xml)));
  });

  it("sends REPORT with a Buffer body and a Headers object, PUT with a headers array, and a Request input", async () => {
    const report = Buffer.from("<c:calendar-query xmlns:c='urn:ietf:params:xml:ns:caldav'>é</c:calendar-query>");
    const reported = await echoed(
      await local(new URL(`${base}/echo`), {
        method: "REPORT",
        headers: new Headers({ depth: "1", "content-type": "application/xml" }),
        body: report,
      }),
    );
    expect(reported).toMatchObject({ method: "REPORT", body: report.toString("utf8") });
    expect(reported.headers).toMatchObject({ depth: "1", "content-type": "application/xml" });

    const put = await echoed(
      await local(`${base}/echo`, {
        method: "put",
        headers: [
          ["content-type", "text/calendar; charset=utf-8"],
          ["if-match", '"v0"'],
        ],
        body: "BEGIN:VCALENDAR",
      }),
    );
    expect(put).toMatchObject({ method: "PUT", body: "BEGIN:VCALENDAR" });
    expect(put.headers).toMatchObject({ "content-type": "text/calendar; charset=utf-8", "if-match": '"v0"' });

    const fromRequest = await echoed(
      await local(new Request(`${base}/echo`, { method: "DELETE", headers: { "if-match": '"v1"' }, body: "gone" })),
    );
    expect(fromRequest).toMatchObject({ method: "DELETE", body: "gone" });
    expect(fromRequest.headers["if-match"]).toBe('"v1"');
  });

  it("sends a URL's user and password as Basic authorization, and leaves them out of Response.url", async () => {
    const response = await local(`http://alice:s%40cret@127.0.0.1:${String(port)}/echo`);
    const request = await echoed(response);
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from("alice:s@cret").toString("base64")}`);
    expect(response.url).toBe(`${base}/echo`);
  });

  it("decompresses a gzip answer as fetch does", async () => {
    const response = await local(`${base}/gzip`, { headers: { "accept-encoding": "gzip" } });
    expect(await response.text()).toBe("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
  });
});

describe("guardedFetch: no redirect followed", () => {
  it("answers a 304 as is, without a body", async () => {
    const response = await local(`${base}/not-modified`, { headers: { "if-none-match": '"v1"' } });
    expect(response.status).toBe(304);
    expect(response.headers.get("etag")).toBe('"v1"');
    expect(response.body).toBeNull();
  });

  it("answers a 302 and a 301 with their Location instead of following them", async () => {
    const before = seen.length;
    const found = await local(`${base}/moved`);
    expect(found.status).toBe(302);
    expect(found.headers.get("location")).toBe("/echo");
    expect(await found.text()).toBe("moved");
    const moved = await local(`${base}/permanent`, { redirect: "follow" });
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe("https://elsewhere.example/");
    // Two requests reached the server: neither redirect was followed to /echo.
    expect(seen.slice(before).map((s) => s.url)).toEqual(["/moved", "/permanent"]);
  });
});

describe("guardedFetch: limits", () => {
  it("gives up on a server that never answers after timeoutMs", async () => {
    const quick = guardedFetch({ allowPrivate: true, timeoutMs: 300, maxBytes });
    const started = Date.now();
    const error = await failureOf(quick(`${base}/hang`));
    expect(error.message).toContain("no answer within 0.3 s");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("counts reading the answer within the time limit too", async () => {
    const quick = guardedFetch({ allowPrivate: true, timeoutMs: 300, maxBytes });
    const error = await failureOf(quick(`${base}/trickle`));
    expect(error.message).toContain("no answer within 0.3 s");
  });

  it("is aborted by its signal, as fetch is", async () => {
    const controller = new AbortController();
    const call = local(`${base}/hang`, { signal: controller.signal });
    setTimeout(() => {
      controller.abort();
    }, 50);
    expect((await failureOf(call)).name).toBe("AbortError");
  });

  it("refuses an answer whose Content-Length is over maxBytes", async () => {
    const error = await failureOf(local(`${base}/big-declared`));
    expect(error.message).toBe("the answer is larger than 1000 bytes");
  });

  it("refuses an answer without Content-Length once its bytes pass maxBytes, and keeps one of exactly maxBytes", async () => {
    expect((await failureOf(local(`${base}/big-streamed`))).message).toBe("the answer is larger than 1000 bytes");
    expect((await (await local(`${base}/exactly-max`)).text()).length).toBe(maxBytes);
  });

  it("counts the decompressed bytes", async () => {
    const error = await failureOf(local(`${base}/gzip-bomb`, { headers: { "accept-encoding": "gzip" } }));
    expect(error.message).toBe("the answer is larger than 1000 bytes");
  });

  it("says the limits in the units they were given in", async () => {
    const fiveMb = guardedFetch({ allowPrivate: true, timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 });
    expect((await failureOf(fiveMb(`${base}/five-mb`))).message).toBe("the answer is larger than 5 MB");
    const oneMs = guardedFetch({ allowPrivate: true, timeoutMs: 1, maxBytes });
    expect((await failureOf(oneMs(`${base}/hang`))).message).toBe("no answer within 0.001 s");
  });
});

describe("guardedFetch: outbound rules", () => {
  const strict = guardedFetch({ allowPrivate: false, timeoutMs: 2000, maxBytes });

  it("refuses a literal internal address without connecting", async () => {
    // A path of this test's own: a straggler of an earlier test may still reach the server meanwhile.
    const path = `/echo-literal-${crypto.randomUUID()}`;
    for (const host of ["127.0.0.1", "[::1]", "10.1.2.3", "169.254.169.254", "[::ffff:127.0.0.1]"]) {
      const error = await failureOf(strict(`https://${host}:${String(port)}${path}`));
      expect(error.message).toMatch(/internal address/);
    }
    expect(seen.map((s) => s.url)).not.toContain(path);
  });

  it("refuses a name that resolves to an internal address (checked when connecting)", async () => {
    const path = `/echo-named-${crypto.randomUUID()}`;
    const error = await failureOf(strict(`https://localhost:${String(port)}${path}`));
    expect(error.message).toBe("refused: localhost resolves to an internal address");
    expect(seen.map((s) => s.url)).not.toContain(path);
  });

  it("allows only https unless private addresses are allowed, and only http(s) at all", async () => {
    expect((await failureOf(strict("http://calendar.example.com/cal.ics"))).message).toBe("refused: not an https URL");
    expect((await failureOf(local("ftp://127.0.0.1/cal.ics"))).message).toBe("refused: not an http(s) URL");
    expect((await failureOf(local("file:///etc/passwd"))).message).toBe("refused: not an http(s) URL");
    expect((await local(`${base}/calendar.ics`)).status).toBe(200);
  });

  it("never puts the Authorization header, the URL's user, password or query string in an error", async () => {
    const secrets = ["hunter2", "s3cret-token", "alice", "Bearer", "private-path"];
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const quick = guardedFetch({ allowPrivate: true, timeoutMs: 300, maxBytes });
    const calls = [
      () => quick(`http://alice:hunter2@127.0.0.1:${String(closedPort)}/private-path?key=s3cret-token`),
      () =>
        quick(`http://alice:hunter2@127.0.0.1:${String(port)}/hang?key=s3cret-token`, {
          headers: { authorization: "Bearer hunter2" },
        }),
      () => local(`http://alice:hunter2@127.0.0.1:${String(port)}/big-streamed?key=s3cret-token`),
      () => strict(`https://alice:hunter2@127.0.0.1/private-path?key=s3cret-token`),
      () => strict(`http://alice:hunter2@calendar.example.com/private-path?key=s3cret-token`),
      () => local("http://alice:hunter2@[not-a-host/private-path?key=s3cret-token"),
    ];
    for (const call of calls) {
      const error = await failureOf(call());
      const everything = `${error.message}\n${inspect(error, { depth: 5, showHidden: true })}`;
      for (const secret of secrets) expect(everything).not.toContain(secret);
    }
  });
});
