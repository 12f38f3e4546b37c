// A local SMTP server that keeps what it receives, for development starts without SMTP_URL and for
// tests (docs/messages.md#development): the service sends to it over real SMTP, and /dev/mail shows
// each e-mail as the patient would get it.
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { type AddressObject, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** An e-mail as the catcher received and parsed it. */
export interface CaughtMail {
  /** Its place in the catcher, from 1. */
  seq: number;
  receivedAt: Date;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string | undefined;
  messageId: string | undefined;
  attachments: { filename: string; contentType: string; content: string }[];
}

export interface MailCatcher {
  /** The SMTP URL to send to (plain SMTP on loopback). */
  readonly url: string;
  /** Everything received, oldest first (the newest `limit`). */
  readonly mails: readonly CaughtMail[];
  /** Resolves with the first mail, received from now on or already, that `match` accepts. */
  waitFor(match: (mail: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

const addresses = (value: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((a) => a.value.map((v) => v.address ?? ""));

/** Starts a catcher on 127.0.0.1 (a free port unless given), keeping the newest `limit` mails. */
export async function startMailCatcher(options: { port?: number; limit?: number } = {}): Promise<MailCatcher> {
  const limit = options.limit ?? 500;
  const mails: CaughtMail[] = [];
  const waiters = new Set<{ match: (mail: CaughtMail) => boolean; resolve: (mail: CaughtMail) => void }>();
  let seq = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    size: 10 * 1024 * 1024,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          seq += 1;
          const mail: CaughtMail = {
            seq,
            receivedAt: new Date(),
            from: addresses(parsed.from).join(", "),
            to: addresses(parsed.to),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: typeof parsed.html === "string" ? parsed.html : undefined,
            messageId: parsed.messageId,
            attachments: parsed.attachments.map((a) => ({
              filename: a.filename ?? "attachment",
              contentType: a.contentType,
              content: a.content.toString("utf8"),
            })),
          };
          mails.push(mail);
          if (mails.length > limit) mails.shift();
          for (const waiter of waiters) {
            if (waiter.match(mail)) {
              waiters.delete(waiter);
              waiter.resolve(mail);
            }
          }
          callback();
        })
        .catch((error: unknown) => {
          callback(error instanceof Error ? error : new Error(String(error)));
        });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // Exclusive: in a cluster worker (WORKERS > 1) each process keeps its own catcher, instead of
    // sharing one port through the primary.
    server.listen({ port: options.port ?? 0, host: "127.0.0.1", exclusive: true }, () => {
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${String(port)}?tls=off`,
    mails,
    waitFor(match, timeoutMs = 15_000) {
      const found = mails.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve };
        waiters.add(waiter);
        setTimeout(() => {
          if (waiters.delete(waiter)) reject(new Error(`no matching e-mail within ${String(timeoutMs)} ms`));
        }, timeoutMs).unref();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

const escape = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/**
 * `/dev/mail` (newest first, each with its text, links and attachments), `/dev/mail.json` (the same
 * as data) and `/dev/mail/{seq}/{attachment index}` (an attachment). Development only: what a
 * patient would have been sent.
 */
export function registerDevMail(app: FastifyInstance, catcher: MailCatcher): void {
  app.get("/dev/mail.json", () => ({ mails: [...catcher.mails].reverse() }));
  app.get<{ Params: { seq: string; index: string } }>("/dev/mail/:seq/:index", (request, reply) => {
    const mail = catcher.mails.find((m) => String(m.seq) === request.params.seq);
    const attachment = mail?.attachments[Number(request.params.index)];
    if (!attachment) return reply.code(404).type("text/plain").send("no such attachment");
    return reply
      .type(attachment.contentType)
      .header("content-disposition", `attachment; filename="${attachment.filename.replaceAll('"', "")}"`)
      .send(attachment.content);
  });
  app.get("/dev/mail", (_request, reply) => {
    const items = [...catcher.mails]
      .reverse()
      .map((mail) => {
        const text = escape(mail.text).replace(/https?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`);
        const files = mail.attachments
          .map(
            (a, i) =>
              `<li><a href="/dev/mail/${String(mail.seq)}/${String(i)}">${escape(a.filename)}</a> (${escape(a.contentType)})</li>`,
          )
          .join("");
        return `<article><h2>${escape(mail.subject)}</h2><p>To ${escape(mail.to.join(", "))} · from ${escape(mail.from)} · ${mail.receivedAt.toISOString()}</p><pre>${text}</pre>${files ? `<ul>${files}</ul>` : ""}</article>`;
      })
      .join("");
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sent e-mails (development)</title><style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}article{border-top:1px solid #999;padding:.5rem 0}pre{white-space:pre-wrap;font:inherit}</style></head><body><main><h1>Sent e-mails (development)</h1><p>What the service sent patients since this start (a local SMTP catcher: set SMTP_URL to send for real).</p>${items || "<p>Nothing sent yet.</p>"}</main></body></html>`,
      );
  });
}
