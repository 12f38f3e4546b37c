// The jobs this service runs in the background, composed once (docs/jobs.md): webhooks following
// their clinics' event feeds and their retries, reminders, confirmation expiries, patient e-mails,
// calendars' syncs and retention, on the job queue of the service's database, and the waitlist
// matcher.
import type { DbHandle } from "@clinic/db";
import {
  type ConfirmationExpiryJob,
  type ReminderSweepJob,
  type ReminderSweepRun,
  ensureReminderSweeps,
  runConfirmationExpiry,
  runReminderSweep,
} from "./modules/booking/index.ts";
import { AvailabilityCache } from "./modules/availability/index.ts";
import {
  type CalendarSyncJob,
  type WriteBackJob,
  calendarKeyOf,
  defaultCalendarLimits,
  runCalendarSync,
  runCalendarWriteBack,
} from "./modules/calendars/index.ts";
import { JobWorkers, type RetryPolicy, queueNames } from "./modules/jobs/index.ts";
import { type MailSettings, type MessageJob, runMessageSend } from "./modules/messages/index.ts";
import {
  type RetentionJob,
  type RetentionRun,
  ensureRetentionJobs,
  runRetention,
} from "./modules/patientData/index.ts";
import { sweepWaitlists } from "./modules/waitlist/index.ts";
import {
  type DeliveryJob,
  type DeliverySettings,
  WebhookFeedWorkers,
  runDeliveryAttempts,
} from "./modules/webhooks/index.ts";

export interface WorkerSettings extends DeliverySettings {
  /**
   * How long a webhook whose last batch was short waits before its next batch (WEBHOOK_BATCH_PACE_MS;
   * default 0: at the next look). Events that trickle in then go out several to a batch.
   */
  webhookBatchPaceMs?: number | undefined;
  /** How often an idle process looks for due jobs (default 250 ms). */
  pollIntervalMs?: number | undefined;
  /** The queue's retries and lease (docs/jobs.md#retries); defaults for what is absent. */
  jobRetry?: Partial<RetryPolicy> | undefined;
  onError?: (error: Error) => void;
  /** How often this process runs the waitlist matcher (default 5 s; docs/waitlist.md#the-matcher). */
  waitlistIntervalMs?: number;
  /** The clock of the matcher and of the e-mails' links (tests pin it); default the wall clock. */
  now?: (() => Date) | undefined;
  /** How patient e-mails leave (docs/messages.md); absent: they are recorded `skipped`. */
  mail?: Omit<MailSettings, "retryDelaysS"> | undefined;
  /**
   * Providers' own calendars (docs/calendars.md): CALENDAR_KEY (unset: the development key, or none
   * in production), the sync interval and the stale limit in seconds (defaults 300 and 3600).
   */
  calendars?:
    { key: string | undefined; production: boolean; syncIntervalS?: number; staleAfterS?: number } | undefined;
  /** GUEST_ADDRESS_KEY: keys the pseudonyms of retention (docs/patient-data.md#retention), as of an erasure. */
  guestAddressKey?: string | undefined;
  /** Told of every retention run (/metrics). */
  onRetention?: ((run: RetentionRun) => void) | undefined;
  /** Told of every run of a clinic's reminder sweep (tests). */
  onReminderSweep?: ((run: ReminderSweepRun) => void) | undefined;
  /** How often this process makes sure every clinic with a retention period, or with reminders, has its job (default 1 h). */
  retentionEnsureIntervalMs?: number | undefined;
}

