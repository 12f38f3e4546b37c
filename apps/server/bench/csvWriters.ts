import { stringify } from "csv-stringify/sync";
import { defused, toCsv } from "../src/csv.ts";
const cols = [
  "id",
  "start",
  "end",
  "start_local",
  "status",
  "provider_id",
  "provider_name",
  "service_id",
  "service_name",
  "duration_min",
  "patient_name",
  "patient_email",
  "patient_phone_e164",
  "patient_user_id",
  "booked_by_user_id",
  "series_id",
  "created_at",
  "lead_time_hours",
  "canceled_at",
  "canceled_late",
  "rescheduled_at",
];
const rows = Array.from({ length: 100000 }, (_, i) => ({
  id: crypto.randomUUID(),
  start: new Date(1.7e12 + i * 6e4),
  end: new Date(1.7e12 + i * 6e4 + 18e5),
  start_local: "2026-03-01T09:00",
  status: "booked",
  provider_id: crypto.randomUUID(),
  provider_name: "Dr. Smith, Jr",
  service_id: crypto.randomUUID(),
  service_name: "Check-up",
  duration_min: 30,
  patient_name: `Patient ${String(i)}`,
  patient_email: `p${i}@example.com`,
  patient_phone_e164: "+15550001111",
  patient_user_id: null,
  booked_by_user_id: crypto.randomUUID(),
  series_id: null,
  created_at: new Date(1.69e12),
  lead_time_hours: 123.45,
  canceled_at: null,
  canceled_late: false,
  rescheduled_at: null,
}));
const ref = () =>
  stringify(rows, {
    header: true,
    columns: cols,
    record_delimiter: "\r\n",
    quoted_match: /[\r\n]/,
    cast: {
      string: (v) => defused(v),
      boolean: String,
      number: String,
      date: (v) => v.toISOString(),
      object: (v) => defused(JSON.stringify(v)),
    },
  });
for (const [name, f] of [
  ["csv-stringify", ref],
  ["toCsv", () => toCsv(rows, cols)],
] as const) {
  const t: number[] = [];
  for (let k = 0; k < 5; k++) {
    const s = performance.now();
    f();
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  console.log(name, "median ms", (t[2] ?? NaN).toFixed(0), "min", (t[0] ?? NaN).toFixed(0));
}
console.log("same:", ref() === toCsv(rows, cols));
