// The words of the pages a patient reaches from an e-mail (the manage page, the month view), in
// the clinic's `locale` (CONTRACT §15: `en` or `de`). The booking page itself stays English; its
// words come from here where it shares a part with the manage page.

export type Locale = "en" | "de";

/** The clinic's locale as a page can use it: anything but `de` reads as English. */
export const localeOf = (value: string | null | undefined): Locale => (value === "de" ? "de" : "en");

const intlLocale: Record<Locale, string> = { en: "en-GB", de: "de-DE" };

/** A long, readable date in `locale`: "Tuesday, 16 March 2027" / "Dienstag, 16. März 2027". */
export function longDateIn(locale: Locale, date: string): string {
  return new Intl.DateTimeFormat(intlLocale[locale], {
    timeZone: "UTC",
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
  }).format(new Date(`${date}T12:00:00Z`));
}

/** "December 2026" / "Dezember 2026" of a `YYYY-MM` month. */
export function monthName(locale: Locale, month: string): string {
  return new Intl.DateTimeFormat(intlLocale[locale], { timeZone: "UTC", month: "long", year: "numeric" }).format(
    new Date(`${month}-15T12:00:00Z`),
  );
}

/** Weekday names Monday … Sunday, long and short. */
export function weekdayNames(locale: Locale): { long: string; short: string }[] {
  // 2024-01-01 was a Monday.
  return [1, 2, 3, 4, 5, 6, 7].map((d) => {
    const at = new Date(Date.UTC(2024, 0, d, 12));
    return {
      long: new Intl.DateTimeFormat(intlLocale[locale], { timeZone: "UTC", weekday: "long" }).format(at),
      short: new Intl.DateTimeFormat(intlLocale[locale], { timeZone: "UTC", weekday: "short" }).format(at),
    };
  });
}

/** A provider's own calendar (§18): its kind and the state of its sync. */
export type CalendarKind = "ics" | "caldav";
export type CalendarStatus = "pending" | "ok" | "error" | "stale";

const plural = (n: number, one: string, many: string) => `${String(n)} ${n === 1 ? one : many}`;

