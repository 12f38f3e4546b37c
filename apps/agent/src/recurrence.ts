// Patient text → a recurring series ("every Tuesday at 9 for 10 weeks"): an RRULE of the API's
// subset (CONTRACT §14: FREQ=DAILY|WEEKLY, INTERVAL, BYDAY, COUNT ≤ 104 or UNTIL) and its first
// start in the clinic's zone. Pure and deterministic (regular expressions, no chrono, no model):
// `now` and the zone are arguments. English and German phrases.
import { Temporal } from "temporal-polyfill";
import { addDays, formatDate, formatMinutes, instantAt, isoWeekday, todayIn } from "./localTime.ts";

/** RRULE weekday codes in ISO order: the ISO weekday (Monday 1 … Sunday 7) is index + 1. */
export const weekdayCodes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;
export type WeekdayCode = (typeof weekdayCodes)[number];

/** The API's limits on a series (CONTRACT §14). */
export const maxOccurrences = 104;
export const maxUntilYears = 2;

/** How a series ends: a number of appointments, a length from its first date, or a last date. */
export type SeriesEnd =
  | { kind: "count"; count: number }
  | { kind: "span"; amount: number; unit: "day" | "week" | "month" }
  | { kind: "until"; date: string };

/** What the text asks for, before the first date is known. */
export interface Recurrence {
  freq: "DAILY" | "WEEKLY";
  /** Every `interval`-th day or week (1 … 52). */
  interval: number;
  /** Weekdays in ISO order; empty: every day (DAILY) or the first date's weekday (WEEKLY). */
  byDay: WeekdayCode[];
  /** Clinic wall-clock minutes after midnight. */
  minutes: number;
  /** The date the series is to start on or after ("starting May 4"); undefined: today. */
  from: string | undefined;
  end: SeriesEnd;
}

export type RecurrenceParse =
  | { kind: "none" }
  | { kind: "error"; message: string }
  /** `rest`: the text with the series' phrases blanked out (for the service search). */
  | { kind: "series"; recurrence: Recurrence; rest: string };

/** A series ready for `series.book`: the rule, the first start and the dates it gives. */
export interface SeriesPlan {
  rrule: string;
  /** The first occurrence's clinic date and the instant of its start. */
  firstDate: string;
  start: Date;
  minutes: number;
  /** Every occurrence's clinic date, as the API will expand the rule. */
  dates: string[];
  /** "every Tuesday at 09:00, 10 times" */
  description: string;
}

const weekdayNames: readonly [RegExp, WeekdayCode][] = [
  [/^(?:mon|montag)/, "MO"],
  [/^(?:tue|dienstag)/, "TU"],
  [/^(?:wed|mittwoch)/, "WE"],
  [/^(?:thu|donnerstag)/, "TH"],
  [/^(?:fri|freitag)/, "FR"],
  [/^(?:sat|samstag|sonnabend)/, "SA"],
  [/^(?:sun|sonntag)/, "SU"],
];
const weekday =
  "(?:monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thur|thu|friday|fri|saturday|sat|sunday|sun|" +
  "montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag)";
// A weekday name, possibly plural ("mondays", "montags"): \b keeps "sun" out of "sunny".
const weekdayWord = `${weekday}s?\\b`;
const listGlue = "(?:\\s*,\\s*(?:and\\s+|und\\s+)?|\\s+(?:and|und|&|\\+)\\s+|\\s*[&+/]\\s*)";
const weekdayList = `${weekdayWord}(?:${listGlue}${weekdayWord})*`;
const plural =
  "(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|" +
  "montags|dienstags|mittwochs|donnerstags|freitags|samstags|sonntags)\\b";
const pluralList = `${plural}(?:${listGlue}${plural})*`;

// prettier-ignore
const numberWords: Readonly<Record<string, number>> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18,
  nineteen: 19, twenty: 20, ein: 1, eine: 1, einen: 1, eins: 1, zwei: 2, drei: 3, vier: 4, "fünf": 5, fuenf: 5,
  sechs: 6, sieben: 7, acht: 8, neun: 9, zehn: 10, elf: 11, "zwölf": 12, zwoelf: 12, zwanzig: 20,
};
const wordAlternatives = (words: string[]) => words.sort((a, b) => b.length - a.length).join("|");
/** A number in digits or words ("10", "ten", "zehn", "a"). */
const number = `(?:\\d{1,3}|${wordAlternatives(Object.keys(numberWords))})`;
/** The same without the articles: "an appointment" is no count. */
const countNumber = `(?:\\d{1,3}|${wordAlternatives(Object.keys(numberWords).filter((w) => !/^(?:an?|eine?n?)$/.test(w)))})`;
// prettier-ignore
const ordinals: Readonly<Record<string, number>> = {
  other: 2, second: 2, third: 3, fourth: 4, zweiten: 2, zweite: 2, zweiter: 2, dritten: 3, dritte: 3, vierten: 4,
  vierte: 4,
};
const ordinal = `(?:other|second|third|fourth|zweite[nr]?|dritten?|vierten?|\\d{1,2}(?:st|nd|rd|th|\\.))`;

