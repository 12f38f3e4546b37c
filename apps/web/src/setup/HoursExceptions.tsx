import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { errorCodeOf } from "../api.ts";
import { dateIn, instantAt, longDate, minutesOf } from "../time.ts";
import { instantText } from "./format.ts";
import { type DateOverride, parsePeriods, periodsText } from "./hours.ts";
import type { HoursApi } from "./hoursApi.ts";
import { problemText, useFieldProblems } from "./problem.tsx";

/**
 * Beside the week: the owner's date overrides (§8 D1–D6: a date's own hours, none = closed that
 * day) and closures (K1–K6: from an instant to an instant, e.g. a holiday or a provider's leave),
 * both in the clinic's zone. A closure's times are the clinic's wall clock turned into instants
 * with the zone's rules of that date, so a closure over a DST change is as long as the clock says.
 */
export function HoursExceptions(props: {
  api: HoursApi;
  queryKey: readonly unknown[];
  timeZone: string;
  editable: boolean;
  onNotice: (text: string) => void;
}) {
  const queryClient = useQueryClient();
  const today = dateIn(new Date(), props.timeZone);
  const overrides = useQuery({
    queryKey: [...props.queryKey, "overrides", today],
    queryFn: () => props.api.overrides(today),
  });
  // Closures that have not ended yet: from the start of today (clinic time).
  const since = instantAt(today, 0, props.timeZone);
  const closures = useQuery({
    queryKey: [...props.queryKey, "closures", today],
    queryFn: () => props.api.closures(since),
  });
  const reload = () => queryClient.invalidateQueries({ queryKey: props.queryKey });
  const [rowProblem, setRowProblem] = useState<{ id: string; text: string } | undefined>();
  const removeOverride = useMutation({
    mutationFn: (o: DateOverride) => props.api.removeOverride(o.date),
    onMutate: () => {
      setRowProblem(undefined);
    },
    onSuccess: async (_none, o) => {
      props.onNotice(`Removed the hours of ${longDate(o.date)}: the weekly hours apply again.`);
      await reload();
    },
    onError: async (error, o) => {
      setRowProblem({ id: o.id, text: problemText(error) });
      await reload();
    },
  });
  const removeClosure = useMutation({
    mutationFn: (id: string) => props.api.removeClosure(id),
    onMutate: () => {
      setRowProblem(undefined);
    },
    onSuccess: async () => {
      props.onNotice("Closure removed.");
      await reload();
    },
    onError: async (error, id) => {
      setRowProblem({ id, text: problemText(error) });
      await reload();
    },
  });

  const zone = props.timeZone;
  return (
    <>
      <section className="setup-section" aria-labelledby="overrides-heading" data-testid="overrides">
        <h3 id="overrides-heading">Dates with other hours</h3>
        <p className="hint">On such a date its hours replace the week&apos;s; no hours means closed all day.</p>
        {overrides.isError ? (
          <p role="alert" className="problem">
            {problemText(overrides.error)}
          </p>
        ) : !overrides.data ? (
          <p role="status">Loading…</p>
        ) : overrides.data.length === 0 ? (
          <p>None from today on.</p>
        ) : (
          <ul className="exception-list">
            {overrides.data.map((o) => (
              <li key={o.id} data-testid="override">
                <strong>{longDate(o.date)}</strong>:{" "}
                {o.periods.length === 0 ? "closed all day" : periodsText(o.periods)}
                {o.reason ? ` (${o.reason})` : ""}
                {props.editable && (
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Remove the hours of ${longDate(o.date)}`}
                    disabled={removeOverride.isPending}
                    onClick={() => {
                      removeOverride.mutate(o);
                    }}
                  >
                    Remove
                  </button>
                )}
                {rowProblem?.id === o.id && (
                  <p role="alert" className="field-error">
                    {rowProblem.text}
                  </p>
                )}
              </li>
            ))}
          </ul>
        )}
        {props.editable && (
          <OverrideForm
            api={props.api}
            existing={overrides.data ?? []}
            onSaved={async (text) => {
              props.onNotice(text);
              await reload();
            }}
            reload={reload}
          />
        )}
      </section>
      <section className="setup-section" aria-labelledby="closures-heading" data-testid="closures">
        <h3 id="closures-heading">Closures</h3>
        <p className="hint">
          No times are offered while closed (a holiday, leave); times are the clinic&apos;s ({zone}).
        </p>
        {closures.isError ? (
          <p role="alert" className="problem">
            {problemText(closures.error)}
          </p>
        ) : !closures.data ? (
          <p role="status">Loading…</p>
        ) : closures.data.length === 0 ? (
          <p>None from today on.</p>
        ) : (
          <ul className="exception-list">
            {closures.data.map((c) => {
              const text = `${instantText(c.starts_at, zone)} to ${instantText(c.ends_at, zone)}`;
              return (
                <li key={c.id} data-testid="closure">
                  <strong>{text}</strong>
                  {c.reason ? ` (${c.reason})` : ""}
                  {props.editable && (
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Remove the closure ${text}`}
                      disabled={removeClosure.isPending}
                      onClick={() => {
                        removeClosure.mutate(c.id);
                      }}
                    >
                      Remove
                    </button>
                  )}
                  {rowProblem?.id === c.id && (
                    <p role="alert" className="field-error">
                      {rowProblem.text}
                    </p>
                  )}
                </li>
              );
            })}
          </ul>
        )}
        {props.editable && (
          <ClosureForm
            api={props.api}
            timeZone={zone}
            today={today}
            onSaved={async (text) => {
              props.onNotice(text);
              await reload();
            }}
          />
        )}
      </section>
    </>
  );
}

