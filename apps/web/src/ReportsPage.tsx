import { useQueries, useQuery } from "@tanstack/react-query";
import type { ChartOptions } from "chart.js";
import { type ReactNode, type SyntheticEvent, useId, useState } from "react";
import { client, errorCodeOf, messageOf } from "./api.ts";
import { type ReportChartConfig, ReportChart, dashes, pointShapes, seriesColours } from "./ReportChart.tsx";
import { downloadCsv, reportUrl } from "./reportDownload.ts";
import {
  type MatrixLine,
  type NoShowWeek,
  clinicLine,
  csvFileName,
  dayLabel,
  defaultRange,
  hours,
  noShowWeeks,
  percent,
  rangeProblem,
  utilizationMatrix,
  weekLabel,
  weeksOf,
} from "./reports.ts";
import { dateIn } from "./time.ts";

type Range = { from: string; to: string };
type Download = "utilization-by-week" | "utilization-by-provider" | "appointments";

/** What "—" means in each table, said to screen readers in the cell and to everyone under the table. */
const noUtilization = "no available time";
const noRate = "no completed or missed appointments";

/** The range in the address (`?from=&to=`), when it is a valid one. */
function rangeInAddress(): Range | undefined {
  const params = new URLSearchParams(window.location.search);
  const from = params.get("from") ?? "";
  const to = params.get("to") ?? "";
  return rangeProblem(from, to) ? undefined : { from, to };
}

/** A figure of a table: the value, or "—" with its meaning for a screen reader. */
function Figure(props: { value: string | null; none: string }) {
  if (props.value !== null) return <>{props.value}</>;
  return (
    <>
      <span aria-hidden="true">—</span>
      <span className="visually-hidden">{props.none}</span>
    </>
  );
}

/** A scrolling box for a wide table: focusable, so a keyboard can scroll it too (named by the caption). */
function TableScroll(props: { captionId: string; children: ReactNode }) {
  return (
    // A scrollable region must be reachable by keyboard (axe `scrollable-region-focusable`).
    <div className="table-scroll" role="region" tabIndex={0} aria-labelledby={props.captionId}>
      {props.children}
    </div>
  );
}

