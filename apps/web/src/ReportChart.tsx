// One chart of the reports page, drawn by Chart.js on a canvas (docs/web.md "Reports page"). Only the
// parts the page uses are registered, so the rest of Chart.js stays out of the bundle. The canvas is
// an image with a name that points at the table beside it: the table, not the chart, carries the
// figures for a screen reader.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  PointElement,
  Tooltip,
} from "chart.js";
import { useEffect, useRef } from "react";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  PointElement,
  Tooltip,
);

/** A line per series or a bar per category; values are percentages (0–100), null a gap. */
export type ReportChartConfig =
  ChartConfiguration<"line", (number | null)[], string> | ChartConfiguration<"bar", (number | null)[], string>;

/**
 * Colours that keep 3:1 against white (WCAG 1.4.11) and stay apart for the common colour-vision
 * deficiencies (after Okabe–Ito, darkened); each series also has its own point shape and dash.
 */
export const seriesColours = ["#0072b2", "#c24e00", "#007a5e", "#a3478a", "#7a5c00", "#1f5a7a", "#6b4fbb", "#8a3b3b"];
export const pointShapes = [
  "circle",
  "rect",
  "triangle",
  "rectRot",
  "star",
  "crossRot",
  "rectRounded",
  "cross",
] as const;
export const dashes: number[][] = [[], [6, 3], [2, 2], [8, 3, 2, 3]];

/**
 * A chart on a canvas that is an image named `label`. It is drawn again only when what it shows
 * changes (the figures, series and labels), not on every render of the page.
 */
export function ReportChart(props: { config: ReportChartConfig; label: string; testId: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const shows = JSON.stringify(props.config.data);
  useEffect(() => {
    if (!canvas.current) return undefined;
    // The config of this render; `shows` changes whenever what it draws does.
    const chart = new Chart(canvas.current, props.config);
    return () => {
      chart.destroy();
    };
  }, [shows]);
  return (
    <div className="report-chart">
      <canvas ref={canvas} role="img" aria-label={props.label} data-testid={props.testId}>
        {props.label}
      </canvas>
    </div>
  );
}
