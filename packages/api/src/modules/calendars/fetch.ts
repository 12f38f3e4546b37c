// The one way the calendars reach a provider's server (docs/calendars.md): a fetch for ICS
// subscriptions and for tsdav's `fetch` override, with the outbound rules of the webhooks
// (docs/events.md#outbound-safety) and limits on time and size.
import { type IncomingMessage, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { guardedLookup, isInternalAddress } from "../webhooks/index.ts";

export interface GuardedFetchOptions {
  /** Allow http and internal addresses (development and tests: WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** The whole exchange — connecting, sending, and reading the answer to its end — within this. */
  timeoutMs: number;
  /** The most of an answer's body kept (after decompression); a larger answer fails. */
  maxBytes: number;
}

/** Methods fetch normalizes to upper case; any other (PROPFIND, REPORT, ...) is sent as given. */
const normalizedMethods = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);
/** Statuses whose Response must have no body. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * A WHATWG-fetch-compatible function on node:http(s) for calendar servers: http(s) only (https
 * only unless `allowPrivate`), never to an internal address (checked on the literal host and on
 * every address the name resolves to when connecting), no redirect followed (a 3xx is answered as
 * is, as with `redirect: "manual"`), the whole exchange abandoned after `timeoutMs`, and an answer
 * over `maxBytes` refused. The body is read in full before the promise resolves, so every failure
 * rejects the call itself. A URL's user and password are sent as Basic authorization (unless an
 * Authorization header is given). Error messages never carry the URL's path, user, password or
 * query string, nor any header.
 */
export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    let url: URL;
    try {
      url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    } catch {
      // Not the URL's own TypeError: that one carries the text (`input`), credentials included.
      throw new TypeError("refused: not a valid URL");
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new TypeError("refused: not an http(s) URL");
    if (!options.allowPrivate && url.protocol !== "https:") throw new TypeError("refused: not an https URL");
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // A literal address is connected to without a lookup, so guardedLookup never sees it.
    if (!options.allowPrivate && isIP(host) !== 0 && isInternalAddress(host))
      throw new TypeError(`refused: ${host} is an internal address`);

    const givenMethod = init?.method ?? request?.method ?? "GET";
    const method = normalizedMethods.has(givenMethod.toUpperCase()) ? givenMethod.toUpperCase() : givenMethod;
    const headers = new Headers(init?.headers ?? request?.headers);
    const body = await bodyOf(
      init?.body !== undefined ? init.body : request?.body ? await request.arrayBuffer() : null,
      headers,
    );
    if (body && (method === "GET" || method === "HEAD")) throw new TypeError(`a ${method} request cannot have a body`);
    if (body) headers.set("content-length", String(body.length));
    if ((url.username || url.password) && !headers.has("authorization")) {
      const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      headers.set("authorization", `Basic ${Buffer.from(user).toString("base64")}`);
    }
    if (!headers.has("accept")) headers.set("accept", "*/*");
    if (!headers.has("user-agent")) headers.set("user-agent", "clinic-scheduling-calendars/1");
    const signal = init?.signal ?? request?.signal ?? null;
    signal?.throwIfAborted();
    // What Response.url says (tsdav uses it as the href of a non-multistatus answer).
    const responseUrl = new URL(url.href);
    responseUrl.username = "";
    responseUrl.password = "";
    responseUrl.hash = "";

    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      let answer: IncomingMessage | null = null;
      const timer = setTimeout(() => {
        finish({ error: new Error(`no answer within ${String(options.timeoutMs / 1000)} s`) });
      }, options.timeoutMs);
      const finish = (outcome: { response: Response } | { error: unknown }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if ("response" in outcome) {
          resolve(outcome.response);
          return;
        }
        outgoing.destroy();
        answer?.destroy();
        // A rejection reason is an Error here: node's own, an AbortSignal's reason, or ours.
        reject(outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error)));
      };
      const onAbort = () => {
        finish({ error: signal?.reason });
      };
      const tooLarge = () => ({ error: new Error(`the answer is larger than ${sizeText(options.maxBytes)}`) });

      const outgoing = (url.protocol === "https:" ? httpsRequest : httpRequest)(
        {
          protocol: url.protocol,
          hostname: host,
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method,
          headers: Object.fromEntries(headers),
          // A fresh connection each time: no socket pooled under other rules is ever reused.
          agent: false,
          lookup: options.allowPrivate ? undefined : guardedLookup,
        },
        (response) => {
          answer = response;
          const declared = Number(response.headers["content-length"]);
          if (Number.isFinite(declared) && declared > options.maxBytes) {
            finish(tooLarge());
            return;
          }
          const decoded = decoderOf(response);
          const chunks: Buffer[] = [];
          let size = 0;
          decoded.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > options.maxBytes) finish(tooLarge());
            else chunks.push(chunk);
          });
          decoded.on("error", (error) => {
            finish({ error });
          });
          response.on("error", (error) => {
            finish({ error });
          });
          decoded.on("end", () => {
            if (settled) return;
            try {
              finish({ response: responseOf(response, method, Buffer.concat(chunks), responseUrl.href) });
            } catch (error) {
              finish({ error });
            }
          });
        },
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      outgoing.on("error", (error) => {
        finish({ error });
      });
      outgoing.end(body ?? undefined);
    });
  };
}

