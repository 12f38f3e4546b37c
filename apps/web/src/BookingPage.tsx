import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { useEffect, useRef, useState } from "react";
import { type AnswerErrors, type Draft, answerErrorsOf, answersOf, checkDrafts, type Question } from "./answers.ts";
import { client, errorCodeOf, guestMessageOf, messageOf, messageWithFields } from "./api.ts";
import { useFirstFree } from "./firstFree.ts";
import { GuestForm, type GuestPatient } from "./GuestForm.tsx";
import { MonthView, monthOf } from "./MonthView.tsx";
import { MyDataDownload } from "./MyDataDownload.tsx";
import { AnswersList, QuestionsFields } from "./QuestionsFields.tsx";
import { matches } from "./search.ts";
import { SignInLink } from "./SignIn.tsx";
import { type Slot, SlotPicker, SlotTime } from "./SlotPicker.tsx";
import { WaitlistForm, type WaitlistRequest } from "./WaitlistForm.tsx";
import { dateIn, longDate, timeIn, visitorZone } from "./time.ts";

type Appointment = RouterOutputs["me"]["appointments"]["appointments"][number];
type Hold = RouterOutputs["onlineBooking"]["hold"];
type WaitlistEntry = RouterOutputs["waitlist"]["join"];

/** The current time, every 15 seconds (the hold's countdown). */
function useNow(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => {
      setNow(new Date());
    }, 15_000);
    return () => {
      clearInterval(timer);
    };
  }, []);
  return now;
}

/** The caller's upcoming appointments (U1); UNAUTHENTICATED tells a visitor from a signed-in patient. */
function useMine() {
  return useQuery({
    queryKey: ["me"],
    queryFn: () => client.me.appointments.query({ from: new Date(), status: "booked" }),
  });
}

