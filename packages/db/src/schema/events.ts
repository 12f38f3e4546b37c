import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { clinicMembers, clinics } from "./clinics.ts";
import { instant, tenantRowId, timestamps } from "./columns.ts";

/**
 * The last event number of each clinic. Recording events locks the clinic's row until the
 * transaction ends, so numbers are handed out in commit order and a reader that has seen number n
 * has seen every committed event below it (docs/events.md#a-gap-free-feed).
 */
export const eventCounters = pgTable("event_counters", {
  clinicId: uuid("clinic_id")
    .primaryKey()
    .references(() => clinics.id, { onDelete: "cascade" }),
  lastSeq: bigint("last_seq", { mode: "number" }).notNull().default(0),
});

/**
 * An appointment as an event keeps it (the `appointment_snapshot` composite type,
 * drizzle/0034_event_snapshots.sql): its shown columns and the service's and provider's names, about
 * 360 bytes where the same facts as JSON take about 970. Written and read only by the database
 * functions (clinic_record_events, clinic_event_data); the text form is what a driver hands back.
 */
const appointmentSnapshot = customType<{ data: string; driverData: string }>({
  dataType: () => "appointment_snapshot",
});

/** The event type that `events_clinic_type_seq_idx` leaves out: the one every booking writes. */
export const unindexedEventType = "appointment.booked";

/**
 * What happened in a clinic, in commit order (`seq`), with the resource after the change: `data`, or
 * for an appointment event written by the SQL writers the appointment's snapshot and in `data` only
 * the event's own keys (docs/events.md#what-an-event-stores). Read `data` as `eventData` does.
 */
export const events = pgTable(
  "events",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    id: tenantRowId(),
    type: text("type").notNull(),
    occurredAt: instant("occurred_at").notNull().defaultNow(),
    data: jsonb("data").$type<Record<string, unknown>>(),
    appointment: appointmentSnapshot("appointment"),
  },
  (t) => [
    primaryKey({ name: "events_pkey", columns: [t.clinicId, t.seq] }),
    check("events_data_present", sql`${t.data} is not null or (${t.appointment}).id is not null`),
    unique("events_clinic_id_key").on(t.clinicId, t.id),
    // Every type but the one a booking writes (issue 49: an index entry less a booking); E1's types
    // filter reads it when it asks for none of those (listEvents), the waitlist matcher for its own
    // type. A filter with appointment.booked reads the feed's order (events_pkey), which that type fills.
    index("events_clinic_type_seq_idx")
      .on(t.clinicId, t.type, t.seq)
      .where(sql`${t.type} <> ${sql.raw(`'${unindexedEventType}'`)}`),
  ],
);

/**
 * An event's `data` as E1 and the webhooks show it (§10): the stored JSON, or the snapshot's JSON with
 * the event's own keys (clinic_event_data). Every TypeScript reader of `events` selects this.
 */
export const eventData = sql<
  Record<string, unknown>
>`clinic_event_data(${events.clinicId}, ${events.data}, ${events.appointment})`.mapWith(events.data);

/** A clinic's webhook subscription (docs/events.md#webhooks). The secret signs every delivery. */
export const webhooks = pgTable(
  "webhooks",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    eventTypes: text("event_types").array().notNull(),
    description: text("description"),
    active: boolean("active").notNull().default(true),
    /** Appointment events are sent with the appointment's answers (§19); default false: never. */
    includeAnswers: boolean("include_answers").notNull().default(false),
    secret: text("secret").notNull(),
    /**
     * The webhook's cursor in its clinic's event feed (docs/events.md#webhooks): every event up to
     * this `seq` has had its first attempt recorded (or did not match `event_types`). Set to the
     * feed's end when the webhook is created or resumed; no default, so that every writer says where
     * a webhook starts.
     */
    feedSeq: bigint("feed_seq", { mode: "number" }).notNull(),
    /** The lease of the worker reading the feed now (one at a time per webhook: feed order). */
    feedLeasedUntil: instant("feed_leased_until"),
    feedLeaseId: uuid("feed_lease_id"),
    /** The last `seq` the current lease took: its events are in flight until the lease records them. */
    feedClaimedSeq: bigint("feed_claimed_seq", { mode: "number" }),
    ...timestamps("webhooks"),
  },
  (t) => [
    primaryKey({ name: "webhooks_pkey", columns: [t.clinicId, t.id] }),
    check("webhooks_url_length", sql`char_length(${t.url}) between 8 and 2048`),
    check("webhooks_description_length", sql`${t.description} is null or char_length(${t.description}) <= 500`),
  ],
);