/** Starts this process's workers; `stop()` waits for running jobs. */
export function startWorkers(handle: DbHandle, settings: WorkerSettings): JobWorkers {
  const workers = new JobWorkers(handle, {
    pollIntervalMs: settings.pollIntervalMs,
    retry: settings.jobRetry,
    onError: settings.onError,
  });
  // Webhooks follow their clinics' event feeds, each from its own cursor (docs/events.md#webhooks);
  // a booking writes nothing for them.
  // The queue's look finds the webhooks behind in the same statement as the due clinics.
  workers.alongside(
    new WebhookFeedWorkers(handle.db, {
      ...settings,
      leaseS: settings.jobRetry?.leaseS ?? 120,
      paceMs: settings.webhookBatchPaceMs ?? 0,
      onError: settings.onError,
    }),
  );
  // Retries of attempts that failed, and H6/H7's attempts: a claim's deliveries together, one read
  // and one write for all of them (docs/jobs.md).
  workers.workBatches<DeliveryJob>(queueNames.webhookDelivery, (list) =>
    runDeliveryAttempts(
      handle.db,
      list.map((job) => job.data),
      settings,
    ),
  );
  workers.work<ConfirmationExpiryJob>(queueNames.confirmationExpiry, async (job) => {
    await runConfirmationExpiry(handle.db, job.data);
  });
  const clock = settings.now ?? (() => new Date());
  const mail: MailSettings = {
    transport: settings.mail?.transport ?? null,
    from: settings.mail?.from ?? "Clinic Scheduling <no-reply@localhost>",
    publicUrl: settings.mail?.publicUrl ?? "http://127.0.0.1:3000",
    retryDelaysS: settings.retryDelaysS,
  };
  workers.work<MessageJob>(queueNames.messageSend, (job) => runMessageSend(handle.db, job.data, mail, clock()));
  // Providers' own calendars: each calendar's one recurring sync job, and write-back (docs/calendars.md).
  const calendarSettings = {
    key: calendarKeyOf({ key: settings.calendars?.key, production: settings.calendars?.production ?? false }),
    allowPrivate: settings.allowPrivate,
    syncIntervalS: settings.calendars?.syncIntervalS ?? 300,
    staleAfterS: settings.calendars?.staleAfterS ?? 3600,
    ...defaultCalendarLimits,
    now: clock,
  };
  workers.work<CalendarSyncJob>(queueNames.calendarSync, (job) =>
    runCalendarSync(handle.db, calendarSettings, job.data),
  );
  workers.work<WriteBackJob>(queueNames.calendarWriteBack, (job) =>
    runCalendarWriteBack(handle.db, { ...calendarSettings, retryDelaysS: settings.retryDelaysS }, job),
  );
  // Retention: each clinic's one recurring job (docs/patient-data.md#retention), its batches' time
  // budget well inside the job's lease; and the hourly look that restarts a missing or failed one.
  const leaseS = settings.jobRetry?.leaseS ?? 120;
  workers.work<RetentionJob>(queueNames.patientRetention, (job) =>
    runRetention(
      handle.db,
      {
        key: settings.guestAddressKey,
        now: clock,
        budgetMs: Math.min(20_000, leaseS * 250),
        onRun: settings.onRetention,
      },
      job.data,
    ),
  );
  workers.runEvery(settings.retentionEnsureIntervalMs ?? 3_600_000, () => ensureRetentionJobs(handle.db));
  // Reminders: each clinic's one recurring sweep (docs/events.md#reminders), every 15 s, its pages'
  // time budget well inside the job's lease; and the hourly look that restarts a missing or failed one.
  workers.work<ReminderSweepJob>(queueNames.reminderSweep, (job) =>
    runReminderSweep(
      handle.db,
      { now: clock, budgetMs: Math.min(10_000, leaseS * 250), onRun: settings.onReminderSweep },
      job.data,
    ),
  );
  workers.runEvery(settings.retentionEnsureIntervalMs ?? 3_600_000, () => ensureReminderSweeps(handle.db, clock()));
  // The waitlist matcher sweeps every clinic with waiting or offered entries (docs/waitlist.md#the-matcher).
  const waitlistCache = new AvailabilityCache({ maxEntries: 500 });
  workers.runEvery(settings.waitlistIntervalMs ?? 5_000, () =>
    sweepWaitlists(handle.db, waitlistCache, clock(), settings.onError),
  );
  return workers;
}