const overrideLabels: Record<string, string> = { date: "Date", periods: "Hours that day", reason: "Reason" };

/** D1 / D4: a date's hours; an existing one is replaced with the `updated_at` it was read at. */
function OverrideForm(props: {
  api: HoursApi;
  existing: readonly DateOverride[];
  onSaved: (text: string) => Promise<void>;
  reload: () => Promise<void>;
}) {
  const id = useId();
  const problems = useFieldProblems({
    fields: ["date", "periods", "reason"],
    labelOf: (f) => overrideLabels[f.split(".")[0] ?? f],
    codes: { WORK_HOUR_OVERLAP: "periods", INVALID_TIME_RANGE: "periods", STALE_UPDATED_AT: "date" },
  });
  const [date, setDate] = useState("");
  const [hours, setHours] = useState("");
  const [reason, setReason] = useState("");
  const save = useMutation({
    mutationFn: (periods: { opens_at: string; closes_at: string }[]) => {
      const current = props.existing.find((o) => o.date === date);
      return props.api.putOverride({
        date,
        periods,
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        ...(current ? { if_updated_at: current.updated_at } : {}),
      });
    },
    onMutate: () => {
      problems.clear();
    },
    onSuccess: async (_saved, periods) => {
      const words = periods.length === 0 ? "closed all day" : periodsText(periods);
      setDate("");
      setHours("");
      setReason("");
      await props.onSaved(`${longDate(date)}: ${words}.`);
    },
    onError: async (error) => {
      problems.show(error);
      // Someone else set that date meanwhile: the list shows theirs; saving again replaces it.
      if (errorCodeOf(error) === "STALE_UPDATED_AT") await props.reload();
    },
  });
  const hintId = `${id}-hours-hint`;
  return (
    <form
      ref={problems.formRef}
      className="setup-form inline-add"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (date === "") {
          problems.check({ date: "Date: please choose the date." });
          return;
        }
        const parsed = parsePeriods(hours);
        if ("error" in parsed) problems.check({ periods: parsed.error });
        else save.mutate(parsed.periods);
      }}
    >
      <fieldset>
        <legend>Other hours on a date</legend>
        <div className="field">
          <label htmlFor={problems.idOf("date")}>Date</label>
          <input
            {...problems.props("date")}
            type="date"
            value={date}
            onChange={(e) => {
              setDate(e.target.value);
              problems.clear("date");
            }}
          />
          {problems.error("date")}
        </div>
        <div className="field">
          <label htmlFor={problems.idOf("periods")}>Hours that day</label>
          <input
            {...problems.props("periods", hintId)}
            type="text"
            autoComplete="off"
            value={hours}
            onChange={(e) => {
              setHours(e.target.value);
              problems.clear("periods");
            }}
          />
          <span id={hintId} className="field-hint">
            e.g. 09:00–12:00, 14:00–16:00; empty = closed all day
          </span>
          {problems.error("periods")}
        </div>
        <div className="field">
          <label htmlFor={problems.idOf("reason")}>Reason (optional)</label>
          <input
            {...problems.props("reason")}
            type="text"
            value={reason}
            onChange={(e) => {
              setReason(e.target.value);
              problems.clear("reason");
            }}
          />
          {problems.error("reason")}
        </div>
        <button type="submit" disabled={save.isPending}>
          Save the date&apos;s hours
        </button>
      </fieldset>
      {problems.alert}
    </form>
  );
}