export const deliveryStatuses = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** One event for one webhook: what is sent, and its attempts so far (the job queue runs them). */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id").notNull(),
    webhookId: uuid("webhook_id").notNull(),
    eventId: uuid("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /**
     * The data of an event that is not in the feed (`webhook.test`); null for a recorded event,
     * whose body is rendered from its row in `events` when it is sent (the same bytes as E1).
     */
    data: jsonb("data").$type<Record<string, unknown>>(),
    status: text("status", { enum: deliveryStatuses }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    nextAttemptAt: instant("next_attempt_at"),
    /** The queued job of the next attempt, while there is one. */
    jobId: uuid("job_id"),
    ...timestamps("webhook_deliveries"),
  },
  (t) => [
    primaryKey({ name: "webhook_deliveries_pkey", columns: [t.clinicId, t.id] }),
    unique("webhook_deliveries_event_key").on(t.clinicId, t.webhookId, t.eventId),
    foreignKey({
      name: "webhook_deliveries_webhook_fk",
      columns: [t.clinicId, t.webhookId],
      foreignColumns: [webhooks.clinicId, webhooks.id],
    }).onDelete("cascade"),
    check("webhook_deliveries_status_check", sql`${t.status} in ('pending', 'succeeded', 'failed')`),
    index("webhook_deliveries_webhook_created_idx").on(t.clinicId, t.webhookId, t.createdAt, t.id),
  ],
);

/**
 * The first attempts of a webhook's feed batch that succeeded, one row per batch (issue 49,
 * docs/events.md#delivery-history): H5 lists each of its events as a `succeeded` delivery of one
 * attempt, `last_status_code` its code, `created_at` and `updated_at` the batch's `sent_at`, its id
 * derived from the webhook's and the event's (`clinic_delivery_id`). Every other outcome (a failed
 * attempt, a retry, H6, `webhook.test`) is a row of `webhook_deliveries`; H6 on one of these moves
 * its event there first. A batch was up to 50 rows of three indexes each.
 */
export const webhookSent = pgTable(
  "webhook_sent",
  {
    clinicId: uuid("clinic_id").notNull(),
    webhookId: uuid("webhook_id").notNull(),
    /** When the batch's outcomes were recorded: after each of its events occurred. */
    sentAt: instant("sent_at").notNull().defaultNow(),
    /** The first event of the batch as recorded (batches of one webhook never share an event). */
    firstSeq: bigint("first_seq", { mode: "number" }).notNull(),
    /**
     * The events (`events.seq` of the clinic) whose first attempt succeeded, ascending; never empty
     * once committed (H6 deletes the batch it empties, in the same transaction).
     */
    seqs: bigint("seqs", { mode: "number" }).array().notNull(),
    /** The HTTP status each of `seqs` was answered with (2xx). */
    codes: smallint("codes").array().notNull(),
  },
  (t) => [
    primaryKey({ name: "webhook_sent_pkey", columns: [t.clinicId, t.webhookId, t.sentAt, t.firstSeq] }),
    foreignKey({
      name: "webhook_sent_webhook_fk",
      columns: [t.clinicId, t.webhookId],
      foreignColumns: [webhooks.clinicId, webhooks.id],
    }).onDelete("cascade"),
    check("webhook_sent_aligned", sql`cardinality(${t.codes}) = cardinality(${t.seqs})`),
  ],
);

