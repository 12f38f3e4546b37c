// Patient messages (CONTRACT §15) through the procedures and the send job, without a network: which
// changes plan which message (once), what the text says in each locale and zone (a DST day
// included), and how an attempt ends — sent, retried with the backoff, failed, skipped — with a
// transport that records or refuses. The real SMTP path is apps/server/test/messages.http.test.ts.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointments, clinics, jobs as jobQueue, messageKinds, messages } from "@clinic/db";
import { runReminderSweep } from "../src/modules/booking/index.ts";
import {
  type MailTransport,
  type MessageJob,
  type OutgoingMail,
  clinicTime,
  renderMessage,
  runMessageSend,
} from "../src/modules/messages/index.ts";
import { parseManageToken } from "../src/modules/manage/index.ts";
import { addService, bookableClinic, callerFor, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const start = new Date("2027-03-15T09:00:00.000Z");

class RecordingTransport implements MailTransport {
  readonly sent: OutgoingMail[] = [];
  constructor(private readonly failures = 0) {}
  send(mail: OutgoingMail): Promise<void> {
    if (this.sent.length + this.refused < this.failures) {
      this.refused += 1;
      return Promise.reject(new Error("421 try again later"));
    }
    this.sent.push(mail);
    return Promise.resolve();
  }
  refused = 0;
  close(): void {}
}

const settings = (transport: MailTransport | null, retryDelaysS: number[] = [5, 30]) => ({
  transport,
  from: "Clinic <no-reply@clinic.example>",
  publicUrl: "https://clinic.example",
  retryDelaysS,
});

async function clinicWithBooking(options: { locale?: "en" | "de"; timezone?: string; at?: Date } = {}) {
  const c = await bookableClinic(t.db, options.timezone ? { timezone: options.timezone } : {});
  if (options.locale) await t.db.update(clinics).set({ locale: options.locale }).where(eq(clinics.id, c.clinicId));
  const service = await addService(t.db, c.clinicId, { name: "Check-up", providerId: c.provider.id, durationMin: 30 });
  const staff = callerFor(t.db, c.staff, { now: pinnedNow });
  const appointment = await staff.appointments.book({
    clinic_id: c.clinicId,
    service_id: service,
    start: options.at ?? start,
    patient: { name: "Pat Mail", email: "pat@example.test" },
  });
  return { ...c, service, staff, appointment };
}

async function messagesOf(clinicId: string) {
  return t.db.select().from(messages).where(eq(messages.clinicId, clinicId));
}

const jobOf = (m: { clinicId: string; id: string }, attempt = 0): MessageJob => ({
  clinicId: m.clinicId,
  messageId: m.id,
  attempt,
});

describe("planning", () => {
  it("a booking plans one `booked` message to the patient, with its first attempt in the job queue", async () => {
    const c = await clinicWithBooking();
    const planned = await messagesOf(c.clinicId);
    expect(planned).toMatchObject([
      { kind: "booked", to: "pat@example.test", status: "pending", attempts: 0, appointmentId: c.appointment.id },
    ]);
    const jobs = await t.db
      .select()
      .from(jobQueue)
      .where(and(eq(jobQueue.clinicId, c.clinicId), eq(jobQueue.queue, "message-send")));
    expect(jobs.map((j) => j.data)).toEqual([{ clinicId: c.clinicId, messageId: planned[0]?.id, attempt: 0 }]);
  });

  it("a staff cancel (recorded in TypeScript) plans `canceled`; an appointment without an e-mail plans nothing", async () => {
    const c = await clinicWithBooking();
    await c.staff.appointments.cancel({ clinic_id: c.clinicId, id: c.appointment.id });
    expect((await messagesOf(c.clinicId)).map((m) => m.kind).sort()).toEqual(["booked", "canceled"]);
    const other = await c.staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: new Date(start.getTime() + 3_600_000),
      patient: { name: "No Mail" },
    });
    await c.staff.appointments.cancel({ clinic_id: c.clinicId, id: other.id });
    expect(await messagesOf(c.clinicId)).toHaveLength(2);
  });

  it("each reminder plans a `reminder` message (recorded by the clinic's reminder sweep)", async () => {
    const c = await bookableClinic(t.db);
    await t.db
      .update(clinics)
      .set({ reminderOffsetsMin: [60, 1440] })
      .where(eq(clinics.id, c.clinicId));
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    const booked = await callerFor(t.db, c.staff, { now: pinnedNow }).appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start,
      patient: { name: "Remi", email: "remi@example.test" },
    });
    expect(booked.status).toBe("booked");
    // The sweep at the start, looking back from the booking: both are due; a second sweep finds them sent.
    for (let run = 0; run < 2; run++)
      await runReminderSweep(t.db, { now: () => start }, { clinicId: c.clinicId, from: pinnedNow().toISOString() });
    const reminders = (await messagesOf(c.clinicId)).filter((m) => m.kind === "reminder");
    // One per reminder, however often the sweep runs.
    expect(reminders).toHaveLength(2);
    expect(reminders.map((m) => (m.data as { offset_min: number }).offset_min).sort()).toEqual([1440, 60]);
  });

  it("N1 lists them newest first, filtered by appointment and status, paginated; STAFF only", async () => {
    const c = await clinicWithBooking();
    await c.staff.appointments.reschedule({
      clinic_id: c.clinicId,
      id: c.appointment.id,
      start: new Date(start.getTime() + 3_600_000),
    });
    const all = await c.staff.messages.list({ clinic_id: c.clinicId, limit: 1 });
    expect(all.messages.map((m) => m.kind)).toEqual(["rescheduled"]);
    expect(all.next_cursor).not.toBeNull();
    const rest = await c.staff.messages.list({ clinic_id: c.clinicId, limit: 1, cursor: all.next_cursor ?? "" });
    expect(rest.messages.map((m) => m.kind)).toEqual(["booked"]);
    expect((await c.staff.messages.list({ clinic_id: c.clinicId, status: "sent", limit: 10 })).messages).toHaveLength(
      0,
    );
    expect(
      (await c.staff.messages.list({ clinic_id: c.clinicId, appointment_id: c.appointment.id, limit: 10 })).messages,
    ).toHaveLength(2);
    // A member below STAFF (a booking agent) may not read what patients were sent.
    await expect(c.asCustom.messages.list({ clinic_id: c.clinicId, limit: 10 })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});

describe("sending", () => {
  it("renders and sends: subject, the clinic's local time, the manage link of this appointment, the .ics with its id as UID", async () => {
    const c = await clinicWithBooking({ timezone: "Europe/Berlin" });
    const [message] = await messagesOf(c.clinicId);
    if (!message) throw new Error("no message");
    const transport = new RecordingTransport();
    await runMessageSend(t.db, jobOf(message), settings(transport), pinnedNow());
    expect(transport.sent).toHaveLength(1);
    const mail = transport.sent[0];
    expect(mail?.to).toBe("pat@example.test");
    expect(mail?.subject).toBe("Booked: Check-up on Monday, 15 March 2027 at 10:00");
    const token = /https:\/\/clinic\.example\/manage\/([A-Za-z0-9_-]{64})/.exec(mail?.text ?? "")?.[1];
    expect(parseManageToken(token ?? "")).toMatchObject({ clinicId: c.clinicId, appointmentId: c.appointment.id });
    expect(mail?.attachments[0]?.content).toContain(`UID:${c.appointment.id}`);
    expect(mail?.attachments[0]?.content).toContain("DTSTART:20270315T090000Z");
    const [after] = await messagesOf(c.clinicId);
    expect(after).toMatchObject({ status: "sent", attempts: 1, subject: mail?.subject, lastError: null });
    expect(after?.sentAt).toBeInstanceOf(Date);
    // The same job again (a worker that crashed after sending): nothing more.
    await runMessageSend(t.db, jobOf(message), settings(transport), pinnedNow());
    expect(transport.sent).toHaveLength(1);
  });

  it("a refused attempt is retried after the next delay; when the delays run out, the message failed", async () => {
    const c = await clinicWithBooking();
    const [message] = await messagesOf(c.clinicId);
    if (!message) throw new Error("no message");
    const transport = new RecordingTransport(10);
    await runMessageSend(t.db, jobOf(message, 0), settings(transport, [5]), pinnedNow());
    const [retrying] = await messagesOf(c.clinicId);
    expect(retrying).toMatchObject({ status: "pending", attempts: 1, lastError: "421 try again later" });
    const next = await t.db
      .select()
      .from(jobQueue)
      .where(and(eq(jobQueue.clinicId, c.clinicId), eq(jobQueue.queue, "message-send")));
    expect(next.map((j) => j.data)).toContainEqual({ clinicId: c.clinicId, messageId: message.id, attempt: 1 });
    expect(next.find((j) => (j.data as { attempt: number }).attempt === 1)?.runAt.getTime()).toBeGreaterThan(
      Date.now(),
    );
    await runMessageSend(t.db, jobOf(message, 1), settings(transport, [5]), pinnedNow());
    const [failed] = await messagesOf(c.clinicId);
    expect(failed).toMatchObject({ status: "failed", attempts: 2, lastError: "421 try again later" });
    expect(transport.sent).toHaveLength(0);
  });

  it("a message whose appointment is gone (a released hold) is recorded skipped, not left pending", async () => {
    const c = await clinicWithBooking();
    const [message] = await messagesOf(c.clinicId);
    if (!message) throw new Error("no message");
    await t.db.delete(appointments).where(eq(appointments.id, c.appointment.id));
    const transport = new RecordingTransport();
    await runMessageSend(t.db, jobOf(message), settings(transport), pinnedNow());
    expect(transport.sent).toHaveLength(0);
    const [after] = await messagesOf(c.clinicId);
    expect(after).toMatchObject({ status: "skipped", lastError: "the appointment no longer exists" });
  });

  it("without a transport (production without SMTP_URL) a message is recorded skipped, with its subject", async () => {
    const c = await clinicWithBooking();
    const [message] = await messagesOf(c.clinicId);
    if (!message) throw new Error("no message");
    await runMessageSend(t.db, jobOf(message), settings(null), pinnedNow());
    const [skipped] = await messagesOf(c.clinicId);
    expect(skipped).toMatchObject({ status: "skipped", attempts: 1 });
    expect(skipped?.subject).toMatch(/^Booked: Check-up/);
  });

  it("a cancellation carries no manage link (the link is dead) and withdraws the calendar event", async () => {
    const c = await clinicWithBooking({ locale: "de" });
    await c.staff.appointments.cancel({ clinic_id: c.clinicId, id: c.appointment.id });
    const canceled = (await messagesOf(c.clinicId)).find((m) => m.kind === "canceled");
    if (!canceled) throw new Error("no message");
    const transport = new RecordingTransport();
    await runMessageSend(t.db, jobOf(canceled), settings(transport), pinnedNow());
    const mail = transport.sent[0];
    expect(mail?.subject).toBe("Abgesagt: Check-up am Montag, 15. März 2027 um 09:00");
    expect(mail?.text).not.toContain("/manage/");
    expect(mail?.attachments[0]?.content).toContain("METHOD:CANCEL");
    expect(mail?.attachments[0]?.content).toContain("STATUS:CANCELLED");
  });
});

describe("rendering", () => {
  const base = {
    clinic: { name: "Praxis Mitte", timezone: "Europe/Berlin" },
    serviceName: "Massage",
    providerName: "Anna",
    patientName: "Pat",
    manageUrl: "https://clinic.example/manage/abc",
  } as const;

  it("writes the clinic's wall-clock time on both sides of the spring-forward night (Europe/Berlin)", () => {
    // 2027-03-28: 02:00 local does not exist; 01:30 UTC is 03:30 CEST, 00:30 UTC is 01:30 CET.
    expect(clinicTime(new Date("2027-03-28T00:30:00Z"), "en", "Europe/Berlin")).toBe("Sunday, 28 March 2027 at 01:30");
    expect(clinicTime(new Date("2027-03-28T01:30:00Z"), "en", "Europe/Berlin")).toBe("Sunday, 28 March 2027 at 03:30");
    expect(clinicTime(new Date("2027-10-31T00:30:00Z"), "de", "Europe/Berlin")).toBe(
      "Sonntag, 31. Oktober 2027 um 02:30",
    );
    expect(clinicTime(new Date("2027-10-31T01:30:00Z"), "de", "Europe/Berlin")).toBe(
      "Sonntag, 31. Oktober 2027 um 02:30",
    );
  });

  it("every kind in both locales: a subject, the link where it belongs, the confirm-by time of a hold, escaped HTML", () => {
    for (const locale of ["en", "de"] as const) {
      for (const kind of messageKinds) {
        const out = renderMessage({
          ...base,
          kind,
          locale,
          start: new Date("2027-03-15T09:00:00Z"),
          previousStart: kind === "rescheduled" ? new Date("2027-03-14T09:00:00Z") : undefined,
          confirmBy:
            kind === "guest_confirm" || kind === "waitlist_offer" ? new Date("2027-03-15T08:30:00Z") : undefined,
          manageUrl: kind === "canceled" ? undefined : base.manageUrl,
          patientName: "<Pat & Co>",
        });
        expect(out.subject).toContain("Massage");
        expect(out.text).toContain(
          locale === "en" ? "Monday, 15 March 2027 at 10:00" : "Montag, 15. März 2027 um 10:00",
        );
        expect(out.text.includes("/manage/abc")).toBe(kind !== "canceled");
        expect(out.html).toContain("&lt;Pat &amp; Co&gt;");
        expect(out.html).not.toContain("<Pat");
        if (kind === "rescheduled") expect(out.text).toContain(locale === "en" ? "Previously" : "Bisher");
        if (kind === "guest_confirm") expect(out.text).toContain(locale === "en" ? "confirm by" : "bestätigen Sie bis");
      }
    }
  });

  it("a series' one message lists every start it booked or canceled, in the clinic's zone", () => {
    const series = [
      new Date("2027-03-15T09:00:00Z"),
      new Date("2027-03-22T09:00:00Z"),
      new Date("2027-03-29T08:00:00Z"),
    ];
    const booked = renderMessage({
      ...base,
      kind: "booked",
      locale: "en",
      start: new Date("2027-03-15T09:00:00Z"),
      series,
    });
    expect(booked.text).toContain("Your course has 3 appointments:\n– Monday, 15 March 2027 at 10:00\n");
    expect(booked.text).toContain("– Monday, 29 March 2027 at 10:00");
    const canceled = renderMessage({
      ...base,
      kind: "canceled",
      locale: "de",
      start: new Date("2027-03-22T09:00:00Z"),
      series: series.slice(1),
    });
    expect(canceled.text).toContain("Diese 2 Termine Ihrer Serie sind abgesagt:\n– Montag, 22. März 2027 um 10:00");
  });
});
