// The jobs this service runs in the background, composed once (docs/events.md#jobs): webhook
// delivery attempts and appointment reminders, on the durable queue of the service's database.
import type { DbHandle } from "@clinic/db";
import {
  type ConfirmationExpiryJob,
  type ReminderJob,
  runConfirmationExpiry,
  runReminder,
} from "./modules/booking/index.ts";
import { AvailabilityCache } from "./modules/availability/index.ts";
import { JobWorkers, queueNames } from "./modules/jobs/index.ts";
import { type MailSettings, type MessageJob, runMessageSend } from "./modules/messages/index.ts";
import { sweepWaitlists } from "./modules/waitlist/index.ts";
import { type DeliveryJob, type DeliverySettings, runDeliveryAttempt } from "./modules/webhooks/index.ts";

export interface WorkerSettings extends DeliverySettings {
  pollingIntervalSeconds?: number;
  /** How often this process hands the outbox to the queue (default 200 ms). */
  outboxIntervalMs?: number;
  onError?: (error: Error) => void;
  /** How often this process runs the waitlist matcher (default 5 s; docs/waitlist.md#the-matcher). */
  waitlistIntervalMs?: number;
  /** The clock of the matcher and of the e-mails' links (tests pin it); default the wall clock. */
  now?: (() => Date) | undefined;
  /** How patient e-mails leave (docs/messages.md); absent: they are recorded `skipped`. */
  mail?: Omit<MailSettings, "retryDelaysS"> | undefined;
}

/** Starts this process's workers; `stop()` waits for running jobs. */
export async function startWorkers(handle: DbHandle, settings: WorkerSettings): Promise<JobWorkers> {
  const workers = new JobWorkers(handle, {
    pollingIntervalSeconds: settings.pollingIntervalSeconds,
    onError: settings.onError,
  });
  await workers.work<DeliveryJob>(queueNames.webhookDelivery, (job) =>
    runDeliveryAttempt(handle.db, job.data, settings),
  );
  await workers.work<ReminderJob>(queueNames.appointmentReminder, (job) => runReminder(handle.db, job.data));
  await workers.work<ConfirmationExpiryJob>(queueNames.confirmationExpiry, async (job) => {
    await runConfirmationExpiry(handle.db, job.data);
  });
  const clock = settings.now ?? (() => new Date());
  const mail: MailSettings = {
    transport: settings.mail?.transport ?? null,
    from: settings.mail?.from ?? "Clinic Scheduling <no-reply@localhost>",
    publicUrl: settings.mail?.publicUrl ?? "http://127.0.0.1:3000",
    retryDelaysS: settings.retryDelaysS,
  };
  await workers.work<MessageJob>(queueNames.messageSend, (job) => runMessageSend(handle.db, job.data, mail, clock()));
  // Jobs written by changes wait in their clinic's outbox until handed to the queue (docs/performance.md).
  workers.dispatchOutboxEvery(handle.db, settings.outboxIntervalMs ?? 200);
  // The waitlist matcher sweeps every clinic with waiting or offered entries (docs/waitlist.md#the-matcher).
  const waitlistCache = new AvailabilityCache({ maxEntries: 500 });
  workers.runEvery(settings.waitlistIntervalMs ?? 5_000, () =>
    sweepWaitlists(handle.db, waitlistCache, clock(), settings.onError),
  );
  return workers;
}
