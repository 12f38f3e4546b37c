import { useState } from "react";
import { addDays } from "./deskDay.ts";
import { weekdayNames } from "./i18n.ts";

export interface WaitlistRequest {
  from_date: string;
  to_date: string;
  weekdays?: number[];
  earliest?: string;
  latest?: string;
  patient: { name: string; email?: string; phone_e164?: string };
}

/**
 * "Nothing fits? Join the waitlist" (WL1): the dates, weekdays and hours that would suit; when a
 * matching time becomes free the clinic holds it for the patient and e-mails an offer.
 */
export function WaitlistForm(props: {
  today: string;
  /** A visitor gives an e-mail address (the offer goes there); a signed-in patient's is their account's. */
  askEmail: boolean;
  busy: boolean;
  onSubmit: (request: WaitlistRequest) => void;
}) {
  const [from, setFrom] = useState(props.today);
  const [to, setTo] = useState(addDays(props.today, 28));
  const [weekdays, setWeekdays] = useState<number[]>([]);
  const [earliest, setEarliest] = useState("");
  const [latest, setLatest] = useState("");
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const names = weekdayNames("en");
  return (
    <form
      className="waitlist"
      aria-labelledby="waitlist-heading"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit({
          from_date: from,
          to_date: to,
          ...(weekdays.length > 0 ? { weekdays: [...weekdays].sort((a, b) => a - b) } : {}),
          ...(earliest ? { earliest } : {}),
          ...(latest ? { latest } : {}),
          patient: { name, ...(props.askEmail ? { email } : {}) },
        });
      }}
    >
      <h3 id="waitlist-heading">Join the waitlist</h3>
      <p className="hint">
        When a time that suits you becomes free, we keep it for you and send you an e-mail to accept it.
      </p>
      <div className="row">
        <label>
          From{" "}
          <input
            type="date"
            required
            min={props.today}
            value={from}
            onChange={(e) => {
              setFrom(e.target.value);
            }}
          />
        </label>
        <label>
          Until{" "}
          <input
            type="date"
            required
            min={from}
            value={to}
            onChange={(e) => {
              setTo(e.target.value);
            }}
          />
        </label>
      </div>
      <fieldset className="weekdays">
        <legend>Weekdays (none ticked: any day)</legend>
        {names.map((n, i) => {
          const weekday = i + 1;
          return (
            <label key={n.long} className="choice">
              <input
                type="checkbox"
                checked={weekdays.includes(weekday)}
                onChange={(e) => {
                  setWeekdays(e.target.checked ? [...weekdays, weekday] : weekdays.filter((w) => w !== weekday));
                }}
              />
              {n.long}
            </label>
          );
        })}
      </fieldset>
      <div className="row">
        <label>
          Not before (optional){" "}
          <input
            type="time"
            value={earliest}
            onChange={(e) => {
              setEarliest(e.target.value);
            }}
          />
        </label>
        <label>
          Not after (optional){" "}
          <input
            type="time"
            value={latest}
            onChange={(e) => {
              setLatest(e.target.value);
            }}
          />
        </label>
      </div>
      <label>
        Your name{" "}
        <input
          required
          autoComplete="name"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
          }}
        />
      </label>
      {props.askEmail && (
        <label>
          Your e-mail{" "}
          <input
            required
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
            }}
          />
        </label>
      )}
      <button type="submit" disabled={props.busy}>
        Put me on the waitlist
      </button>
    </form>
  );
}