/** "My appointments": the caller's upcoming ones in every clinic, with cancel and move. */
function MyAppointments({ clinicId, timeZone }: { clinicId: string; timeZone: string }) {
  const queryClient = useQueryClient();
  const [moving, setMoving] = useState<Appointment | undefined>();
  const [moveDate, setMoveDate] = useState("");
  const [moveMonth, setMoveMonth] = useState("");
  const [message, setMessage] = useState<string | undefined>();
  const mine = useMine();
  const today = dateIn(new Date(), timeZone);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["me"] }),
      queryClient.invalidateQueries({ queryKey: ["slots"] }),
    ]);
  const cancel = useMutation({
    mutationFn: (id: string) => client.me.cancel.mutate({ id }),
    onSuccess: async () => {
      setMessage("Your appointment is canceled.");
      await refresh();
    },
    onError: (error) => {
      setMessage(messageOf(error));
    },
  });
  const move = useMutation({
    mutationFn: (input: { id: string; start: Date }) => client.me.reschedule.mutate(input),
    onSuccess: async (moved) => {
      setMessage(`Moved to ${longDate(dateIn(moved.start, timeZone))}, ${timeIn(moved.start, timeZone)}.`);
      setMoving(undefined);
      await refresh();
    },
    onError: async (error) => {
      setMessage(messageOf(error));
      await refresh();
    },
  });
  if (mine.isError && errorCodeOf(mine.error) === "UNAUTHENTICATED") {
    return (
      <section aria-labelledby="mine-heading">
        <h2 id="mine-heading">My appointments</h2>
        <p>
          <SignInLink /> to see and change the appointments of your account. A guest booking is changed through the link
          in its e-mail.
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="mine-heading">
      <h2 id="mine-heading">My appointments</h2>
      <MyDataDownload />
      {message && <p role="status">{message}</p>}
      {mine.isPending && <p role="status">Loading…</p>}
      {mine.isError && <p role="alert">{messageOf(mine.error)}</p>}
      {mine.data?.appointments.length === 0 && <p>No upcoming appointments.</p>}
      <ul className="appointments">
        {mine.data?.appointments.map((a) => (
          <li key={a.id} data-testid="my-appointment">
            <strong>{a.service_name}</strong> with {a.provider_name}, {longDate(dateIn(a.start, timeZone))} at{" "}
            <SlotTime start={a.start} timeZone={timeZone} />
            <AnswersList answers={a.answers} />
            <div className="actions">
              <button
                type="button"
                onClick={() => {
                  cancel.mutate(a.id);
                }}
                disabled={cancel.isPending}
              >
                Cancel
              </button>
              <button
                type="button"
                onClick={() => {
                  setMoving(a);
                  setMoveDate(dateIn(a.start, timeZone));
                  setMoveMonth(monthOf(dateIn(a.start, timeZone)));
                }}
              >
                Move
              </button>
            </div>
            {moving?.id === a.id && a.clinic_id === clinicId && (
              <div className="move">
                <MonthView
                  clinicId={clinicId}
                  serviceId={a.service_id}
                  providerId={a.provider_id}
                  month={moveMonth || monthOf(today)}
                  today={today}
                  selected={moveDate}
                  onMonth={setMoveMonth}
                  onSelect={setMoveDate}
                />
                <label>
                  New date{" "}
                  <input
                    type="date"
                    value={moveDate}
                    onChange={(e) => {
                      setMoveDate(e.target.value);
                      if (e.target.value) setMoveMonth(monthOf(e.target.value));
                    }}
                  />
                </label>
                {moveDate && (
                  <SlotPicker
                    clinicId={clinicId}
                    serviceId={a.service_id}
                    providerId={a.provider_id}
                    date={moveDate}
                    timeZone={timeZone}
                    onPick={(slot) => {
                      move.mutate({ id: a.id, start: slot.start });
                    }}
                  />
                )}
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The clinic could not be read: for a visitor of a clinic that needs a sign-in, the way to sign in. */
function ClinicProblem({ error }: { error: unknown }) {
  if (errorCodeOf(error) === "UNAUTHENTICATED") {
    return (
      <main className="page booking">
        <h1>Book an appointment</h1>
        <p role="alert">
          Please sign in first: <SignInLink>Sign in to book</SignInLink>.
        </p>
      </main>
    );
  }
  return (
    <main className="page booking">
      <h1>Book an appointment</h1>
      <p role="alert">{messageOf(error)}</p>
    </main>
  );
}

/** The patient booking page `/book/{clinic_id}` (docs/web.md): signed-in patients and guests alike. */
export function BookingPage({ clinicId }: { clinicId: string }) {
  const queryClient = useQueryClient();
  const clinic = useQuery({
    queryKey: ["clinic", clinicId],
    queryFn: () => client.onlineBooking.clinic.query({ clinic_id: clinicId }),
  });
  const services = useQuery({
    queryKey: ["services", clinicId],
    queryFn: () => client.onlineBooking.services.query({ clinic_id: clinicId }),
  });
  const mine = useMine();
  const visitor = mine.isError && errorCodeOf(mine.error) === "UNAUTHENTICATED";
  const [search, setSearch] = useState("");
  const [serviceId, setServiceId] = useState("");
  /** The date chosen; "" = the date of the first free time (the default). */
  const [chosenDate, setChosenDate] = useState("");
  /** The month shown; "" = the month of the date. */
  const [chosenMonth, setChosenMonth] = useState("");
  const [slot, setSlot] = useState<Slot | undefined>();
  const [name, setName] = useState("");
  const [phone, setPhone] = useState("");
  const [message, setMessage] = useState<string | undefined>();
  /** The message is about a refused sign-in (an expired cookie): it carries the sign-in link. */
  const [signInAgain, setSignInAgain] = useState(false);
  const fail = (error: unknown, describe: (error: unknown) => string = messageOf) => {
    setMessage(describe(error));
    setSignInAgain(errorCodeOf(error) === "UNAUTHENTICATED");
  };
  const [booked, setBooked] = useState<Appointment | undefined>();
  const [guestHeld, setGuestHeld] = useState<{ appointment: Appointment; email: string } | undefined>();
  const [hold, setHold] = useState<Hold | undefined>();
  const [waitlistOpen, setWaitlistOpen] = useState(false);
  const [waitlisted, setWaitlisted] = useState<WaitlistEntry | undefined>();
  const [waitlistProblem, setWaitlistProblem] = useState<string | undefined>();
  /** The answers to the service's questions as typed (§19), the errors by question, and the refused tries. */
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [answerErrors, setAnswerErrors] = useState<AnswerErrors>({});
  const [answerAttempt, setAnswerAttempt] = useState(0);
  const now = useNow();
  // The outcome of a booking is at the top of a long page: it takes the focus (and scrolls into view).
  const outcome = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (booked ?? guestHeld) outcome.current?.focus();
  }, [booked, guestHeld]);
  const timeZone = clinic.data?.timezone ?? "UTC";
  const today = dateIn(now, timeZone);
  const first = useFirstFree({ clinicId, serviceId });
  const date = chosenDate || (first.data ? dateIn(first.data.start, timeZone) : "");
  const month = chosenMonth || monthOf(date || today);
  const questions: readonly Question[] = services.data?.services.find((s) => s.id === serviceId)?.questions ?? [];
  /** The `answers` of a booking: sent when the service asks anything. */
  const answersInput = () => (questions.length > 0 ? { answers: answersOf(questions, drafts) } : {});
  const answerDraft = (key: string, draft: Draft) => {
    setDrafts((before) => ({ ...before, [key]: draft }));
    setAnswerErrors(({ [key]: _fixed, ...others }) => others);
  };
  /**
   * The checks before a booking is sent: true when the answers may go; else the questions in error
   * say why, and the first takes the focus.
   */
  const answersReady = () => {
    const errors = checkDrafts(questions, drafts);
    setAnswerErrors(errors);
    if (Object.keys(errors).length === 0) return true;
    setAnswerAttempt((n) => n + 1);
    setMessage("Please check your answers to the clinic's questions.");
    setSignInAgain(false);
    return false;
  };
  /**
   * A booking refused for its answers (400 at `answers.<key>`): the errors go under their questions
   * and the time stays chosen (and held), so the patient fixes them and books again. False for any
   * other error.
   */
  const refusedAnswers = (error: unknown) => {
    const refused = answerErrorsOf(error);
    if (!refused) return false;
    setAnswerErrors(refused);
    setAnswerAttempt((n) => n + 1);
    setSignInAgain(false);
    const shown = new Set(questions.map((q) => q.key));
    setMessage(
      Object.keys(refused).every((key) => shown.has(key))
        ? "Please check your answers to the clinic's questions."
        : "The clinic's questions for this service have changed. Please reload the page and answer them again.",
    );
    return true;
  };
  const resetAnswers = () => {
    setDrafts({});
    setAnswerErrors({});
  };

  /** Lets a kept time go (when the patient goes back or picks another); it expires by itself anyway. */
  const releaseHold = () => {
    if (!hold) return;
    setHold(undefined);
    client.appointments.releaseHold
      .mutate({ clinic_id: clinicId, id: hold.id })
      .catch(() => undefined)
      .finally(() => void queryClient.invalidateQueries({ queryKey: ["slots"] }));
  };
  // The time is kept for a signed-in patient while they type their details (T3); the booking uses it.
  const holdSlot = useMutation({
    mutationFn: async (picked: Slot) => {
      // The previous time goes first, so that it does not count against the patient's holds.
      if (hold)
        await client.appointments.releaseHold.mutate({ clinic_id: clinicId, id: hold.id }).catch(() => undefined);
      return client.onlineBooking.hold.mutate({ clinic_id: clinicId, service_id: serviceId, start: picked.start });
    },
    onSuccess: (kept, picked) => {
      setHold(kept);
      setSlot(picked);
    },
    onError: async (error, picked) => {
      // Picked before the page knew the visitor has no account: the pick stands, for a guest booking.
      if (errorCodeOf(error) === "UNAUTHENTICATED" && !mine.data) {
        setSlot(picked);
        await queryClient.invalidateQueries({ queryKey: ["me"] });
        return;
      }
      fail(error);
      setSlot(undefined);
      await queryClient.invalidateQueries({ queryKey: ["slots"] });
    },
  });
  const pick = (picked: Slot) => {
    if (hold && hold.start.getTime() === picked.start.getTime()) return;
    setHold(undefined);
    setSlot(picked);
    setBooked(undefined);
    setGuestHeld(undefined);
    setMessage(undefined);
    // A visitor's time is held by the guest booking itself, once the details are in.
    if (!visitor) holdSlot.mutate(picked);
  };
  const refreshSlots = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["me"] }),
      queryClient.invalidateQueries({ queryKey: ["slots"] }),
    ]);
  const book = useMutation({
    mutationFn: (input: { slot: Slot; holdId: string | undefined }) =>
      client.onlineBooking.book.mutate({
        clinic_id: clinicId,
        service_id: serviceId,
        start: input.slot.start,
        patient: { name, ...(phone ? { phone_e164: phone } : {}) },
        ...(input.holdId ? { hold_id: input.holdId } : {}),
        ...answersInput(),
      }),
    onSuccess: async (appointment) => {
      setBooked(appointment);
      setSlot(undefined);
      setHold(undefined);
      setMessage(undefined);
      resetAnswers();
      await refreshSlots();
    },
    onError: async (error) => {
      if (refusedAnswers(error)) return;
      fail(error);
      setSlot(undefined);
      setHold(undefined);
      // Whatever went wrong, the free times shown next are the current ones.
      await queryClient.invalidateQueries({ queryKey: ["slots"] });
    },
  });
  const bookAsGuest = useMutation({
    mutationFn: (input: { slot: Slot; patient: GuestPatient }) =>
      guestBooking(clinicId, serviceId, { ...input, ...answersInput() }),
    onSuccess: async (appointment, input) => {
      setGuestHeld({ appointment, email: input.patient.email });
      setSlot(undefined);
      setMessage(undefined);
      resetAnswers();
      await refreshSlots();
    },
    onError: async (error) => {
      if (refusedAnswers(error)) return;
      fail(error, guestMessageOf);
      setSlot(undefined);
      await queryClient.invalidateQueries({ queryKey: ["slots"] });
    },
  });

  const joinWaitlist = useMutation({
    mutationFn: (request: WaitlistRequest) =>
      client.waitlist.join.mutate({
        clinic_id: clinicId,
        service_id: serviceId,
        from_date: request.from_date,
        to_date: request.to_date,
        ...(request.weekdays ? { weekdays: request.weekdays } : {}),
        ...(request.earliest ? { earliest: request.earliest } : {}),
        ...(request.latest ? { latest: request.latest } : {}),
        patient: { name: request.patient.name },
      }),
    onSuccess: (entry) => {
      setWaitlisted(entry);
      setWaitlistOpen(false);
      setWaitlistProblem(undefined);
    },
    onError: (error) => {
      setWaitlistProblem(
        messageWithFields(error, {
          from_date: "From",
          to_date: "Until",
          earliest: "Not before",
          latest: "Not after",
          weekdays: "Weekdays",
        }),
      );
    },
  });

  if (clinic.isPending) return <p role="status">Loading…</p>;
  if (clinic.isError) return <ClinicProblem error={clinic.error} />;
  const shown = (services.data?.services ?? []).filter((s) => matches(s.name, search));
  const keptMs = hold?.held_until ? hold.held_until.getTime() - now.getTime() : 0;
  const keptMinutes = Math.floor(keptMs / 60_000);
  const holdExpired = hold !== undefined && keptMs <= 0;
  const slotDate = slot ? dateIn(slot.start, timeZone) : date;
  const chosenText = slot ? `${timeIn(slot.start, timeZone)} on ${longDate(slotDate)}` : undefined;
  const chooseDate = (next: string) => {
    releaseHold();
    setChosenDate(next);
    setChosenMonth(next ? monthOf(next) : "");
    setSlot(undefined);
  };

  return (
    <main className="page booking">
      <h1>Book at {clinic.data.name}</h1>
      <p className="hint">
        Times are shown in the clinic's time zone ({timeZone})
        {visitorZone() !== timeZone ? `, with yours (${visitorZone()}) in brackets` : ""}.
      </p>
      {visitor && (
        <p className="visitor" data-testid="visitor">
          You are not signed in. Book as a guest with your name and e-mail address, or <SignInLink>sign in</SignInLink>{" "}
          to book with your account.
        </p>
      )}
      {booked && (
        <p role="status" className="confirmation" tabIndex={-1} ref={outcome}>
          Booked: {booked.service_name} with {booked.provider_name}, {longDate(dateIn(booked.start, timeZone))} at{" "}
          {timeIn(booked.start, timeZone)}.
        </p>
      )}
      {guestHeld && (
        <p role="status" className="confirmation" data-testid="guest-held" tabIndex={-1} ref={outcome}>
          Almost done: we sent an e-mail to {guestHeld.email}. Please follow its link
          {guestHeld.appointment.held_until
            ? ` by ${timeIn(guestHeld.appointment.held_until, timeZone)} clinic time`
            : ""}{" "}
          to confirm {guestHeld.appointment.service_name} on {longDate(dateIn(guestHeld.appointment.start, timeZone))}{" "}
          at {timeIn(guestHeld.appointment.start, timeZone)}; until then the time is kept for you.
        </p>
      )}
      {message && (
        <p role="alert" className="problem">
          {message}
          {signInAgain && (
            <>
              {" "}
              <SignInLink />
            </>
          )}
        </p>
      )}
      <fieldset>
        <legend>1. Service</legend>
        <label>
          Search services{" "}
          <input
            type="search"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
            }}
            placeholder="e.g. massage"
          />
        </label>
        {services.isError && <p role="alert">{messageOf(services.error)}</p>}
        <div className="choices" role="radiogroup" aria-label="Services">
          {shown.map((s) => (
            <label key={s.id} className="choice">
              <input
                type="radio"
                name="service"
                value={s.id}
                checked={serviceId === s.id}
                onChange={() => {
                  releaseHold();
                  setServiceId(s.id);
                  setChosenDate("");
                  setChosenMonth("");
                  setSlot(undefined);
                  setBooked(undefined);
                  resetAnswers();
                }}
              />
              {s.name} ({s.duration_min} min{s.provider_name ? `, ${s.provider_name}` : ""})
            </label>
          ))}
          {services.data && shown.length === 0 && <p>No service matches “{search}”.</p>}
        </div>
      </fieldset>
      <fieldset disabled={!serviceId}>
        <legend>2. Date and time</legend>
        {serviceId && first.isPending && <p role="status">Looking for the first free time…</p>}
        {serviceId && first.data && (
          <p className="first-free" data-testid="first-free">
            First free time: <strong>{longDate(dateIn(first.data.start, timeZone))}</strong> at{" "}
            <strong>
              <SlotTime start={first.data.start} timeZone={timeZone} />
            </strong>{" "}
            <button
              type="button"
              className="secondary"
              onClick={() => {
                if (!first.data) return;
                chooseDate(dateIn(first.data.start, timeZone));
                pick(first.data);
              }}
            >
              Take the first free time
            </button>
          </p>
        )}
        {serviceId && first.data === null && (
          <p data-testid="no-free-time">There is no free time for this service within the next year.</p>
        )}
        {serviceId && (
          <MonthView
            clinicId={clinicId}
            serviceId={serviceId}
            month={month}
            today={today}
            selected={date}
            onMonth={(m) => {
              setChosenMonth(m);
            }}
            onSelect={chooseDate}
          />
        )}
        <label>
          Date{" "}
          <input
            type="date"
            min={today}
            value={date}
            onChange={(e) => {
              chooseDate(e.target.value);
            }}
          />
        </label>
        {serviceId && date && (
          <SlotPicker
            clinicId={clinicId}
            serviceId={serviceId}
            date={date}
            timeZone={timeZone}
            selected={slot?.start.toISOString()}
            onPick={pick}
          />
        )}
      </fieldset>
      {serviceId && (
        <section className="waitlist-offer" aria-labelledby="waitlist-offer-heading">
          <h2 id="waitlist-offer-heading">
            {first.data === null ? "No free time? Join the waitlist" : "Nothing fits? Join the waitlist"}
          </h2>
          {waitlisted ? (
            <p role="status" className="confirmation" data-testid="waitlisted">
              You are on the waitlist from {longDate(waitlisted.from_date)} to {longDate(waitlisted.to_date)}. When a
              time that fits becomes free, we keep it for you and send you an e-mail with a link to accept it.
            </p>
          ) : visitor ? (
            <p>
              <SignInLink>Sign in</SignInLink> to join the waitlist: the offer goes to your account's e-mail.
            </p>
          ) : waitlistOpen || first.data === null ? (
            <>
              {waitlistProblem && (
                <p role="alert" className="problem">
                  {waitlistProblem}
                </p>
              )}
              <WaitlistForm
                today={today}
                askEmail={false}
                busy={joinWaitlist.isPending}
                onSubmit={(request) => {
                  joinWaitlist.mutate(request);
                }}
              />
            </>
          ) : (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setWaitlistOpen(true);
              }}
            >
              Join the waitlist
            </button>
          )}
        </section>
      )}
      {visitor ? (
        <GuestForm
          chosen={chosenText}
          busy={bookAsGuest.isPending}
          onSubmit={(patient) => {
            if (slot && answersReady()) bookAsGuest.mutate({ slot, patient });
          }}
          onBack={() => {
            setSlot(undefined);
          }}
        >
          {slot && (
            <QuestionsFields
              questions={questions}
              drafts={drafts}
              errors={answerErrors}
              attempt={answerAttempt}
              onChange={answerDraft}
            />
          )}
        </GuestForm>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (slot && hold && !holdExpired && answersReady()) book.mutate({ slot, holdId: hold.id });
          }}
        >
          <fieldset disabled={!hold || holdExpired}>
            <legend>3. Your details</legend>
            {slot && holdSlot.isPending && <p role="status">Keeping {timeIn(slot.start, timeZone)} for you…</p>}
            {slot && hold?.held_until && (
              <p role="status" className={holdExpired ? "problem" : "kept"} data-testid="hold">
                {holdExpired
                  ? `${timeIn(slot.start, timeZone)} is no longer kept for you. Please pick a time again.`
                  : `We keep ${timeIn(slot.start, timeZone)} on ${longDate(slotDate)} for you for ${
                      keptMinutes < 1
                        ? "less than a minute"
                        : `${String(keptMinutes)} minute${keptMinutes === 1 ? "" : "s"}`
                    } (until ${timeIn(hold.held_until, timeZone)} clinic time) while you enter your details.`}
              </p>
            )}
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
            {slot && (
              <QuestionsFields
                questions={questions}
                drafts={drafts}
                errors={answerErrors}
                attempt={answerAttempt}
                onChange={answerDraft}
              />
            )}
            <button type="submit" disabled={!slot || !hold || holdExpired || book.isPending}>
              {chosenText ? `Book ${chosenText}` : "Choose a time first"}
            </button>{" "}
            {slot && (
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  releaseHold();
                  setSlot(undefined);
                }}
              >
                Choose another time
              </button>
            )}
          </fieldset>
        </form>
      )}
      <MyAppointments clinicId={clinicId} timeZone={timeZone} />
    </main>
  );
}

/** A guest's booking (§15 O4 without a token): a held appointment and a confirm e-mail. */
function guestBooking(
  clinicId: string,
  serviceId: string,
  input: { slot: Slot; patient: GuestPatient; answers?: Record<string, unknown> },
) {
  return client.onlineBooking.book.mutate({
    clinic_id: clinicId,
    service_id: serviceId,
    start: input.slot.start,
    patient: input.patient,
    ...(input.answers ? { answers: input.answers } : {}),
  });
}