const monthNames: readonly [RegExp, number][] = [
  [/^(?:jan|jä|jae)/, 1],
  [/^feb/, 2],
  [/^(?:mar|mär|mae)/, 3],
  [/^apr/, 4],
  [/^(?:may|mai)/, 5],
  [/^jun/, 6],
  [/^jul/, 7],
  [/^aug/, 8],
  [/^sep/, 9],
  [/^o[ck]t/, 10],
  [/^nov/, 11],
  [/^de[cz]/, 12],
];
const month =
  "(?:january|januar|jänner|jan|february|februar|feb|march|märz|maerz|mar|april|apr|may|mai|june|juni|jun|" +
  "july|juli|jul|august|aug|september|sept|sep|october|oktober|oct|okt|november|nov|december|dezember|dec|dez)\\b\\.?";

function numberOf(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : (numberWords[text] ?? Number.NaN);
}

/** "other", "3rd", "zweiten", "2." → the interval; a plain number ("2", "two") too. */
function intervalOf(text: string): number {
  const digits = /^(\d{1,3})/.exec(text);
  return digits ? Number(digits[1]) : (ordinals[text] ?? numberWords[text] ?? Number.NaN);
}

function codeOf(name: string): WeekdayCode {
  return weekdayNames.find(([pattern]) => pattern.test(name))?.[1] ?? "MO";
}

function codesIn(list: string): WeekdayCode[] {
  const found = new Set((list.match(new RegExp(weekday, "g")) ?? []).map(codeOf));
  return weekdayCodes.filter((c) => found.has(c));
}

const isoOf = (code: WeekdayCode) => weekdayCodes.indexOf(code) + 1;

/** A real calendar date, or undefined (31 June, month 13). */
function realDate(year: number, monthNumber: number, day: number): string | undefined {
  try {
    return Temporal.PlainDate.from({ year, month: monthNumber, day }, { overflow: "reject" }).toString();
  } catch {
    return undefined;
  }
}

/** A date without a year: its next occurrence on or after today. */
function nextYearly(monthNumber: number, day: number, today: string): string | undefined {
  const year = Number(today.slice(0, 4));
  const date = realDate(year, monthNumber, day) ?? realDate(year + 1, monthNumber, day);
  if (date === undefined) return undefined;
  return date >= today ? date : realDate(year + 1, monthNumber, day);
}

const fullYear = (text: string | undefined) =>
  text === undefined ? undefined : text.length === 2 ? 2000 + Number(text) : Number(text);

/** Date phrases, tried at one position (sticky): each gives the date it names, or undefined. */
const datePatterns: readonly [RegExp, (m: RegExpExecArray, today: string) => string | undefined][] = [
  [/(\d{4})-(\d{1,2})-(\d{1,2})\b/y, (m) => realDate(Number(m[1]), Number(m[2]), Number(m[3]))],
  [
    /(\d{1,2})\.\s?(\d{1,2})\.(\d{4}|\d{2})?(?!\d)/y,
    (m, today) => {
      const year = fullYear(m[3]);
      return year ? realDate(year, Number(m[2]), Number(m[1])) : nextYearly(Number(m[2]), Number(m[1]), today);
    },
  ],
  [
    new RegExp(`(\\d{1,2})(?:st|nd|rd|th|\\.)?\\s+(?:of\\s+)?(${month})(?:,?\\s+(\\d{4}))?`, "y"),
    (m, today) => dateWithMonthName(m[2] ?? "", Number(m[1]), fullYear(m[3]), today),
  ],
  [
    new RegExp(`(${month})\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4}))?`, "y"),
    (m, today) => dateWithMonthName(m[1] ?? "", Number(m[2]), fullYear(m[3]), today),
  ],
  [/(?:today|heute)\b/y, (_m, today) => today],
  [/(?:tomorrow|morgen)\b/y, (_m, today) => addDays(today, 1)],
  [
    /(?:next|n(?:ä|ae|a)chste[nr]?|kommende[nr]?)\s+(?:week|woche)\b/y,
    (_m, today) => addDays(today, 8 - isoWeekday(today)),
  ],
  [
    /(?:next|n(?:ä|ae|a)chste[nr]?|kommende[nr]?)\s+(?:month|monat)\b/y,
    (_m, today) => Temporal.PlainDate.from(today).add({ months: 1 }).with({ day: 1 }).toString(),
  ],
  [
    new RegExp(`(?:(?:next|this|on|coming|n(?:ä|ae|a)chsten|kommenden|am|diesen)\\s+)?(${weekday})\\b`, "y"),
    (m, today) => {
      const wanted = isoOf(codeOf(m[1] ?? ""));
      return addDays(today, (wanted - isoWeekday(today) + 7) % 7 || 7);
    },
  ],
];

