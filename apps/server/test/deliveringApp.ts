// An app whose workers deliver for real, for a test file that follows personal data into every
// output (questions.http.test.ts, erasure.http.test.ts): e-mails through SMTP to a catcher, webhook
// deliveries to a receiver on 127.0.0.1 (private addresses allowed, quick retries), the waitlist
// matching, on a database of the file's own (its workers take no other file's jobs), at a pinned now.
import { afterAll } from "vitest";
import { smtpTransport } from "@clinic/api";
import { startMailCatcher } from "../src/mailCatcher.ts";
import { useTestApp } from "./helpers.ts";
import { useWebhookReceiver } from "./webhookReceiver.ts";

export async function useDeliveringApp(options: { now: Date; ownDatabase: string }) {
  const catcher = await startMailCatcher();
  afterAll(() => catcher.close());
  const receiver = useWebhookReceiver();
  const t = useTestApp(
    {
      now: () => options.now,
      workers: true,
      waitlistIntervalMs: 300,
      config: {
        allowedOrigins: [],
        rateLimit: { max: 100_000, windowMs: 60_000 },
        logLevel: "silent",
        jobPollIntervalMs: 300,
        webhooks: { allowPrivate: true, retryDelaysS: [1, 1, 2, 2, 5] },
      },
      mail: {
        transport: smtpTransport(catcher.url),
        from: "Praxis <no-reply@clinic.example>",
        publicUrl: "https://clinic.example",
        catcher,
      },
    },
    { ownDatabase: options.ownDatabase },
  );
  return { t, catcher, receiver };
}