const closureLabels: Record<string, string> = { starts_at: "From", ends_at: "Until", reason: "Reason" };

/** K1 / K4: from a date and time to a date and time, the clinic's wall clock. */
function ClosureForm(props: {
  api: HoursApi;
  timeZone: string;
  today: string;
  onSaved: (text: string) => Promise<void>;
}) {
  const problems = useFieldProblems({
    fields: ["starts_at", "ends_at", "reason"],
    labelOf: (f) => closureLabels[f],
    codes: { INVALID_TIME_RANGE: "ends_at" },
  });
  const [fromDate, setFromDate] = useState("");
  const [fromTime, setFromTime] = useState("00:00");
  const [toDate, setToDate] = useState("");
  const [toTime, setToTime] = useState("24:00");
  const [reason, setReason] = useState("");
  const timeOk = (t: string) => /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/.test(t.trim());
  const create = useMutation({
    mutationFn: (input: { starts_at: Date; ends_at: Date }) =>
      props.api.createClosure({ ...input, ...(reason.trim() ? { reason: reason.trim() } : {}) }),
    onMutate: () => {
      problems.clear();
    },
    onSuccess: async (c) => {
      setFromDate("");
      setToDate("");
      setReason("");
      await props.onSaved(
        `Closed from ${instantText(c.starts_at, props.timeZone)} to ${instantText(c.ends_at, props.timeZone)}.`,
      );
    },
    onError: (error) => {
      problems.show(error);
    },
  });
  const input = (
    field: "starts_at" | "ends_at",
    date: string,
    setDate: (v: string) => void,
    time: string,
    setTime: (v: string) => void,
  ) => (
    <fieldset {...problems.props(field)} className="closure-when">
      <legend>{closureLabels[field]}</legend>
      <div className="period-fields">
        <div className="field">
          <label htmlFor={`${problems.idOf(field)}-date`}>Date</label>
          <input
            id={`${problems.idOf(field)}-date`}
            type="date"
            min={props.today}
            value={date}
            onChange={(e) => {
              setDate(e.target.value);
              problems.clear(field);
            }}
          />
        </div>
        <div className="field time-field">
          <label htmlFor={`${problems.idOf(field)}-time`}>Time</label>
          <input
            id={`${problems.idOf(field)}-time`}
            type="text"
            inputMode="numeric"
            size={6}
            value={time}
            onChange={(e) => {
              setTime(e.target.value);
              problems.clear(field);
            }}
          />
        </div>
      </div>
      {problems.error(field)}
    </fieldset>
  );
  return (
    <form
      ref={problems.formRef}
      className="setup-form inline-add"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const missing: Record<string, string> = {};
        if (fromDate === "" || !timeOk(fromTime)) missing.starts_at = "From: a date, and a time as HH:MM.";
        if (toDate === "" || !timeOk(toTime))
          missing.ends_at = "Until: a date, and a time as HH:MM (24:00 = the day's end).";
        if (Object.keys(missing).length > 0) {
          problems.check(missing);
          return;
        }
        create.mutate({
          starts_at: instantAt(fromDate, minutesOf(fromTime.trim()), props.timeZone),
          ends_at: instantAt(toDate, minutesOf(toTime.trim()), props.timeZone),
        });
      }}
    >
      <fieldset>
        <legend>New closure</legend>
        {input("starts_at", fromDate, setFromDate, fromTime, setFromTime)}
        {input("ends_at", toDate, setToDate, toTime, setToTime)}
        <div className="field">
          <label htmlFor={problems.idOf("reason")}>Reason (optional)</label>
          <input
            {...problems.props("reason")}
            type="text"
            value={reason}
            onChange={(e) => {
              setReason(e.target.value);
              problems.clear("reason");
            }}
          />
          {problems.error("reason")}
        </div>
        <button type="submit" disabled={create.isPending}>
          Add the closure
        </button>
      </fieldset>
      {problems.alert}
    </form>
  );
}
