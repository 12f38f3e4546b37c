// The jobs this service runs in the background, composed once (docs/events.md#jobs): webhook
// delivery attempts and appointment reminders, on the durable queue of the service's database.
import type { DbHandle } from "@clinic/db";
import {
  type ConfirmationExpiryJob,
  type ReminderJob,
  runConfirmationExpiry,
  runReminder,
} from "./modules/booking/index.ts";
import { JobWorkers, queueNames } from "./modules/jobs/index.ts";
import { type DeliveryJob, type DeliverySettings, runDeliveryAttempt } from "./modules/webhooks/index.ts";

export interface WorkerSettings extends DeliverySettings {
  pollingIntervalSeconds?: number;
  /** How often this process hands the outbox to the queue (default 200 ms). */
  outboxIntervalMs?: number;
  onError?: (error: Error) => void;
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
  // Jobs written by changes wait in their clinic's outbox until handed to the queue (docs/performance.md).
  workers.dispatchOutboxEvery(handle.db, settings.outboxIntervalMs ?? 200);
  return workers;
}