function dateWithMonthName(name: string, day: number, year: number | undefined, today: string): string | undefined {
  const monthNumber = monthNames.find(([pattern]) => pattern.test(name))?.[1];
  if (monthNumber === undefined) return undefined;
  return year ? realDate(year, monthNumber, day) : nextYearly(monthNumber, day, today);
}

/** The date phrase at `index` of the (lower-case) text: its date and where it ends. */
function dateAt(text: string, index: number, today: string): { date: string | undefined; end: number } | undefined {
  for (const [pattern, dateOfMatch] of datePatterns) {
    pattern.lastIndex = index;
    const m = pattern.exec(text);
    if (m) return { date: dateOfMatch(m, today), end: index + m[0].length };
  }
  return undefined;
}

/** The text with `[start, end)` replaced by spaces (offsets stay valid). */
function blank(text: string, start: number, end: number): string {
  return text.slice(0, start) + " ".repeat(end - start) + text.slice(end);
}

/** A clock time: "at 9", "at 14:30", "um 9 Uhr", "2:30pm", "9.15h"; a bare hour 1–7 means the afternoon. */
const timePatterns: readonly RegExp[] = [
  /(?:\b(?:at|um)|@)\s*(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?|uhr|h\b)?(?![\d.:])/,
  /\b(\d{1,2})[:.](\d{2})\s*(a\.?m\.?|p\.?m\.?|uhr|h\b)?(?![\d.:])/,
  /\b(\d{1,2})\s*(a\.?m\.?|p\.?m\.?|uhr)(?!\w)/,
];

function clockMinutes(hourText: string, minuteText: string | undefined, meridiem: string | undefined): number | string {
  let hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  const m = meridiem?.replace(/\./g, "");
  if (hour > 23 || minute > 59 || ((m === "am" || m === "pm") && (hour < 1 || hour > 12))) {
    return `${hourText}${minuteText === undefined ? "" : `:${minuteText}`}${meridiem ? ` ${meridiem}` : ""} is not a time of day`;
  }
  if (m === "pm" && hour < 12) hour += 12;
  else if (m === "am" && hour === 12) hour = 0;
  // Clinics work in the daytime, so a bare "at 3" means 15:00 (as for single appointments).
  else if (m !== "am" && m !== "pm" && m !== "uhr" && minuteText === undefined && hour >= 1 && hour <= 7) hour += 12;
  return hour * 60 + minute;
}

interface Found {
  index: number;
  length: number;
}

/**
 * Reads a series from the text, or says it names none. "every Tuesday at 9 for 10 weeks", "every
 * Monday and Thursday at 14:30 for 6 weeks", "daily at 8 for 5 days", "every other Wednesday at 10
 * until 2027-06-30", "jeden Dienstag um 9 für 10 Wochen", "täglich um 8, 5 Mal". A series needs a
 * time of day and an end (a length, a number of appointments, or "until" a date): without one the
 * answer is an error that says what is missing.
 */