/** The clinic's reports `/desk/{clinic_id}/reports`, for CLINIC_ADMIN (docs/web.md "Reports page"). */
export function ReportsPage({ clinicId }: { clinicId: string }) {
  const id = useId();
  const clinic = useQuery({
    queryKey: ["desk-clinic", clinicId],
    queryFn: () => client.clinics.get.query({ clinic_id: clinicId }),
  });
  const timeZone = clinic.data?.timezone ?? "UTC";
  const [picked, setPicked] = useState<Range | undefined>(rangeInAddress);
  const [draft, setDraft] = useState<Range | undefined>();
  const [problem, setProblem] = useState<{ field: "from" | "to"; message: string } | undefined>();
  const [downloading, setDownloading] = useState<Download | undefined>();
  const [downloadNote, setDownloadNote] = useState<{ ok: boolean; text: string } | undefined>();
  const range = picked ?? (clinic.data ? defaultRange(dateIn(new Date(), timeZone)) : undefined);
  const shown = draft ?? range;
  const from = range?.from ?? "";
  const to = range?.to ?? "";

  // The whole range per provider first: it says who the providers are, and whether the caller may see reports.
  const byProvider = useQuery({
    queryKey: ["report-utilization", clinicId, from, to, "provider"],
    queryFn: () => client.reports.utilization.query({ clinic_id: clinicId, from, to, group_by: "provider" }),
    enabled: range !== undefined,
  });
  const byWeek = useQuery({
    queryKey: ["report-utilization", clinicId, from, to, "week"],
    queryFn: () => client.reports.utilization.query({ clinic_id: clinicId, from, to, group_by: "week" }),
    enabled: byProvider.isSuccess,
  });
  // One weekly report per provider (the client batches them into one request).
  const providerRows = byProvider.data?.rows ?? [];
  const providerWeeks = useQueries({
    queries: providerRows.map((p) => ({
      queryKey: ["report-utilization", clinicId, from, to, "week", p.key],
      queryFn: () =>
        client.reports.utilization.query({ clinic_id: clinicId, from, to, group_by: "week", provider_id: p.key }),
    })),
  });

  const weeks = range ? weeksOf(range.from, range.to) : [];
  const loaded = byWeek.isSuccess && providerWeeks.every((q) => q.isSuccess);
  const failed = [byWeek, ...providerWeeks].find((q) => q.isError)?.error;
  const weekly = new Map(providerRows.map((p, i) => [p.key, providerWeeks[i]?.data?.rows ?? []] as const));
  const matrix: MatrixLine[] = byWeek.data
    ? [...utilizationMatrix(weeks, providerRows, weekly), clinicLine(weeks, byWeek.data.rows, "All providers")]
    : [];
  const noShows = byWeek.data ? noShowWeeks(weeks, byWeek.data.rows) : undefined;
  const spansYears = range !== undefined && range.from.slice(0, 4) !== range.to.slice(0, 4);
  const labels = weeks.map((w) => weekLabel(w, spansYears));

  const utilizationChart: ReportChartConfig = {
    type: "line",
    data: {
      labels,
      datasets: matrix.map((line, i) => {
        const clinicWide = line.key === "all";
        const colour = clinicWide ? "#1d2430" : (seriesColours[i % seriesColours.length] ?? "#0072b2");
        return {
          label: line.label,
          data: line.weeks.map(toPercent),
          borderColor: colour,
          backgroundColor: colour,
          borderWidth: clinicWide ? 3 : 2,
          borderDash: clinicWide ? [10, 4] : (dashes[i % dashes.length] ?? []),
          pointStyle: clinicWide ? "line" : (pointShapes[i % pointShapes.length] ?? "circle"),
          pointRadius: 4,
          spanGaps: false,
        };
      }),
    },
    options: lineOptions("Utilization"),
  };
  const noShowChart: ReportChartConfig = {
    type: "bar",
    data: {
      labels,
      datasets: [
        {
          label: "No-show rate",
          data: (noShows?.weeks ?? []).map((w) => toPercent(w.rate)),
          backgroundColor: "#c24e00",
          borderColor: "#8a3700",
          borderWidth: 1,
        },
      ],
    },
    options: barOptions("No-show rate"),
  };

  const apply = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!shown) return;
    const wrong = rangeProblem(shown.from, shown.to);
    setProblem(wrong);
    if (wrong) {
      document.getElementById(`${id}-${wrong.field}`)?.focus();
      return;
    }
    setPicked(shown);
    setDraft(undefined);
    const address = new URL(window.location.href);
    address.searchParams.set("from", shown.from);
    address.searchParams.set("to", shown.to);
    window.history.replaceState(null, "", address);
  };
  const download = async (what: Download) => {
    if (!range) return;
    const url =
      what === "appointments"
        ? reportUrl(clinicId, "appointments", { from, to })
        : reportUrl(clinicId, "utilization", {
            from,
            to,
            group_by: what === "utilization-by-week" ? "week" : "provider",
          });
    const fileName = csvFileName(what, from, to);
    setDownloading(what);
    setDownloadNote(undefined);
    try {
      await downloadCsv(url, fileName);
      setDownloadNote({ ok: true, text: `Downloaded ${fileName}.` });
    } catch (error) {
      setDownloadNote({ ok: false, text: messageOf(error) });
    } finally {
      setDownloading(undefined);
    }
  };

  const deskLink = (
    <p>
      <a href={`/desk/${encodeURIComponent(clinicId)}`}>Back to the front desk</a>
    </p>
  );
  if (clinic.isPending) return <p role="status">Loading…</p>;
  if (clinic.isError) return <p role="alert">{messageOf(clinic.error)}</p>;
  const title = `${clinic.data.name}: reports`;
  if (byProvider.isError && errorCodeOf(byProvider.error) === "FORBIDDEN") {
    return (
      <main className="page reports">
        <h1>{title}</h1>
        <p role="alert" className="problem" data-testid="reports-refused">
          Reports are for clinic administrators only. Your account at this clinic may not see them; ask a clinic
          administrator if you need these figures.
        </p>
        {deskLink}
      </main>
    );
  }
  const rangeWords = range ? `${dayLabel(range.from)} to ${dayLabel(range.to)}` : "";
  const fieldProps = (field: "from" | "to") => ({
    id: `${id}-${field}`,
    type: "date",
    required: true,
    value: shown?.[field] ?? "",
    ...(problem?.field === field ? { "aria-invalid": true, "aria-describedby": `${id}-problem` } : {}),
    onChange: (e: { target: { value: string } }) => {
      if (!shown) return;
      setDraft({ ...shown, [field]: e.target.value });
      setProblem(undefined);
    },
  });
  const utilizationCaption = `${id}-utilization`;
  const noShowCaption = `${id}-no-show`;

  return (
    <main className="page reports">
      {deskLink}
      <h1>{title}</h1>
      <form className="report-range" noValidate onSubmit={apply}>
        <fieldset>
          <legend>Date range, clinic time ({timeZone})</legend>
          <div className="range-fields">
            <div className="field">
              <label htmlFor={`${id}-from`}>First day</label>
              <input {...fieldProps("from")} />
            </div>
            <div className="field">
              <label htmlFor={`${id}-to`}>Last day</label>
              <input {...fieldProps("to")} />
            </div>
            <button type="submit">Show report</button>
          </div>
          <p className="field-hint">Both days count; a report covers at most 366 days. Weeks start on Monday.</p>
          {problem && (
            <p id={`${id}-problem`} role="alert" className="field-error" data-testid="range-problem">
              {problem.message}
            </p>
          )}
        </fieldset>
      </form>
      <p className="hint" role="status" data-testid="range-line">
        Showing {rangeWords}, clinic time ({timeZone}).
      </p>
      {byProvider.isError || failed ? (
        <p role="alert" className="problem">
          {messageOf(byProvider.error ?? failed)}
        </p>
      ) : !loaded || !noShows ? (
        <p role="status">Loading the report…</p>
      ) : (
        <>
          <section aria-labelledby={`${id}-utilization-heading`}>
            <h2 id={`${id}-utilization-heading`}>Utilization by provider and week</h2>
            <p className="hint">
              Booked time as a share of the time a provider was available (their hours within the clinic&apos;s, less
              closures and time taken elsewhere). &ldquo;All providers&rdquo; is the clinic as a whole.
            </p>
            <div className="report-pair">
              <ReportChart
                config={utilizationChart}
                testId="utilization-chart"
                label="Line chart of utilization per week, one line per provider and one for all providers. The table beside it gives the same figures."
              />
              <TableScroll captionId={utilizationCaption}>
                <table className="report" data-testid="utilization-table">
                  <caption id={utilizationCaption}>Utilization by provider and week</caption>
                  <thead>
                    <tr>
                      <th scope="col">Week of</th>
                      {matrix.map((line) => (
                        <th scope="col" key={line.key} data-line={line.key}>
                          {line.label}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {weeks.map((week, i) => (
                      <tr key={week} data-week={week}>
                        <th scope="row">{labels[i]}</th>
                        {matrix.map((line) => (
                          <td key={line.key} data-line={line.key}>
                            <Figure value={percent(line.weeks[i] ?? null)} none={noUtilization} />
                          </td>
                        ))}
                      </tr>
                    ))}
                    <tr data-week="total" className="total">
                      <th scope="row">Whole range</th>
                      {matrix.map((line) => (
                        <td key={line.key} data-line={line.key}>
                          <Figure value={percent(line.total)} none={noUtilization} />
                        </td>
                      ))}
                    </tr>
                  </tbody>
                </table>
              </TableScroll>
            </div>
            <p className="hint">&mdash; means {noUtilization}: nothing to measure that week.</p>
            <ProviderTotals rows={providerRows} />
          </section>
          <section aria-labelledby={`${id}-no-show-heading`}>
            <h2 id={`${id}-no-show-heading`}>No-show rate by week</h2>
            <p className="hint">
              No-shows as a share of the appointments that were completed or missed, all providers.
            </p>
            <div className="report-pair">
              <ReportChart
                config={noShowChart}
                testId="no-show-chart"
                label="Bar chart of the no-show rate per week. The table beside it gives the same figures."
              />
              <TableScroll captionId={noShowCaption}>
                <table className="report" data-testid="no-show-table">
                  <caption id={noShowCaption}>No-show rate by week</caption>
                  <thead>
                    <tr>
                      <th scope="col">Week of</th>
                      <th scope="col">Completed</th>
                      <th scope="col">No-shows</th>
                      <th scope="col">No-show rate</th>
                    </tr>
                  </thead>
                  <tbody>
                    {noShows.weeks.map((w, i) => (
                      <NoShowLine key={w.week} line={w} label={labels[i] ?? w.week} />
                    ))}
                    <NoShowLine line={noShows.total} label="Whole range" />
                  </tbody>
                </table>
              </TableScroll>
            </div>
            <p className="hint">&mdash; means {noRate}.</p>
          </section>
        </>
      )}
      <section aria-labelledby={`${id}-downloads`} className="downloads">
        <h2 id={`${id}-downloads`}>Download as CSV</h2>
        <p className="hint">For the range shown ({rangeWords}); opens in any spreadsheet.</p>
        <div className="actions">
          {(
            [
              ["utilization-by-week", "Utilization by week"],
              ["utilization-by-provider", "Utilization by provider"],
              ["appointments", "Appointments"],
            ] as const
          ).map(([what, label]) => (
            <button
              key={what}
              type="button"
              className="secondary"
              disabled={downloading !== undefined || !range}
              onClick={() => void download(what)}
            >
              {label} (CSV)
            </button>
          ))}
        </div>
        <p role="status" className={downloadNote?.ok === false ? "problem" : undefined} data-testid="download-note">
          {downloading ? "Preparing the file…" : downloadNote?.text}
        </p>
      </section>
    </main>
  );
}

/** A week (or the whole range) of the no-show table. */
function NoShowLine(props: { line: NoShowWeek; label: string }) {
  const { line } = props;
  return (
    <tr data-week={line.week} className={line.week === "total" ? "total" : undefined}>
      <th scope="row">{props.label}</th>
      <td>{line.completed}</td>
      <td>{line.no_show}</td>
      <td>
        <Figure value={percent(line.rate)} none={noRate} />
      </td>
    </tr>
  );
}

/** The whole range per provider: the hours behind the percentages, and the no-shows. */
function ProviderTotals(props: {
  rows: readonly {
    key: string;
    label: string;
    available_minutes: number;
    booked_minutes: number;
    appointments: number;
    no_show: number;
    no_show_rate: number | null;
  }[];
}) {
  const id = useId();
  return (
    <details className="provider-totals">
      <summary>The hours behind it, per provider</summary>
      <TableScroll captionId={id}>
        <table className="report" data-testid="provider-totals">
          <caption id={id}>Whole range per provider</caption>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Available</th>
              <th scope="col">Booked</th>
              <th scope="col">Appointments</th>
              <th scope="col">No-shows</th>
              <th scope="col">No-show rate</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr key={row.key} data-line={row.key}>
                <th scope="row">{row.label}</th>
                <td>{hours(row.available_minutes)}</td>
                <td>{hours(row.booked_minutes)}</td>
                <td>{row.appointments}</td>
                <td>{row.no_show}</td>
                <td>
                  <Figure value={percent(row.no_show_rate)} none={noRate} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}

/** A ratio as the charts plot it: a percentage to one decimal, null a gap. */
const toPercent = (ratio: number | null) => (ratio === null ? null : Math.round(ratio * 1000) / 10);

/** What a chart's tooltip says of a point: "Anna Berg: 45.7%". */
const tooltipLabel = (item: { dataset: { label?: string }; raw: unknown }, what: string) =>
  `${item.dataset.label ?? what}: ${typeof item.raw === "number" ? `${String(item.raw)}%` : "—"}`;

/** What both charts share: percentages on the y axis, no animation, the legend below. */
const percentAxis = {
  responsive: true,
  maintainAspectRatio: false,
  animation: false,
  scales: {
    y: { beginAtZero: true, suggestedMax: 100, ticks: { callback: (value: string | number) => `${String(value)}%` } },
  },
} as const;

const lineOptions = (what: string): ChartOptions<"line"> => ({
  ...percentAxis,
  plugins: {
    legend: { position: "bottom", labels: { usePointStyle: true } },
    tooltip: { callbacks: { label: (item) => tooltipLabel(item, what) } },
  },
});

const barOptions = (what: string): ChartOptions<"bar"> => ({
  ...percentAxis,
  plugins: {
    legend: { position: "bottom" },
    tooltip: { callbacks: { label: (item) => tooltipLabel(item, what) } },
  },
});
