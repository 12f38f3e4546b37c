// How an appointment's status looks on the desk (CONTRACT §13). Colour is never the only signal:
// every status also has a symbol, a word and a border style, so it reads in grey scale, to a
// colour-blind receptionist and to a screen reader alike (docs/web.md has the table).

export interface StatusLook {
  /** The word shown on the badge and read out. */
  label: string;
  /** A symbol drawn beside the word (decorative: hidden from screen readers). */
  symbol: string;
}

/** The seven statuses of §13, in the order of an appointment's life. */
export const statusLooks = {
  held: { label: "Held", symbol: "◔" },
  pending: { label: "Awaiting confirmation", symbol: "?" },
  booked: { label: "Booked", symbol: "●" },
  arrived: { label: "Checked in", symbol: "✓" },
  completed: { label: "Completed", symbol: "☑" },
  no_show: { label: "No-show", symbol: "✕" },
  canceled: { label: "Canceled", symbol: "⊘" },
} as const satisfies Record<string, StatusLook>;

export type KnownStatus = keyof typeof statusLooks;

const isKnown = (status: string): status is KnownStatus => Object.hasOwn(statusLooks, status);

/**
 * The look of a status, and the CSS class that colours it. The contract lets statuses grow, so an
 * unknown one is shown neutrally under its own name rather than breaking the page.
 */
export function lookOf(status: string): StatusLook & { className: string } {
  if (isKnown(status)) return { ...statusLooks[status], className: `status-${status}` };
  return { label: status.replace(/_/g, " "), symbol: "•", className: "status-unknown" };
}

/** Statuses that do not take up the provider's time: the grid leaves them out (search still finds them). */
export const freesItsTime = (status: string) => status === "canceled";

/** A one-click change of status at the desk (T1), and the word on its button. */
export interface StatusAction {
  to: KnownStatus;
  label: string;
}

/**
 * The status changes the desk offers an appointment now, after CONTRACT §13's transitions and
 * their time windows: check-in from 24 hours before the start until the end, no-show once the
 * start has passed, "came late" (no-show → checked in) before the end. The server re-checks all
 * of it; the page only leaves out buttons that would be refused.
 */
export function actionsFor(a: { status: string; start: Date; end: Date }, now: Date): StatusAction[] {
  const started = now >= a.start;
  const over = now >= a.end;
  const checkInOpen = now.getTime() >= a.start.getTime() - 24 * 3_600_000 && !over;
  switch (a.status) {
    case "pending":
      return [
        { to: "booked", label: "Confirm" },
        { to: "canceled", label: "Decline" },
      ];
    case "booked":
      return [
        ...(checkInOpen ? [{ to: "arrived", label: "Check in" } as const] : []),
        ...(started ? [{ to: "no_show", label: "No-show" } as const] : []),
      ];
    case "arrived":
      return [
        { to: "completed", label: "Completed" },
        { to: "booked", label: "Undo check-in" },
      ];
    case "no_show":
      return over ? [] : [{ to: "arrived", label: "Came late: check in" }];
    default:
      return [];
  }
}

/** What a change did, in words for the desk's message ("Pat checked in"). */
export const changeWords: Record<KnownStatus, string> = {
  held: "held",
  pending: "awaits confirmation",
  booked: "booked",
  arrived: "checked in",
  completed: "completed",
  no_show: "marked as no-show",
  canceled: "canceled",
};
