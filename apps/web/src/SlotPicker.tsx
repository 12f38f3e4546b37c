import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { client, messageOf } from "./api.ts";
import { type Locale, longDateIn, strings } from "./i18n.ts";
import { timeIn, visitorZone } from "./time.ts";

export type Slot = RouterOutputs["onlineBooking"]["availability"]["slots"][number];

/** A slot's time in the clinic's zone, and in the visitor's when that differs. */
export function SlotTime({ start, timeZone, locale = "en" }: { start: Date; timeZone: string; locale?: Locale }) {
  const mine = visitorZone();
  return (
    <>
      {timeIn(start, timeZone)}
      {mine !== timeZone && (
        <small className="own-zone">
          {" "}
          ({timeIn(start, mine)} {strings[locale].yourTime})
        </small>
      )}
    </>
  );
}

/** The free times of one service on one date (O3), as buttons. */
export function SlotPicker(props: {
  clinicId: string;
  serviceId: string;
  date: string;
  timeZone: string;
  providerId?: string | undefined;
  selected?: string | undefined;
  locale?: Locale;
  /** The accessible name of a slot's button; its visible time comes first (WCAG 2.5.3). */
  nameOf?: (slot: Slot) => string;
  onPick: (slot: Slot) => void;
}) {
  const locale = props.locale ?? "en";
  const t = strings[locale];
  const slots = useQuery({
    queryKey: ["slots", props.clinicId, props.serviceId, props.date, props.providerId ?? ""],
    queryFn: () =>
      client.onlineBooking.availability.query({
        clinic_id: props.clinicId,
        service_id: props.serviceId,
        from: props.date,
        to: props.date,
        ...(props.providerId ? { provider_id: props.providerId } : {}),
      }),
  });
  const date = longDateIn(locale, props.date);
  if (slots.isPending) return <p role="status">{t.loadingTimes}</p>;
  if (slots.isError) return <p role="alert">{messageOf(slots.error)}</p>;
  if (slots.data.slots.length === 0) return <p>{t.noTimesOn(date)}</p>;
  return (
    <ul className="slots" aria-label={t.freeTimesOn(date)}>
      {slots.data.slots.map((slot) => {
        const key = slot.start.toISOString();
        // A group session's slot says how many seats are left (§14); a one-seat slot says nothing.
        const seats = slot.remaining === undefined ? undefined : t.seatsLeft(slot.remaining);
        const name = props.nameOf?.(slot);
        return (
          <li key={key}>
            <button
              type="button"
              className="slot"
              aria-pressed={props.selected === key}
              aria-label={name === undefined ? undefined : seats ? `${name}, ${seats}` : name}
              onClick={() => {
                props.onPick(slot);
              }}
            >
              <SlotTime start={slot.start} timeZone={props.timeZone} locale={locale} />
              {seats && (
                <small className="seats" data-testid="seats-left">
                  {" "}
                  · {seats}
                </small>
              )}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
