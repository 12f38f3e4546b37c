// The text of a patient message (§15, docs/messages.md): pure, in the clinic's locale, with times
// in the clinic's zone. One table of wording per locale; the rest is shared.
import type { ClinicLocale, MessageKind } from "@clinic/db";

/** What a message tells: the appointment as the change left it, and what its kind adds. */
export interface MessageFacts {
  kind: MessageKind;
  locale: ClinicLocale;
  clinic: { name: string; timezone: string };
  serviceName: string;
  providerName: string;
  patientName: string;
  start: Date;
  /** A reschedule's former start. */
  previousStart?: Date | undefined;
  /** A booking that waits for the clinic's confirmation (§13 pending). */
  pending?: boolean | undefined;
  /** A guest's hold or a waitlist offer: until when the link confirms it. */
  confirmBy?: Date | undefined;
  /** A series' one message (§14): every start it booked or canceled (the first is `start`). */
  series?: Date[] | undefined;
  /** The patient's manage link; absent on a cancellation (the link is dead then). */
  manageUrl?: string | undefined;
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

interface Wording {
  subject: Record<MessageKind, (f: Facts) => string>;
  lead: Record<MessageKind, (f: Facts) => string>;
  greeting: (name: string) => string;
  what: (f: Facts) => string;
  pending: string;
  previously: (when: string) => string;
  series: (kind: MessageKind, count: number, list: string) => string;
  confirmBy: (when: string) => string;
  manage: Record<"confirm" | "change", string>;
  closing: (clinic: string) => string;
}

/** The facts with their times written out in the clinic's zone and locale. */
interface Facts extends MessageFacts {
  when: string;
}

const en: Wording = {
  subject: {
    booked: (f) => (f.pending ? `Requested: ${f.serviceName} on ${f.when}` : `Booked: ${f.serviceName} on ${f.when}`),
    confirmed: (f) => `Confirmed: ${f.serviceName} on ${f.when}`,
    rescheduled: (f) => `Moved: ${f.serviceName} now on ${f.when}`,
    canceled: (f) => `Canceled: ${f.serviceName} on ${f.when}`,
    reminder: (f) => `Reminder: ${f.serviceName} on ${f.when}`,
    waitlist_offer: (f) => `A time is free for you: ${f.serviceName} on ${f.when}`,
    guest_confirm: (f) => `Please confirm: ${f.serviceName} on ${f.when}`,
  },
  lead: {
    booked: (f) => `your appointment at ${f.clinic.name} is booked.`,
    confirmed: (f) => `${f.clinic.name} has confirmed your appointment.`,
    rescheduled: (f) => `your appointment at ${f.clinic.name} has moved.`,
    canceled: (f) => `your appointment at ${f.clinic.name} is canceled.`,
    reminder: (f) => `this is a reminder of your appointment at ${f.clinic.name}.`,
    waitlist_offer: (f) => `a time you were waiting for at ${f.clinic.name} is free, and we keep it for you.`,
    guest_confirm: (f) => `we keep this time at ${f.clinic.name} for you. Please confirm it with the link below.`,
  },
  greeting: (name) => `Hello ${name},`,
  what: (f) => `${f.serviceName} with ${f.providerName}\n${f.when} (${f.clinic.timezone})`,
  pending: "The clinic will confirm it; we will write to you again then.",
  previously: (when) => `Previously: ${when}`,
  series: (kind, count, list) =>
    `${kind === "canceled" ? `These ${String(count)} appointments of your course are canceled` : `Your course has ${String(count)} appointments`}:\n${list}`,
  confirmBy: (when) => `Please confirm by ${when}; after that the time is offered to others.`,
  manage: { confirm: "Confirm, move or cancel it here:", change: "Move or cancel it here:" },
  closing: (clinic) => `Kind regards,\n${clinic}`,
};

const de: Wording = {
  subject: {
    booked: (f) => (f.pending ? `Angefragt: ${f.serviceName} am ${f.when}` : `Gebucht: ${f.serviceName} am ${f.when}`),
    confirmed: (f) => `Bestätigt: ${f.serviceName} am ${f.when}`,
    rescheduled: (f) => `Verschoben: ${f.serviceName} jetzt am ${f.when}`,
    canceled: (f) => `Abgesagt: ${f.serviceName} am ${f.when}`,
    reminder: (f) => `Erinnerung: ${f.serviceName} am ${f.when}`,
    waitlist_offer: (f) => `Ein Termin ist für Sie frei: ${f.serviceName} am ${f.when}`,
    guest_confirm: (f) => `Bitte bestätigen: ${f.serviceName} am ${f.when}`,
  },
  lead: {
    booked: (f) => `Ihr Termin bei ${f.clinic.name} ist gebucht.`,
    confirmed: (f) => `${f.clinic.name} hat Ihren Termin bestätigt.`,
    rescheduled: (f) => `Ihr Termin bei ${f.clinic.name} wurde verschoben.`,
    canceled: (f) => `Ihr Termin bei ${f.clinic.name} ist abgesagt.`,
    reminder: (f) => `wir erinnern Sie an Ihren Termin bei ${f.clinic.name}.`,
    waitlist_offer: (f) =>
      `ein Termin, auf den Sie warten, ist bei ${f.clinic.name} frei geworden. Wir halten ihn für Sie.`,
    guest_confirm: (f) =>
      `wir halten diesen Termin bei ${f.clinic.name} für Sie. Bitte bestätigen Sie ihn über den Link unten.`,
  },
  greeting: (name) => `Guten Tag ${name},`,
  what: (f) => `${f.serviceName} bei ${f.providerName}\n${f.when} (${f.clinic.timezone})`,
  pending: "Die Praxis bestätigt ihn noch; wir schreiben Ihnen dann wieder.",
  previously: (when) => `Bisher: ${when}`,
  series: (kind, count, list) =>
    `${kind === "canceled" ? `Diese ${String(count)} Termine Ihrer Serie sind abgesagt` : `Ihre Serie hat ${String(count)} Termine`}:\n${list}`,
  confirmBy: (when) => `Bitte bestätigen Sie bis ${when}; danach bieten wir den Termin anderen an.`,
  manage: { confirm: "Hier bestätigen, verschieben oder absagen:", change: "Hier verschieben oder absagen:" },
  closing: (clinic) => `Freundliche Grüße\n${clinic}`,
};

const wordings: Record<ClinicLocale, Wording> = { en, de };
const intlLocales: Record<ClinicLocale, string> = { en: "en-GB", de: "de-DE" };

/** A wall-clock time of the clinic, e.g. "Tuesday, 1 December 2026 at 09:30" / "Dienstag, 1. Dezember 2026 um 09:30". */
export function clinicTime(at: Date, locale: ClinicLocale, timeZone: string): string {
  return new Intl.DateTimeFormat(intlLocales[locale], {
    timeZone,
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(at);
}

/** The subject, the plain text and the HTML of a message. */
export function renderMessage(facts: MessageFacts): RenderedMessage {
  const w = wordings[facts.locale];
  const time = (at: Date) => clinicTime(at, facts.locale, facts.clinic.timezone);
  const f: Facts = { ...facts, when: time(facts.start) };
  const lead = w.lead[f.kind](f);
  const paragraphs: string[] = [`${w.greeting(f.patientName)}\n\n${lead}`, w.what(f)];
  if (f.kind === "booked" && f.pending) paragraphs.push(w.pending);
  if (f.previousStart) paragraphs.push(w.previously(time(f.previousStart)));
  if (f.series && f.series.length > 1)
    paragraphs.push(w.series(f.kind, f.series.length, f.series.map((at) => `– ${time(at)}`).join("\n")));
  if (f.confirmBy) paragraphs.push(w.confirmBy(time(f.confirmBy)));
  const needsConfirm = f.kind === "guest_confirm" || f.kind === "waitlist_offer";
  const link = f.manageUrl ? `${needsConfirm ? w.manage.confirm : w.manage.change}\n${f.manageUrl}` : undefined;
  if (link) paragraphs.push(link);
  paragraphs.push(w.closing(f.clinic.name));
  const text = `${paragraphs.join("\n\n")}\n`;
  const html = `<!doctype html><html lang="${f.locale}"><body>${paragraphs
    .map((p) => `<p>${linkify(escapeHtml(p), f.manageUrl).replaceAll("\n", "<br>")}</p>`)
    .join("")}</body></html>`;
  return { subject: w.subject[f.kind](f), text, html };
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

function linkify(html: string, url: string | undefined): string {
  if (!url) return html;
  const escaped = escapeHtml(url);
  return html.replace(escaped, `<a href="${escaped}">${escaped}</a>`);
}
