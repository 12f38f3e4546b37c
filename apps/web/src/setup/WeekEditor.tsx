import { useMutation } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { errorCodeOf } from "../api.ts";
import { type WorkHour, dayText, periodText, periodsOf, timeTyped, weekdayName, weekdays } from "./hours.ts";
import type { HoursApi } from "./hoursApi.ts";
import { useFieldProblems } from "./problem.tsx";

const periodLabels: Record<string, string> = { opens_at: "Opens", closes_at: "Closes", period: "Period" };
/** Where a refusal of a period lands: its times at their field, an overlap at the period as a whole. */
const periodPlaces = {
  fields: ["opens_at", "closes_at", "period", "weekday"],
  labelOf: (field: string) => periodLabels[field],
  codes: { WORK_HOUR_OVERLAP: "period", INVALID_TIME_RANGE: "closes_at" },
} as const;

const timeHint = "HH:MM, 24-hour; 24:00 closes at midnight";

/**
 * One owner's week (the clinic's or a provider's): each weekday with its periods, several a day.
 * Editable: each period a small form (Save, Delete) and a form to add one; else the week in words.
 */
export function WeekEditor(props: {
  hours: readonly WorkHour[];
  editable: boolean;
  api: HoursApi;
  reload: () => Promise<WorkHour[]>;
  onNotice: (text: string) => void;
}) {
  const id = useId();
  if (!props.editable)
    return (
      <dl className="facts week-facts" data-testid="week">
        {weekdays.map((d) => (
          <div key={d}>
            <dt>{weekdayName(d)}</dt>
            <dd data-testid={`day-${String(d)}`}>{dayText(props.hours, d)}</dd>
          </div>
        ))}
      </dl>
    );
  return (
    <div className="week" data-testid="week">
      {weekdays.map((d) => {
        const periods = periodsOf(props.hours, d);
        const headingId = `${id}-day-${String(d)}`;
        return (
          <section key={d} className="week-day" aria-labelledby={headingId} data-testid={`day-${String(d)}`}>
            <h3 id={headingId} tabIndex={-1} className="focus-heading">
              {weekdayName(d)}
              {periods.length === 0 && <span className="day-closed"> — closed</span>}
            </h3>
            {periods.map((hour, i) => (
              <PeriodRow
                key={hour.id}
                hour={hour}
                label={`${weekdayName(d)}, period ${String(i + 1)}`}
                api={props.api}
                reload={props.reload}
                onDeleted={(text) => {
                  props.onNotice(text);
                  document.getElementById(headingId)?.focus();
                }}
                onNotice={props.onNotice}
              />
            ))}
            <AddPeriod weekday={d} api={props.api} reload={props.reload} onNotice={props.onNotice} />
          </section>
        );
      })}
    </div>
  );
}

function TimeField(props: {
  field: "opens_at" | "closes_at";
  value: string;
  problems: ReturnType<typeof useFieldProblems>;
  hintId: string;
  onChange: (value: string) => void;
}) {
  const { problems, field } = props;
  return (
    <div className="field time-field">
      <label htmlFor={problems.idOf(field)}>{periodLabels[field]}</label>
      <input
        {...problems.props(field, props.hintId)}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        size={6}
        value={props.value}
        onChange={(e) => {
          props.onChange(e.target.value);
          problems.clear(field);
          problems.clear("period");
        }}
      />
      {problems.error(field)}
    </div>
  );
}

/**
 * A period as a form. What is typed is the person's until saved: a new list (someone else's change
 * read meanwhile) replaces the fields only while they are untouched. The edit carries the
 * `updated_at` the typing started from (`if_updated_at`), so another person's change meanwhile is
 * refused (STALE_UPDATED_AT): the row says so, shows the hours as they are now and keeps what was
 * typed; saving again replaces theirs, "Use theirs" takes them.
 */