/** A calendar subscription: the unguessable token is its credential and is kept only as a hash. */
export const calendarFeeds = pgTable(
  "calendar_feeds",
  {
    id: tenantRowId(),
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    providerId: uuid("provider_id"),
    includePatientNames: boolean("include_patient_names").notNull().default(false),
    tokenHash: text("token_hash").notNull(),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "calendar_feeds_pkey", columns: [t.clinicId, t.id] }),
    unique("calendar_feeds_token_key").on(t.clinicId, t.tokenHash),
    foreignKey({
      name: "calendar_feeds_provider_fk",
      columns: [t.clinicId, t.providerId],
      foreignColumns: [clinicMembers.clinicId, clinicMembers.userId],
    }).onDelete("cascade"),
  ],
);

/**
 * The reminders sent (§10, docs/events.md#reminders): one row per appointment, offset and start
 * whose `appointment.reminder` event was recorded, written in that event's transaction by the
 * clinic's reminder sweep (`clinic_due_reminders`). Nothing is written before a reminder is due:
 * what is due is read from the appointments' start index. The key is the rule "once each": a
 * second sweep (another process, a repeat after a crash) inserting the same key does nothing.
 */
export const appointmentReminders = pgTable(
  "appointment_reminders",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    appointmentId: uuid("appointment_id").notNull(),
    offsetMin: integer("offset_min").notNull(),
    /** The start it reminded of: a moved appointment is reminded again at its new start. */
    startsAt: instant("starts_at").notNull(),
    sentAt: instant("sent_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "appointment_reminders_pkey", columns: [t.clinicId, t.appointmentId, t.offsetMin, t.startsAt] }),
  ],
);

/**
 * The job queue (docs/jobs.md): every background job — a webhook delivery attempt, a reminder, a
 * patient e-mail, a confirmation's expiry — is one row here, written in the transaction of the
 * change that causes it, on the clinic's shard, and consumed from here: a worker claims a clinic's
 * due rows (FOR UPDATE SKIP LOCKED, `clinic_claim_jobs`) by leasing them — `leased_until` and
 * `lease_id`, columns no index holds, so a claim is a HOT update — and deletes them when they ran,
 * or moves `run_at` on by the backoff when they threw. A lease that runs out (its process died)
 * makes the job due again; `failed_at` is set once its attempts are spent. Nothing moves rows to
 * another queue.
 */
export const jobs = pgTable(
  "jobs",
  {
    clinicId: uuid("clinic_id")
      .notNull()
      .references(() => clinics.id, { onDelete: "cascade" }),
    /** The job's id: what a change that plans a job remembers to cancel it (a delivery's retry, a recurring job). */
    jobId: uuid("job_id").notNull(),
    queue: text("queue").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    /** When the job is due: when planned, or after a failure's backoff. */
    runAt: instant("run_at").notNull().defaultNow(),
    /** The end of the current claim's lease; the job is not claimed again before it. */
    leasedUntil: instant("leased_until"),
    /** Attempts begun (a claim counts one, even if its process died). */
    attempts: integer("attempts").notNull().default(0),
    /** The claim that holds the job; only it may complete or fail the job. */
    leaseId: uuid("lease_id"),
    lastError: text("last_error"),
    /** Set when the last attempt failed: the job is kept for inspection and never runs again. */
    failedAt: instant("failed_at"),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "jobs_pkey", columns: [t.clinicId, t.jobId] }),
    check("jobs_attempts_check", sql`${t.attempts} >= 0`),
    // A clinic's due jobs, oldest first: the claim's.
    index("jobs_clinic_due_idx")
      .on(t.clinicId, t.runAt)
      .where(sql`${t.failedAt} is null`),
    // Which clinics have due jobs, the look's: on an expression of run_at that only the look uses,
    // so that a claim never walks every clinic's due (and just-deleted) jobs by it (docs/jobs.md).
    index("jobs_due_idx")
      .on(sql`(${t.runAt} at time zone 'UTC')`)
      .where(sql`${t.failedAt} is null`),
    // Failed jobs, counted for /metrics without reading the queue.
    index("jobs_failed_idx")
      .on(t.queue)
      .where(sql`${t.failedAt} is not null`),
  ],
);