export function parseRecurrence(text: string, now: Date, timeZone: string): RecurrenceParse {
  const today = todayIn(now, timeZone);
  // Lower case keeps every offset (the ASCII and German letters here do not change length).
  let t = text.toLowerCase();
  if (t.length !== text.length) t = text.replace(/[A-ZÄÖÜ]/g, (c) => c.toLowerCase());
  const take = (found: Found) => {
    t = blank(t, found.index, found.index + found.length);
  };

  // 1. How often.
  let freq: Recurrence["freq"] | undefined;
  let interval = 1;
  let byDay: WeekdayCode[] = [];
  // "on Mondays" or "werktags" alone may mean any Monday: a series only with an end ("for 6 weeks").
  let weak = false as boolean; // set by the rules below (closures, which narrowing does not see)
  const every = "(?:every|each|jeden|jede|jedes|jedem|alle)";
  const frequencyRules: readonly [RegExp, (m: RegExpExecArray) => void][] = [
    [
      new RegExp(`\\b${every}\\s+(?:(${ordinal})\\s+)?(${weekdayList})`),
      (m) => {
        freq = "WEEKLY";
        interval = m[1] ? intervalOf(m[1]) : 1;
        byDay = codesIn(m[2] ?? "");
      },
    ],
    [
      new RegExp(
        `\\b${every}\\s+(?:(${ordinal}|${number})\\s+)?(days?|tage?n?|tag|weekdays?|workdays?|werktage?n?|arbeitstage?n?|weeks?|wochen?)\\b`,
      ),
      (m) => {
        const unit = m[2] ?? "";
        interval = m[1] ? intervalOf(m[1]) : 1;
        if (/^(?:weekday|workday|werktag|arbeitstag)/.test(unit)) {
          freq = "WEEKLY";
          byDay = ["MO", "TU", "WE", "TH", "FR"];
        } else freq = /^(?:day|tag)/.test(unit) ? "DAILY" : "WEEKLY";
      },
    ],
    [/\b(?:daily|t(?:ä|ae|a)glich)\b/, () => (freq = "DAILY")],
    [
      /\b(?:biweekly|fortnightly|zweiw(?:ö|oe|o)chentlich|vierzehnt(?:ä|ae|a)gig|14-t(?:ä|ae|a)gig)\b/,
      () => {
        freq = "WEEKLY";
        interval = 2;
      },
    ],
    [/\b(?:weekly|w(?:ö|oe|o)chentlich)\b/, () => (freq = "WEEKLY")],
    [
      /\b(?:(?:on\s+)?weekdays|werktags)\b/,
      () => {
        freq = "WEEKLY";
        byDay = ["MO", "TU", "WE", "TH", "FR"];
        weak = true;
      },
    ],
    [
      new RegExp(`\\b(?:on\\s+)?(${pluralList})`),
      (m) => {
        freq = "WEEKLY";
        byDay = codesIn(m[1] ?? "");
        weak = true;
      },
    ],
  ];
  for (const [pattern, apply] of frequencyRules) {
    const m = pattern.exec(t);
    if (!m) continue;
    apply(m);
    take({ index: m.index, length: m[0].length });
    break;
  }
  if (freq === undefined) return { kind: "none" };
  if (!Number.isInteger(interval) || interval < 1 || interval > 52) {
    return { kind: "error", message: "a series repeats every 1 to 52 days or weeks" };
  }
  // "weekly on Tuesday", "every week on Mondays and Fridays": the days may come apart from the frequency.
  if (freq === "WEEKLY" && byDay.length === 0) {
    const m = new RegExp(`\\b(?:(?:on|am)\\s+)?(${weekdayList})`).exec(t);
    if (m) {
      byDay = codesIn(m[1] ?? "");
      take({ index: m.index, length: m[0].length });
    }
  }

  // 2. From when and until when (before the time: dates hold digits too).
  let from: string | undefined;
  let until: string | undefined;
  const clauses: readonly [RegExp, (date: string) => void, string][] = [
    [
      /\b(?:until|till|til|through|thru|up to|bis(?:\s+(?:zum|einschlie(?:ß|ss)lich|am))?)\s+/g,
      (date) => (until = date),
      "until",
    ],
    [
      /\b(?:starting|beginning|start(?:ing)? on|from|ab(?:\s+(?:dem|den|der))?|beginnend(?:\s+am)?)\s+(?:(?:on|from|am)\s+)?/g,
      (date) => (from = date),
      "from",
    ],
  ];
  for (const [keyword, set, name] of clauses) {
    for (const k of t.matchAll(keyword)) {
      const found = dateAt(t, k.index + k[0].length, today);
      if (!found) continue;
      if (found.date === undefined) {
        return { kind: "error", message: `"${text.slice(k.index, found.end).trim()}" is not a real date` };
      }
      set(found.date);
      take({ index: k.index, length: found.end - k.index });
      break;
    }
    if (name === "until" && until === undefined && /\b(?:until|till|bis)\b/.test(t)) {
      return { kind: "error", message: 'give the last date as e.g. "until 2027-06-30" or "until June 30"' };
    }
  }

  // 3. How long.
  let end: SeriesEnd | undefined = until === undefined ? undefined : { kind: "until", date: until };
  const countUnit =
    "(?:sessions?|times|appointments?|occurrences?|visits?|treatments?|termine?n?|sitzungen|sitzung|behandlungen|mal)";
  const spanUnit = "(?:weeks?|wochen?|days?|tage?n?|months?|monate?n?)";
  const endRules: readonly RegExp[] = [
    new RegExp(
      `\\b(?:for|f(?:ü|ue|u)r)\\s+(?:the\\s+next\\s+|die\\s+n(?:ä|ae|a)chsten\\s+)?(${number})\\s+(${spanUnit}|${countUnit})\\b`,
    ),
    new RegExp(`\\b(${countNumber})\\s*-?\\s*(${countUnit})\\b`),
    new RegExp(`\\b(${number})\\s+(${spanUnit})\\s+(?:lang|long)\\b`),
  ];
  for (const pattern of end === undefined ? endRules : []) {
    const m = pattern.exec(t);
    if (!m) continue;
    const amount = numberOf(m[1] ?? "");
    const unit = m[2] ?? "";
    if (!Number.isInteger(amount) || amount < 1) return { kind: "error", message: `"${m[0].trim()}" is no length` };
    end = /^(?:week|woche)/.test(unit)
      ? { kind: "span", amount, unit: "week" }
      : /^(?:day|tag)/.test(unit)
        ? { kind: "span", amount, unit: "day" }
        : /^(?:month|monat)/.test(unit)
          ? { kind: "span", amount, unit: "month" }
          : { kind: "count", count: amount };
    take({ index: m.index, length: m[0].length });
    break;
  }

  if (weak && end === undefined) return { kind: "none" };

  // 4. At what time.
  let minutes: number | undefined;
  for (const pattern of timePatterns) {
    const m = pattern.exec(t);
    if (!m) continue;
    const [hourText = "", minuteText, meridiem] = pattern === timePatterns[2] ? [m[1], undefined, m[2]] : m.slice(1);
    const clock = clockMinutes(hourText, minuteText, meridiem);
    if (typeof clock === "string") return { kind: "error", message: clock };
    minutes = clock;
    take({ index: m.index, length: m[0].length });
    break;
  }
  if (minutes === undefined && /\b(?:at noon|mittags)\b/.test(t)) {
    minutes = 12 * 60;
    const m = /\b(?:at noon|mittags)\b/.exec(t);
    if (m) take({ index: m.index, length: m[0].length });
  }

  if (minutes === undefined) {
    return { kind: "error", message: 'say at what time the series is, e.g. "every Tuesday at 9 for 10 weeks"' };
  }
  if (end === undefined) {
    return {
      kind: "error",
      message: 'say how long the series runs, e.g. "for 10 weeks", "6 times" or "until 2027-06-30"',
    };
  }
  // What is left goes to the service search: blank the series' phrases in the original text.
  let rest = "";
  for (let i = 0; i < text.length; i++) rest += t[i] === " " && text[i] !== " " ? " " : (text[i] ?? "");
  return { kind: "series", recurrence: { freq, interval, byDay, minutes, from, end }, rest };
}

