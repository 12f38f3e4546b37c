// Failures below the routes, answered in the same problem+json as everything else
// (docs/errors.md): what Node's HTTP parser refuses (oversized head, garbage, a request not
// received in time), what Fastify's router refuses (bad %-encoding, an over-long path segment),
// and a client that hangs up mid-request.
import { STATUS_CODES, type ServerOptions } from "node:http";
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { isFhirUrl, sendOutcome } from "./fhir/outcome.ts";
import { problem, problemContentType } from "./problem.ts";

/** How long a client may take: for the head, and for the whole request including its body. */
export interface RequestLimits {
  /** The whole request (head and body) must arrive within this; then 408. */
  requestTimeoutMs: number;
  /** The head must arrive within this (at most the request timeout); then 408. */
  headersTimeoutMs?: number | undefined;
  /** How often Node checks the two timeouts above (so a late request waits at most this much longer). */
  checkIntervalMs?: number | undefined;
}

/** A status line, headers and problem+json body written straight to a socket (no request object exists). */
function writeProblem(socket: Socket, status: number, detail: string): void {
  const body = JSON.stringify(problem(status, "VALIDATION_FAILED", detail));
  socket.write(
    `HTTP/1.1 ${String(status)} ${STATUS_CODES[status] ?? "Error"}\r\nContent-Type: ${problemContentType}\r\nContent-Length: ${String(Buffer.byteLength(body))}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const parserFailures: Record<string, { status: number; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: "the request was not received in time" },
  ERR_HTTP_HEADERS_TIMEOUT: { status: 408, detail: "the request head was not received in time" },
  HPE_HEADER_OVERFLOW: { status: 431, detail: "the request head is too large" },
};

/** Fastify's options for the transport: timeouts, and problem+json for what the parser and router refuse. */
export function transportOptions(limits: RequestLimits): {
  requestTimeout: number;
  http: ServerOptions;
  clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => void;
  frameworkErrors: (
    error: Error & { code?: string; statusCode?: number },
    request: FastifyRequest,
    reply: FastifyReply,
  ) => void;
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs ?? 10_000, limits.requestTimeoutMs),
      connectionsCheckingInterval: limits.checkIntervalMs ?? 1_000,
    },
    clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
      // A reset connection has nobody left to answer.
      if (error.code === "ECONNRESET" || socket.destroyed) return;
      const failure = parserFailures[error.code ?? ""] ?? {
        status: 400,
        detail: "the request could not be parsed as HTTP",
      };
      if (socket.writable) writeProblem(socket, failure.status, failure.detail);
      socket.destroy();
    },
    frameworkErrors(
      error: Error & { code?: string; statusCode?: number },
      request: FastifyRequest,
      reply: FastifyReply,
    ) {
      // The message echoes the whole path, which may be kilobytes long: say what is wrong instead.
      const status = error.statusCode ?? 400;
      const detail =
        error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? "a path segment is longer than the server accepts"
          : error.code === "FST_ERR_BAD_URL"
            ? "the path is not valid (malformed %-encoding)"
            : "the request could not be routed";
      // Under the FHIR facade every error is an OperationOutcome (CONTRACT §16), this one too.
      if (isFhirUrl(request.url)) {
        void sendOutcome(reply, status, "VALIDATION_FAILED", detail);
        return;
      }
      void reply
        .code(status)
        .type(problemContentType)
        .send(problem(status, "VALIDATION_FAILED", detail));
    },
  };
}

/** True when the client hung up before the request was read: nobody is waiting for an answer. */
export function clientAborted(request: FastifyRequest): boolean {
  // `destroyed` alone is no sign: a request whose body was read to the end is destroyed too.
  return !request.raw.complete && (request.raw.readableAborted || request.raw.destroyed);
}
