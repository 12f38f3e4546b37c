// Sending a planned message: the `message-send` job (docs/messages.md#sending).
import { and, eq, sql } from "drizzle-orm";
import { type Db, appointments, clinicMembers, clinics, messages, services } from "@clinic/db";
import { appointmentIcs } from "../calendarFeeds/index.ts";
import { enqueue, queueNames } from "../jobs/index.ts";
import { manageToken, manageUrl } from "../manage/index.ts";
import { type MessageFacts, renderMessage } from "./render.ts";
import type { MailTransport } from "./transport.ts";

/** What a message-send job carries: the message and which attempt it is (0 = the first). */
export interface MessageJob {
  clinicId: string;
  messageId: string;
  attempt: number;
}

/** How messages leave (docs/messages.md#sending). */
export interface MailSettings {
  /** The SMTP transport; null records every message `skipped` (production without SMTP_URL). */
  transport: MailTransport | null;
  /** The From: address. */
  from: string;
  /** Where manage links point: `{publicUrl}/manage/{token}`. */
  publicUrl: string;
  /** Seconds before each retry (the webhook backoff); when they run out, the message failed. */
  retryDelaysS: readonly number[];
}

const instantOf = (value: unknown): Date | undefined => {
  if (typeof value !== "string") return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
};

/** Kinds whose e-mail carries the appointment as an `.ics` attachment. */
const withIcs = new Set(["booked", "confirmed", "rescheduled", "canceled"]);

/**
 * Runs one attempt of a message: renders it (in the clinic's locale and zone, with the manage
 * link and, for booking changes, the `.ics`), sends it, and records the outcome. A failure plans
 * the next attempt after the next delay (in the same transaction as its record), or marks the
 * message failed when the delays are spent. At least once: the outcome is recorded only if the
 * message is still at this attempt, so a job that runs twice (a crashed worker's, re-run) sends at
 * most one extra copy, with the same Message-ID, and records once.
 */