/** The rule's dates from `first` on, as the API expands it (weeks counted from the one holding `first`, starting Monday). */
function* ruleDates(r: Recurrence, first: string): Generator<string> {
  const weekdays = new Set(
    r.byDay.length > 0 ? r.byDay.map(isoOf) : r.freq === "DAILY" ? [1, 2, 3, 4, 5, 6, 7] : [isoWeekday(first)],
  );
  if (r.freq === "DAILY") {
    for (let n = 0; ; n += r.interval) {
      const date = addDays(first, n);
      if (weekdays.has(isoWeekday(date))) yield date;
    }
  } else {
    yield* weeklyDates(r, first, weekdays);
  }
}

function* weeklyDates(r: Recurrence, first: string, weekdays: ReadonlySet<number>): Generator<string> {
  const monday = addDays(first, 1 - isoWeekday(first));
  for (let week = 0; ; week += r.interval) {
    for (let day = 0; day < 7; day++) {
      const date = addDays(monday, week * 7 + day);
      if (date >= first && weekdays.has(isoWeekday(date))) yield date;
    }
  }
}

const dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

function describeRule(r: Recurrence): string {
  const days = r.byDay.map((c) => dayNames[isoOf(c) - 1] ?? c);
  const dayList = days.length > 1 ? `${days.slice(0, -1).join(", ")} and ${days[days.length - 1] ?? ""}` : days[0];
  const weekdaysOnly = r.byDay.join(",") === "MO,TU,WE,TH,FR";
  if (r.freq === "DAILY") {
    const base = r.interval === 1 ? "daily" : `every ${String(r.interval)} days`;
    return dayList ? `${base} on ${dayList}` : base;
  }
  const weeks =
    r.interval === 1 ? "weekly" : r.interval === 2 ? "every other week" : `every ${String(r.interval)} weeks`;
  if (weekdaysOnly) return r.interval === 1 ? "every weekday" : `${weeks}, Monday to Friday`;
  if (!dayList) return weeks;
  if (r.interval === 1) return `every ${dayList}`;
  return r.interval === 2 ? `every other ${dayList}` : `${weeks} on ${dayList}`;
}

