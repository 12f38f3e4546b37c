import { lookup } from "node:dns/promises";
import { type LookupAddress, lookup as lookupCallback } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, type LookupFunction, isIP } from "node:net";
import { validationFailed } from "../../errors.ts";

/**
 * Outbound requests to webhook receivers (docs/events.md#outbound-safety): https only, and never
 * to an internal address — checked when a webhook is saved and again for the address each
 * delivery actually connects to (DNS can change between the two), no redirects followed, a 10 s
 * limit, and no more of the answer kept than a short excerpt. `allowPrivate` lifts the address
 * and scheme rules for development and tests (WEBHOOK_ALLOW_PRIVATE=true).
 */

/** Loopback, private, link-local, unique-local, CGNAT, multicast and other non-public ranges. */
const internal = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  internal.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  internal.addSubnet(network, prefix, "ipv6");
}

/** True for an address a webhook must never reach (an IPv4-mapped IPv6 address is judged as the IPv4 one). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return internal.check(mapped[1], "ipv4");
  const family = isIP(address);
  if (family === 4) return internal.check(address, "ipv4");
  if (family === 6) return internal.check(address, "ipv6") || /^::ffff:/i.test(address);
  return true;
}

/** Validates a receiver URL when a webhook is created (H1) or its url changed (H3): https, and a host whose every address is public (400 otherwise). */
export async function assertSafeWebhookUrl(text: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationFailed("url", "must be an absolute URL");
  }
  if (url.username || url.password) throw validationFailed("url", "must not carry credentials");
  if (allowPrivate) {
    if (url.protocol !== "https:" && url.protocol !== "http:") throw validationFailed("url", "must be an http(s) URL");
    return url;
  }
  if (url.protocol !== "https:") throw validationFailed("url", "must be an https URL");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: LookupAddress[];
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await lookup(host, { all: true, verbatim: true });
  } catch {
    throw validationFailed("url", "the host does not resolve");
  }
  if (addresses.length === 0 || addresses.some((a) => isInternalAddress(a.address))) {
    throw validationFailed("url", "must not point to a loopback, private, link-local or otherwise internal address");
  }
  return url;
}

/**
 * A `lookup` for node:http(s) and node:net that refuses a host any of whose addresses is internal,
 * so the check runs on the address actually connected to (DNS can change after a URL was
 * validated). Also used by the calendars' guarded fetch.
 */
export const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
  lookupCallback(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
    if (error) {
      callback(error, "", 4);
      return;
    }
    const list = addresses;
    const unsafe = list.find((a) => isInternalAddress(a.address));
    const [first] = list;
    if (unsafe || !first) callback(new Error(`refused: ${hostname} resolves to an internal address`), "", 4);
    else if (lookupOptions.all) callback(null, list, 4);
    else callback(null, first.address, first.family);
  });
};

/** What a delivery attempt came to. */
export interface PostResult {
  /** The HTTP status, when an answer came. */
  status?: number;
  /** What went wrong, or an excerpt of a non-2xx answer. */
  error?: string;
}

const excerptBytes = 300;

/**
 * POSTs `body` to `url` with `headers`, refusing to connect to an internal address (the check
 * runs on the address actually connected to), following no redirect, and giving up after
 * `timeoutMs`. Never throws: the result says what happened.
 */
export function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; timeoutMs: number },
): Promise<PostResult> {
  return new Promise((resolve) => {
    if (!options.allowPrivate && url.protocol !== "https:") {
      resolve({ error: "refused: not an https URL" });
      return;
    }
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(
      url,
      {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "clinic-scheduling-webhooks/1",
        },
        timeout: options.timeoutMs,
        lookup: options.allowPrivate ? undefined : guardedLookup,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept < excerptBytes) {
            chunks.push(chunk);
            kept += chunk.length;
          }
        });
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          const excerpt = Buffer.concat(chunks).toString("utf8").slice(0, excerptBytes);
          resolve(
            status >= 200 && status < 300
              ? { status }
              : {
                  status,
                  error:
                    status >= 300 && status < 400
                      ? `redirect to ${response.headers.location ?? "?"} not followed`
                      : excerpt || `HTTP ${String(status)}`,
                },
          );
        });
        response.on("error", (error) => {
          resolve({ status: response.statusCode ?? 0, error: error.message });
        });
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${String(options.timeoutMs / 1000)} s`)));
    request.on("error", (error) => {
      resolve({ error: error.message });
    });
    request.end(body);
  });
}