const en = {
  // The month view.
  monthView: "Days with free times",
  previousMonth: "Previous month",
  nextMonth: "Next month",
  loadingMonth: "Looking for free days…",
  dayFree: (date: string, n: number) => `${date}: ${plural(n, "free time", "free times")}`,
  dayFull: (date: string) => `${date}: no free times`,
  monthEmpty: "No free times this month.",
  legendFree: "a day with free times",
  // Slots.
  freeTimesOn: (date: string) => `Free times on ${date}`,
  noTimesOn: (date: string) => `No free times on ${date}. Please try another date.`,
  loadingTimes: "Loading free times…",
  yourTime: "your time",
  /** Seats left in a group session's slot (§14: `remaining`). */
  seatsLeft: (n: number) => `${plural(n, "seat", "seats")} left`,
  // The front desk: it is English, but its words for series and group sessions are kept here, in both locales.
  series: "Series",
  seriesTitle: (id: string) => `Part of series ${id}`,
  legendSeries: "part of a series (its id shows on hover)",
  seatsTaken: (taken: number, capacity: number) => `${String(taken)} of ${String(capacity)} seats taken`,
  bookSeat: "Book a seat",
  bookSeatAt: (provider: string, time: string) => `Book a seat with ${provider} at ${time}`,
  /** The label of an appointment's rooms and equipment (§14 `resources`), by how many it holds. */
  room: (n: number): string => (n === 1 ? "Room" : "Rooms and equipment"),
  // The desk and providers' own calendars (§18): busy time in the grid, and the calendars dialog.
  busyCalendar: "busy (calendar)",
  calendarStale: "calendar not synced — no bookings",
  busyCellName: (label: string, provider: string, times: string) => `${label}: ${provider}, ${times}`,
  busyWhy: (provider: string, times: string) =>
    `${provider}, ${times}: busy in their own calendar (the desk sees the times only).`,
  staleWhy: (provider: string) =>
    `${provider}: one of their calendars has not synced for too long, so no bookings are offered until it syncs or is removed.`,
  legendBusy: "busy in the provider's own calendar",
  calendars: "Calendars",
  calendarsOf: (provider: string) => `Calendars of ${provider}`,
  calendarsIntro: (provider: string) =>
    `Busy time in these calendars blocks ${provider} in every clinic. Only the times are read, never titles or places.`,
  calendarsReadOnly: (provider: string) =>
    `You can see these calendars; only a clinic admin or ${provider} can add, sync or remove them.`,
  noCalendars: "No calendars connected.",
  calendarKinds: { ics: "ICS link (read only)", caldav: "CalDAV" } as Record<CalendarKind, string>,
  calendarStatuses: {
    pending: "Waiting for its first sync",
    ok: "Synced",
    error: "Could not be read",
    stale: "Not synced for too long: no bookings until it syncs or is removed",
  } as Record<CalendarStatus, string>,
  calAddress: "Address",
  calKind: "Kind",
  calStatus: "Status",
  calLastSync: "Last sync",
  calNever: "never",
  calBusyCount: "Busy times",
  calWriteBack: "Write-back",
  calWritesBack: "appointments are written into it",
  calSyncing: "sync under way…",
  calSyncNow: "Sync now",
  calSyncNowOf: (name: string) => `Sync now: ${name}`,
  calSyncStarted: (name: string) => `Sync of ${name} started.`,
  calRemove: "Remove",
  calRemoveOf: (name: string) => `Remove ${name}`,
  calRemoveConfirm: (name: string, provider: string) =>
    `Remove ${name}? Its busy time stops blocking ${provider} at once.`,
  calRemoveYes: "Yes, remove",
  calRemoveNo: "Keep it",
  calRemoved: (name: string) => `Removed ${name}.`,
  calAdd: "Add a calendar",
  calKindLabel: "Kind",
  calUrlLabel: "URL",
  calUrlHintIcs: "The calendar's subscription link (https://…, often ending in .ics).",
  calUrlHintCaldav: "The address of the calendar collection on the CalDAV server (https://…).",
  calUsernameLabel: "User name",
  calPasswordLabel: "Password",
  calCredentials: "Sign-in at the CalDAV server",
  calCredentialsHint: "Both or neither.",
  calNameLabel: "Name (optional)",
  calWriteBackLabel: "Write this provider's appointments into this calendar",
  calAddButton: "Add calendar",
  calAdded: (name: string) => `Added ${name}: its first sync is under way.`,
  calCheckEntries: "Please check the marked entries.",
  calLimit: (n: number) => `At most ${String(n)} calendars per provider: remove one to add another.`,
  calClose: "Close",
  // The manage page.
  manageTitle: (clinic: string) => `Your appointment at ${clinic}`,
  yourAppointment: "Your appointment",
  loading: "Loading…",
  deadLink: "This link no longer works: the appointment was canceled or is over. Please book again or call the clinic.",
  service: "Service",
  provider: "With",
  when: "When",
  status: "Status",
  // The patient's own answers to the service's questions (§19).
  answers: { heading: "Your answers", yes: "yes", no: "no" },
  at: (date: string, time: string) => `${date} at ${time}`,
  clinicTime: (zone: string) => `clinic time, ${zone}`,
  statusWords: {
    held: "Not confirmed yet",
    pending: "Waiting for the clinic to confirm",
    booked: "Booked",
    arrived: "Checked in",
    completed: "Completed",
    no_show: "Missed",
    canceled: "Canceled",
  } as Record<string, string>,
  confirmPrompt: (until: string) =>
    `Please confirm this appointment by ${until} clinic time; after that the time is free again.`,
  offerPrompt: (until: string) =>
    `A time on your waitlist became free and is kept for you until ${until} clinic time. Would you like it?`,
  offered: "Offered to you from the waitlist",
  release: "Do not book",
  released: "The time is free again for others. Thank you for letting us know.",
  confirm: "Confirm",
  accept: "Accept this time",
  decline: "Decline",
  cancel: "Cancel appointment",
  move: "Move to another time",
  closeMove: "Keep the current time",
  moveHeading: "Choose a new time",
  cutoff: (hours: string) => `Changes online are possible up to ${hours} before the start; after that please call.`,
  tooLate: (hours: string) =>
    `It is less than ${hours} to the start, so this appointment can no longer be changed online. Please call the clinic.`,
  confirmed: "Thank you: your appointment is booked.",
  confirmedPending: "Thank you: the clinic will confirm your appointment.",
  canceled: "Your appointment is canceled.",
  declined: "Thank you: the time is offered to the next person.",
  moved: (date: string, time: string) => `Moved to ${date} at ${time}.`,
  pickToMove: (time: string, date: string) => `Move to ${time} on ${date}`,
  hours: (h: number) => (h % 24 === 0 ? plural(h / 24, "day", "days") : plural(h, "hour", "hours")),
  minutes: (m: number) => plural(m, "minute", "minutes"),
  /** Errors the manage page can meet; the others fall back to the English table of api.ts. */
  errors: {
    SLOT_UNAVAILABLE: "Sorry, that time was just taken. Please pick another one: the list shows the free times now.",
    CANCELLATION_CUTOFF: "This appointment starts too soon to change it online. Please call the clinic.",
    HOLD_EXPIRED: "The time was kept for you only for a while, and that has run out. Please book again.",
    NOT_FOUND:
      "This link no longer works: the appointment was canceled or is over. Please book again or call the clinic.",
    INVALID_TRANSITION: "This is no longer possible for this appointment.",
    RATE_LIMITED: "Too many attempts in a short time. Please wait a minute and try again.",
  } as Partial<Record<string, string>>,
};