export async function runMessageSend(db: Db, job: MessageJob, settings: MailSettings, now = new Date()): Promise<void> {
  const [row] = await db
    .select({
      message: messages,
      clinicName: clinics.name,
      timezone: clinics.timezone,
      locale: clinics.locale,
      appointment: {
        id: appointments.id,
        status: appointments.status,
        startsAt: appointments.startsAt,
        endsAt: appointments.endsAt,
        updatedAt: appointments.updatedAt,
        revision: appointments.revision,
        manageKey: appointments.manageKey,
        patientName: appointments.patientName,
      },
      serviceName: services.name,
      providerName: clinicMembers.fullName,
    })
    .from(messages)
    .innerJoin(clinics, eq(clinics.id, messages.clinicId))
    .innerJoin(
      appointments,
      and(eq(appointments.clinicId, messages.clinicId), eq(appointments.id, messages.appointmentId)),
    )
    .innerJoin(services, and(eq(services.clinicId, appointments.clinicId), eq(services.id, appointments.serviceId)))
    .innerJoin(
      clinicMembers,
      and(eq(clinicMembers.clinicId, appointments.clinicId), eq(clinicMembers.userId, appointments.providerId)),
    )
    .where(and(eq(messages.clinicId, job.clinicId), eq(messages.id, job.messageId)));
  if (!row) {
    // Its appointment is gone (a released hold: a guest declined, or its time was taken after it
    // ended): there is nothing left to tell. Recorded, so that N1 does not show it pending forever.
    await db
      .update(messages)
      .set({ status: "skipped", attempts: job.attempt + 1, lastError: "the appointment no longer exists" })
      .where(
        and(
          eq(messages.clinicId, job.clinicId),
          eq(messages.id, job.messageId),
          eq(messages.status, "pending"),
          eq(messages.attempts, job.attempt),
        ),
      );
    return;
  }
  if (row.message.status !== "pending" || row.message.attempts !== job.attempt) return;
  const { message, appointment } = row;
  /** A series' one message (§14): every start it booked, or every one it canceled. */
  const seriesStartsOf = (d: Record<string, unknown>): Date[] | undefined => {
    const series = d.series;
    if (typeof series !== "object" || series === null) return undefined;
    const starts: unknown =
      "starts" in series ? series.starts : "canceled_starts" in series ? series.canceled_starts : [];
    return Array.isArray(starts) ? starts.flatMap((s) => instantOf(s) ?? []) : undefined;
  };
  const data = message.data;
  const start = instantOf(data.start) ?? appointment.startsAt;
  const end = instantOf(data.end) ?? appointment.endsAt;
  // The link is live only while the appointment is neither canceled nor over.
  const live = appointment.status !== "canceled" && appointment.endsAt.getTime() > now.getTime();
  const link =
    message.kind !== "canceled" && live
      ? manageUrl(settings.publicUrl, manageToken(message.clinicId, appointment.id, appointment.manageKey))
      : undefined;
  const facts: MessageFacts = {
    kind: message.kind,
    locale: row.locale,
    clinic: { name: row.clinicName, timezone: row.timezone },
    serviceName: row.serviceName,
    providerName: row.providerName,
    patientName: appointment.patientName,
    start,
    previousStart: message.kind === "rescheduled" ? instantOf(data.previous_start) : undefined,
    pending: message.kind === "booked" && data.status === "pending",
    confirmBy:
      message.kind === "guest_confirm" || message.kind === "waitlist_offer" ? instantOf(data.held_until) : undefined,
    manageUrl: link,
    series: seriesStartsOf(data),
  };
  const rendered = renderMessage(facts);
  const key = and(
    eq(messages.clinicId, message.clinicId),
    eq(messages.id, message.id),
    eq(messages.status, "pending"),
    eq(messages.attempts, job.attempt),
  );
  if (!settings.transport) {
    await db
      .update(messages)
      .set({ status: "skipped", subject: rendered.subject, attempts: job.attempt + 1, nextAttemptAt: null })
      .where(key);
    return;
  }
  let error: string | undefined;
  try {
    await settings.transport.send({
      from: settings.from,
      to: message.to,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      messageId: `<${message.id}@clinic-scheduling>`,
      attachments: withIcs.has(message.kind)
        ? [
            {
              filename: "appointment.ics",
              contentType: `text/calendar; charset=utf-8; method=${message.kind === "canceled" ? "CANCEL" : "PUBLISH"}`,
              content: appointmentIcs({
                id: appointment.id,
                clinicName: row.clinicName,
                serviceName: row.serviceName,
                providerName: row.providerName,
                start,
                end,
                updatedAt: appointment.updatedAt,
                revision: appointment.revision,
                canceled: message.kind === "canceled",
              }),
            },
          ]
        : [],
    });
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure);
  }
  if (error === undefined) {
    await db
      .update(messages)
      .set({
        status: "sent",
        subject: rendered.subject,
        attempts: job.attempt + 1,
        sentAt: sql`now()`,
        lastError: null,
        nextAttemptAt: null,
      })
      .where(key);
    return;
  }
  const delay = settings.retryDelaysS[job.attempt];
  await db.transaction(async (tx) => {
    const next = delay === undefined ? undefined : new Date(Date.now() + delay * 1000);
    const updated = await tx
      .update(messages)
      .set({
        status: next ? "pending" : "failed",
        subject: rendered.subject,
        attempts: job.attempt + 1,
        lastError: error.slice(0, 1000),
        nextAttemptAt: next ?? null,
      })
      .where(key)
      .returning({ id: messages.id });
    if (next && updated.length > 0)
      await enqueue(
        tx,
        message.clinicId,
        queueNames.messageSend,
        { clinicId: message.clinicId, messageId: message.id, attempt: job.attempt + 1 },
        { startAfter: next },
      );
  });
}