/**
 * Fixes a series on the calendar: the first start is the first date on or after the wanted one
 * (or today, in the clinic's zone) that the rule allows and whose start is still ahead of `now`;
 * a length ("for 10 weeks") becomes the COUNT of the dates it spans from there. Refuses what the
 * API would: more than 104 appointments, an end before the start or more than 2 years after it.
 */
export function planSeries(
  r: Recurrence,
  now: Date,
  timeZone: string,
): { ok: true; plan: SeriesPlan } | { ok: false; message: string } {
  const today = todayIn(now, timeZone);
  const from = r.from !== undefined && r.from > today ? r.from : today;
  const allowed = (date: string) =>
    r.byDay.length === 0 || r.byDay.includes(weekdayCodes[isoWeekday(date) - 1] ?? "MO");
  let first = from;
  for (let i = 0; i < 8 && (!allowed(first) || instantAt(first, r.minutes, timeZone) <= now); i++) {
    first = addDays(first, 1);
  }
  const latest = Temporal.PlainDate.from(first).add({ years: maxUntilYears }).toString();
  let lastDate: string;
  switch (r.end.kind) {
    case "until":
      if (r.end.date < first) {
        return {
          ok: false,
          message: `the series would start on ${formatDate(first)}, after its end ${formatDate(r.end.date)}`,
        };
      }
      lastDate = r.end.date;
      break;
    case "span": {
      const { amount, unit } = r.end;
      const after = Temporal.PlainDate.from(first).add(
        unit === "day" ? { days: amount } : unit === "week" ? { weeks: amount } : { months: amount },
      );
      lastDate = after.subtract({ days: 1 }).toString();
      break;
    }
    case "count":
      lastDate = latest;
  }
  if (lastDate > latest) {
    return {
      ok: false,
      message: `a series ends at most ${String(maxUntilYears)} years after its start (${formatDate(latest)})`,
    };
  }
  if (r.end.kind === "count" && r.end.count > maxOccurrences) {
    return { ok: false, message: `a series has at most ${String(maxOccurrences)} appointments` };
  }
  const dates: string[] = [];
  const limit = r.end.kind === "count" ? r.end.count : Infinity;
  for (const date of ruleDates(r, first)) {
    if (dates.length >= limit || date > lastDate || dates.length > maxOccurrences) break;
    dates.push(date);
  }
  if (dates.length > maxOccurrences) {
    return { ok: false, message: `a series has at most ${String(maxOccurrences)} appointments` };
  }
  if (r.end.kind === "count" && dates.length < r.end.count) {
    return {
      ok: false,
      message: `${String(r.end.count)} appointments would reach more than ${String(maxUntilYears)} years past the start`,
    };
  }
  const parts = [`FREQ=${r.freq}`];
  if (r.interval > 1) parts.push(`INTERVAL=${String(r.interval)}`);
  if (r.byDay.length > 0) parts.push(`BYDAY=${r.byDay.join(",")}`);
  parts.push(r.end.kind === "until" ? `UNTIL=${r.end.date.replaceAll("-", "")}` : `COUNT=${String(dates.length)}`);
  const ending =
    r.end.kind === "until"
      ? `until ${formatDate(r.end.date)}`
      : `${String(dates.length)} time${dates.length === 1 ? "" : "s"}`;
  return {
    ok: true,
    plan: {
      rrule: parts.join(";"),
      firstDate: first,
      start: instantAt(first, r.minutes, timeZone),
      minutes: r.minutes,
      dates,
      description: `${describeRule(r)} at ${formatMinutes(r.minutes)}, ${ending}`,
    },
  };
}
