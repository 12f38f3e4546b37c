// How a rendered message leaves: nodemailer over SMTP (docs/messages.md#sending).
import nodemailer from "nodemailer";

/** One e-mail as handed to the transport. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Deduplication by the receiving side: the same message id on every attempt. */
  messageId: string;
  attachments: { filename: string; content: string; contentType: string }[];
}

/** Sends one e-mail; throws when the server refused or could not be reached. */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * A transport to the SMTP server of `url` (`smtp://user:password@host:port`, or `smtps://` for
 * implicit TLS; nodemailer reads both). Connections are pooled and reused across messages.
 */
export function smtpTransport(url: string, options: { timeoutMs?: number } = {}): MailTransport {
  const timeout = options.timeoutMs ?? 15_000;
  const parsed = new URL(url);
  const transporter = nodemailer.createTransport({
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : parsed.protocol === "smtps:" ? 465 : 587,
    secure: parsed.protocol === "smtps:",
    auth: parsed.username
      ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) }
      : undefined,
    pool: true,
    maxConnections: 2,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    // A local catcher (development, tests) speaks plain SMTP on loopback.
    ignoreTLS: parsed.searchParams.get("tls") === "off",
  });
  return {
    async send(mail) {
      await transporter.sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
        attachments: mail.attachments,
      });
    },
    close() {
      transporter.close();
    },
  };
}
