import { type ReactNode, useState } from "react";

export interface GuestPatient {
  name: string;
  email: string;
  phone_e164?: string;
}

/**
 * A visitor's details for a guest booking (§15): name and e-mail (the confirm link goes there),
 * phone optional. The time is held once this is sent, and booked when the e-mail's link is followed.
 */
export function GuestForm(props: {
  /** "10:00 on Tuesday, 1 December 2026", or undefined while no time is chosen. */
  chosen: string | undefined;
  busy: boolean;
  onSubmit: (patient: GuestPatient) => void;
  onBack: () => void;
  /** More of the form, after the details (the service's questions). */
  children?: ReactNode;
}) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [phone, setPhone] = useState("");
  return (
    <form
      aria-labelledby="guest-legend"
      onSubmit={(e) => {
        e.preventDefault();
        if (props.chosen) props.onSubmit({ name, email, ...(phone ? { phone_e164: phone } : {}) });
      }}
    >
      <fieldset disabled={!props.chosen}>
        <legend id="guest-legend">3. Your details</legend>
        <p className="hint">
          We send a link to your e-mail address; the booking is made when you follow it. No account is needed.
        </p>
        <label>
          Name{" "}
          <input
            required
            autoComplete="name"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
            }}
          />
        </label>
        <label>
          E-mail{" "}
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
        <label>
          Phone (optional, international, e.g. +4915112345678){" "}
          <input
            type="tel"
            autoComplete="tel"
            pattern="\+[1-9][0-9]{6,14}"
            value={phone}
            onChange={(e) => {
              setPhone(e.target.value);
            }}
          />
        </label>
        {props.children}
        <button type="submit" disabled={!props.chosen || props.busy}>
          {props.chosen ? `Book ${props.chosen} and e-mail me the link` : "Choose a time first"}
        </button>{" "}
        {props.chosen && (
          <button type="button" className="secondary" onClick={props.onBack}>
            Choose another time
          </button>
        )}
      </fieldset>
    </form>
  );
}
