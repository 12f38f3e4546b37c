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
