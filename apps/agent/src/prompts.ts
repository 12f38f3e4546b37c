// The agent's questions: which slot, which patient name, which of several — or none, without a person.
import { formatLocal, localOf } from "./localTime.ts";
import type { RankedSlot } from "./ranking.ts";
import type { Clinic, Run, Service, Slot } from "./run.ts";
import type { WantedTime } from "./wanted.ts";

/** Shows the proposals and picks one: the user's choice, the first with --yes, none otherwise. */
export async function chooseSlot(
  run: Run,
  clinic: Clinic,
  service: Service,
  providerName: string | null,
  proposals: RankedSlot<Slot>[],
  wanted: WantedTime,
): Promise<RankedSlot<Slot> | undefined> {
  run.say(
    `Free slots for ${service.name} (${String(service.duration_min)} min${providerName ? `, ${providerName}` : ""}):`,
  );
  proposals.forEach((p, i) => {
    const outside = p.inWanted
      ? ""
      : `  (outside ${wanted.partOfDay ? `the ${wanted.partOfDay.name}` : "the wanted day"})`;
    run.say(
      `  ${String(i + 1)}. ${formatLocal(p.slot.start_local)}–${localOf(p.slot.end, clinic.timezone).slice(11)}${outside}`,
    );
  });
  if (run.options.yes) return proposals[0];
  if (!run.interactive) return undefined;
  const index = await askNumber(
    run,
    `Book which? [1-${String(proposals.length)}, Enter = 1, q = quit] `,
    proposals.length,
  );
  return index === undefined ? undefined : proposals[index];
}

/** The patient's name: --name, else asked for (a few tries). */
export async function patientName(run: Run): Promise<string | undefined> {
  if (run.options.name) return run.options.name;
  const ask = run.io.ask;
  if (!ask) return undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = (await ask("Patient name: ")).trim();
    if (answer) return answer;
  }
  return undefined;
}

/** Asks a yes/no question: only "y" or "yes" (also "j", "ja") is yes; Enter, "n" or no person to ask is no. */
export async function askYesNo(run: Run, question: string): Promise<boolean> {
  const ask = run.io.ask;
  if (!ask) return false;
  const answer = (await ask(question)).trim().toLowerCase();
  return ["y", "yes", "j", "ja"].includes(answer);
}

/** Asks for a number 1…count; Enter means 1, "q" (or three bad answers) means no choice. */
export async function askNumber(run: Run, question: string, count: number): Promise<number | undefined> {
  const ask = run.io.ask;
  if (!ask) return undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = (await ask(question)).trim().toLowerCase();
    if (answer === "") return 0;
    if (answer === "q" || answer === "quit") return undefined;
    const n = Number(answer);
    if (Number.isInteger(n) && n >= 1 && n <= count) return n - 1;
    run.say(`Please answer a number from 1 to ${String(count)}, or q.`);
  }
  return undefined;
}