type BodyInit = NonNullable<RequestInit["body"]>;

/** The request body as bytes; a string gets fetch's default content type. */
async function bodyOf(body: BodyInit | null, headers: Headers): Promise<Buffer | null> {
  if (body === null) return null;
  if (typeof body === "string") {
    if (!headers.has("content-type")) headers.set("content-type", "text/plain;charset=UTF-8");
    return Buffer.from(body, "utf8");
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // Blob, FormData, URLSearchParams, streams: let a Response do fetch's own encoding.
  const encoded = new Response(body);
  const type = encoded.headers.get("content-type");
  if (type && !headers.has("content-type")) headers.set("content-type", type);
  return Buffer.from(await encoded.arrayBuffer());
}

/** The answer's body decompressed as fetch does (gzip, deflate, br), so maxBytes counts what is kept. */
function decoderOf(response: IncomingMessage): Readable {
  const coding = response.headers["content-encoding"]?.trim().toLowerCase();
  const decoder =
    coding === "gzip" || coding === "x-gzip"
      ? createGunzip()
      : coding === "deflate"
        ? createInflate()
        : coding === "br"
          ? createBrotliDecompress()
          : null;
  if (!decoder) return response;
  response.pipe(decoder);
  return decoder;
}

function responseOf(response: IncomingMessage, method: string, body: Buffer, url: string): Response {
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 599) throw new Error(`the server answered with status ${String(status)}`);
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    const value = raw[i + 1];
    if (name === undefined || value === undefined) continue;
    try {
      headers.append(name, value);
    } catch {
      // A header fetch itself would not accept is left out rather than failing the answer.
    }
  }
  const init = { status, statusText: response.statusMessage ?? "", headers };
  // A copy as a plain Uint8Array: a Buffer is a body to Node's types but not to the DOM's (apps/web).
  const content = nullBodyStatuses.has(status) || method === "HEAD" ? null : new Uint8Array(body);
  let answer: Response;
  try {
    answer = new Response(content, init);
  } catch {
    answer = new Response(content, { status, headers });
  }
  Object.defineProperty(answer, "url", { value: url });
  return answer;
}

/** 5242880 → "5 MB", 2048 → "2 KB", 100 → "100 bytes". */
function sizeText(bytes: number): string {
  const round = (n: number) => String(Math.round(n * 10) / 10);
  if (bytes >= 1024 * 1024) return `${round(bytes / (1024 * 1024))} MB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KB`;
  return `${String(bytes)} bytes`;
}