export type Strings = typeof en;

const de: Strings = {
  monthView: "Tage mit freien Zeiten",
  previousMonth: "Voriger Monat",
  nextMonth: "Nächster Monat",
  loadingMonth: "Freie Tage werden gesucht…",
  dayFree: (date, n) => `${date}: ${n === 1 ? "1 freie Zeit" : `${String(n)} freie Zeiten`}`,
  dayFull: (date) => `${date}: keine freien Zeiten`,
  monthEmpty: "In diesem Monat gibt es keine freien Zeiten.",
  legendFree: "ein Tag mit freien Zeiten",
  freeTimesOn: (date) => `Freie Zeiten am ${date}`,
  noTimesOn: (date) => `Am ${date} gibt es keine freien Zeiten. Bitte wählen Sie einen anderen Tag.`,
  loadingTimes: "Freie Zeiten werden geladen…",
  yourTime: "Ihre Zeit",
  seatsLeft: (n) => (n === 1 ? "1 Platz frei" : `${String(n)} Plätze frei`),
  series: "Serie",
  seriesTitle: (id) => `Teil der Serie ${id}`,
  legendSeries: "Teil einer Serie (ihre Kennung erscheint beim Darüberfahren)",
  seatsTaken: (taken, capacity) => `${String(taken)} von ${String(capacity)} Plätzen belegt`,
  bookSeat: "Platz buchen",
  bookSeatAt: (provider, time) => `Einen Platz bei ${provider} um ${time} Uhr buchen`,
  room: (n) => (n === 1 ? "Raum" : "Räume und Geräte"),
  busyCalendar: "belegt (Kalender)",
  calendarStale: "Kalender nicht abgeglichen — keine Buchungen",
  busyCellName: (label, provider, times) => `${label}: ${provider}, ${times}`,
  busyWhy: (provider, times) => `${provider}, ${times}: im eigenen Kalender belegt (der Empfang sieht nur die Zeiten).`,
  staleWhy: (provider) =>
    `${provider}: Ein eigener Kalender wurde zu lange nicht abgeglichen, daher werden keine Buchungen angeboten, bis er abgeglichen oder entfernt ist.`,
  legendBusy: "im eigenen Kalender belegt",
  calendars: "Kalender",
  calendarsOf: (provider) => `Kalender von ${provider}`,
  calendarsIntro: (provider) =>
    `Belegte Zeiten in diesen Kalendern sperren ${provider} in jeder Praxis. Gelesen werden nur die Zeiten, nie Titel oder Orte.`,
  calendarsReadOnly: (provider) =>
    `Sie können diese Kalender sehen; hinzufügen, abgleichen oder entfernen können sie nur die Praxisverwaltung oder ${provider}.`,
  noCalendars: "Keine Kalender verbunden.",
  calendarKinds: { ics: "ICS-Link (nur lesen)", caldav: "CalDAV" },
  calendarStatuses: {
    pending: "Wartet auf den ersten Abgleich",
    ok: "Abgeglichen",
    error: "Konnte nicht gelesen werden",
    stale: "Zu lange nicht abgeglichen: keine Buchungen, bis er abgeglichen oder entfernt ist",
  },
  calAddress: "Adresse",
  calKind: "Art",
  calStatus: "Status",
  calLastSync: "Letzter Abgleich",
  calNever: "noch nie",
  calBusyCount: "Belegte Zeiten",
  calWriteBack: "Zurückschreiben",
  calWritesBack: "Termine werden in ihn eingetragen",
  calSyncing: "Abgleich läuft…",
  calSyncNow: "Jetzt abgleichen",
  calSyncNowOf: (name) => `Jetzt abgleichen: ${name}`,
  calSyncStarted: (name) => `Abgleich von ${name} gestartet.`,
  calRemove: "Entfernen",
  calRemoveOf: (name) => `${name} entfernen`,
  calRemoveConfirm: (name, provider) =>
    `${name} entfernen? Seine belegten Zeiten sperren ${provider} ab sofort nicht mehr.`,
  calRemoveYes: "Ja, entfernen",
  calRemoveNo: "Behalten",
  calRemoved: (name) => `${name} entfernt.`,
  calAdd: "Kalender hinzufügen",
  calKindLabel: "Art",
  calUrlLabel: "URL",
  calUrlHintIcs: "Der Abonnement-Link des Kalenders (https://…, oft mit .ics am Ende).",
  calUrlHintCaldav: "Die Adresse der Kalendersammlung auf dem CalDAV-Server (https://…).",
  calUsernameLabel: "Benutzername",
  calPasswordLabel: "Passwort",
  calCredentials: "Anmeldung beim CalDAV-Server",
  calCredentialsHint: "Beides oder keines.",
  calNameLabel: "Name (optional)",
  calWriteBackLabel: "Die Termine dieser Person in diesen Kalender eintragen",
  calAddButton: "Kalender hinzufügen",
  calAdded: (name) => `${name} hinzugefügt: Der erste Abgleich läuft.`,
  calCheckEntries: "Bitte prüfen Sie die markierten Angaben.",
  calLimit: (n) => `Höchstens ${String(n)} Kalender pro Person: Entfernen Sie einen, um einen anderen hinzuzufügen.`,
  calClose: "Schließen",
  manageTitle: (clinic) => `Ihr Termin bei ${clinic}`,
  yourAppointment: "Ihr Termin",
  loading: "Wird geladen…",
  deadLink:
    "Dieser Link gilt nicht mehr: Der Termin wurde storniert oder ist vorbei. Bitte buchen Sie neu oder rufen Sie die Praxis an.",
  service: "Leistung",
  provider: "Bei",
  when: "Wann",
  status: "Status",
  answers: { heading: "Ihre Antworten", yes: "ja", no: "nein" },
  at: (date, time) => `${date} um ${time} Uhr`,
  clinicTime: (zone) => `Zeit der Praxis, ${zone}`,
  statusWords: {
    held: "Noch nicht bestätigt",
    pending: "Wartet auf Bestätigung der Praxis",
    booked: "Gebucht",
    arrived: "Angekommen",
    completed: "Abgeschlossen",
    no_show: "Nicht erschienen",
    canceled: "Storniert",
  },
  confirmPrompt: (until) =>
    `Bitte bestätigen Sie diesen Termin bis ${until} Uhr (Zeit der Praxis); danach wird die Zeit wieder freigegeben.`,
  offerPrompt: (until) =>
    `Eine Zeit von Ihrer Warteliste ist frei geworden und bis ${until} Uhr (Zeit der Praxis) für Sie reserviert. Möchten Sie sie?`,
  offered: "Ihnen von der Warteliste angeboten",
  release: "Nicht buchen",
  released: "Die Zeit ist wieder für andere frei. Danke für Ihre Rückmeldung.",
  confirm: "Bestätigen",
  accept: "Diesen Termin annehmen",
  decline: "Ablehnen",
  cancel: "Termin stornieren",
  move: "Auf eine andere Zeit verschieben",
  closeMove: "Aktuelle Zeit behalten",
  moveHeading: "Neue Zeit wählen",
  cutoff: (hours) => `Online sind Änderungen bis ${hours} vor Beginn möglich; danach rufen Sie bitte an.`,
  tooLate: (hours) =>
    `Bis zum Beginn sind es weniger als ${hours}, daher kann dieser Termin nicht mehr online geändert werden. Bitte rufen Sie die Praxis an.`,
  confirmed: "Vielen Dank: Ihr Termin ist gebucht.",
  confirmedPending: "Vielen Dank: Die Praxis bestätigt Ihren Termin.",
  canceled: "Ihr Termin ist storniert.",
  declined: "Vielen Dank: Die Zeit wird der nächsten Person angeboten.",
  moved: (date, time) => `Verschoben auf ${date} um ${time} Uhr.`,
  pickToMove: (time, date) => `Auf ${time} Uhr am ${date} verschieben`,
  hours: (h) =>
    h % 24 === 0 ? (h === 24 ? "1 Tag" : `${String(h / 24)} Tage`) : h === 1 ? "1 Stunde" : `${String(h)} Stunden`,
  minutes: (m) => (m === 1 ? "1 Minute" : `${String(m)} Minuten`),
  errors: {
    SLOT_UNAVAILABLE:
      "Diese Zeit wurde leider gerade vergeben. Bitte wählen Sie eine andere: Die Liste zeigt die jetzt freien Zeiten.",
    CANCELLATION_CUTOFF: "Dieser Termin beginnt zu bald, um ihn online zu ändern. Bitte rufen Sie die Praxis an.",
    HOLD_EXPIRED: "Die Zeit war nur eine Weile für Sie reserviert, und diese ist abgelaufen. Bitte buchen Sie neu.",
    NOT_FOUND:
      "Dieser Link gilt nicht mehr: Der Termin wurde storniert oder ist vorbei. Bitte buchen Sie neu oder rufen Sie die Praxis an.",
    INVALID_TRANSITION: "Das ist für diesen Termin nicht mehr möglich.",
    RATE_LIMITED: "Zu viele Versuche in kurzer Zeit. Bitte warten Sie eine Minute und versuchen Sie es erneut.",
  },
};

export const strings: Record<Locale, Strings> = { en, de };