function PeriodRow(props: {
  hour: WorkHour;
  label: string;
  api: HoursApi;
  reload: () => Promise<WorkHour[]>;
  onDeleted: (text: string) => void;
  onNotice: (text: string) => void;
}) {
  const { hour } = props;
  const id = useId();
  const problems = useFieldProblems(periodPlaces);
  const [base, setBase] = useState(hour);
  const [opens, setOpens] = useState(hour.opens_at);
  const [closes, setCloses] = useState(hour.closes_at);
  const [stale, setStale] = useState<WorkHour | "gone" | undefined>();
  const staleRef = useRef<HTMLParagraphElement>(null);
  const dirty = opens !== base.opens_at || closes !== base.closes_at;

  // A newer record while nothing is typed: show it (and edit from it).
  useEffect(() => {
    if (hour.updated_at.getTime() === base.updated_at.getTime()) return;
    if (dirty) return;
    setBase(hour);
    setOpens(hour.opens_at);
    setCloses(hour.closes_at);
  }, [hour, base, dirty]);

  useEffect(() => {
    if (stale) staleRef.current?.focus();
  }, [stale]);

  const save = useMutation({
    mutationFn: () =>
      props.api.edit(hour, base.updated_at, { opens_at: timeTyped(opens), closes_at: timeTyped(closes) }),
    onMutate: () => {
      problems.clear();
      setStale(undefined);
    },
    onSuccess: async (saved) => {
      setBase(saved);
      setOpens(saved.opens_at);
      setCloses(saved.closes_at);
      props.onNotice(`Saved: ${weekdayName(saved.weekday)} ${periodText(saved)}.`);
      await props.reload();
    },
    onError: async (error) => {
      if (errorCodeOf(error) === "STALE_UPDATED_AT") {
        // What is true now, read again; the next save is made knowing it.
        const current = (await props.reload()).find((h) => h.id === hour.id);
        if (current) setBase(current);
        setStale(current ?? "gone");
        return;
      }
      problems.show(error);
    },
  });
  const remove = useMutation({
    mutationFn: () => props.api.remove(hour),
    onMutate: () => {
      problems.clear();
    },
    onSuccess: async () => {
      await props.reload();
      props.onDeleted(`Deleted: ${weekdayName(hour.weekday)} ${periodText(base)}.`);
    },
    onError: (error) => {
      problems.show(error);
    },
  });

  const hintId = `${id}-hint`;
  const busy = save.isPending || remove.isPending;
  return (
    <form
      ref={problems.formRef}
      className="period"
      noValidate
      data-testid="period"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <fieldset {...problems.props("period")}>
        <legend>{props.label}</legend>
        <span id={hintId} className="visually-hidden">
          {timeHint}
        </span>
        <div className="period-fields">
          <TimeField field="opens_at" value={opens} problems={problems} hintId={hintId} onChange={setOpens} />
          <TimeField field="closes_at" value={closes} problems={problems} hintId={hintId} onChange={setCloses} />
          <div className="row-actions">
            <button type="submit" disabled={busy} aria-label={`Save ${props.label}`}>
              Save
            </button>
            <button
              type="button"
              className="secondary"
              disabled={busy}
              aria-label={`Delete ${props.label}`}
              onClick={() => {
                remove.mutate();
              }}
            >
              Delete
            </button>
          </div>
        </div>
        {problems.error("period")}
      </fieldset>
      {stale && (
        <div className="stale" data-testid="stale">
          <p role="alert" tabIndex={-1} ref={staleRef} className="problem">
            {stale === "gone"
              ? "Someone else deleted this period meanwhile. What you typed is still here; add it as a new period if it is still wanted."
              : `Someone else changed this period meanwhile: it is now ${periodText(stale)}. What you typed is still here (${timeTyped(opens)}–${timeTyped(closes)}): save again to replace their hours with yours, or use theirs.`}
          </p>
          {stale !== "gone" && (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setOpens(stale.opens_at);
                setCloses(stale.closes_at);
                setStale(undefined);
              }}
            >
              Use theirs ({periodText(stale)})
            </button>
          )}
        </div>
      )}
      {problems.alert}
    </form>
  );
}

/** A new period on a weekday (W1 / W5); an overlap is said at the new period, a bad time at its field. */
function AddPeriod(props: {
  weekday: number;
  api: HoursApi;
  reload: () => Promise<WorkHour[]>;
  onNotice: (text: string) => void;
}) {
  const id = useId();
  const problems = useFieldProblems(periodPlaces);
  const [opens, setOpens] = useState("");
  const [closes, setCloses] = useState("");
  const label = `New period on ${weekdayName(props.weekday)}`;
  const add = useMutation({
    mutationFn: () => props.api.create(props.weekday, { opens_at: timeTyped(opens), closes_at: timeTyped(closes) }),
    onMutate: () => {
      problems.clear();
    },
    onSuccess: async (created) => {
      setOpens("");
      setCloses("");
      props.onNotice(`Added: ${weekdayName(created.weekday)} ${periodText(created)}.`);
      await props.reload();
    },
    onError: (error) => {
      problems.show(error);
    },
  });
  const hintId = `${id}-hint`;
  return (
    <form
      ref={problems.formRef}
      className="period period-new"
      noValidate
      data-testid="add-period"
      onSubmit={(e) => {
        e.preventDefault();
        const missing: Record<string, string> = {};
        if (opens.trim() === "") missing.opens_at = "Opens: please give the opening time.";
        if (closes.trim() === "") missing.closes_at = "Closes: please give the closing time.";
        if (Object.keys(missing).length > 0) problems.check(missing);
        else add.mutate();
      }}
    >
      <fieldset {...problems.props("period")}>
        <legend>{label}</legend>
        <span id={hintId} className="visually-hidden">
          {timeHint}
        </span>
        <div className="period-fields">
          <TimeField field="opens_at" value={opens} problems={problems} hintId={hintId} onChange={setOpens} />
          <TimeField field="closes_at" value={closes} problems={problems} hintId={hintId} onChange={setCloses} />
          <div className="row-actions">
            <button type="submit" disabled={add.isPending} aria-label={`Add the ${label.toLowerCase()}`}>
              Add
            </button>
          </div>
        </div>
        {problems.error("period")}
      </fieldset>
      {problems.alert}
    </form>
  );
}
