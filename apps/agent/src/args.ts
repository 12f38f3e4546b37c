// Command line → options (no I/O): everything a usage error (exit 2) can be found from up front.
import { parseArgs } from "node:util";
import type { EnvSettings } from "./config.ts";

export const usage = `Usage: clinic-agent "<what the patient wants>" [options]

Books an appointment from free text, e.g.
  clinic-agent "a deep tissue massage with Anna next Tuesday afternoon" --name "Pat Doe"
or a series of them (needs the STAFF role), e.g.
  clinic-agent "sports massage every Tuesday at 9 for 10 weeks" --name "Pat Doe"

Options:
  --url <url>       server base URL (default: $CLINIC_URL or http://127.0.0.1:3000)
  --token <jwt>     access token (default: $CLINIC_TOKEN)
  --clinic <uuid>   clinic id (default: $CLINIC_ID, or your only clinic)
  --name <name>     patient name (asked for when missing, interactively)
  --email <email>   patient e-mail
  --phone <e164>    patient phone, E.164 (+4930123456)
  --answer <k=v>    answers the service's question <k> (repeatable; a multi-choice takes
                    several): the agent asks for any required answer not given, or, when it
                    cannot ask, says which questions are unanswered and books nothing
  -y, --yes         no questions: take the best service match and the first proposed slot
                    (a series: book its free dates and skip the others)
  --all-or-nothing  a series: book every date or none (with --yes: none when one is taken)
  --json            machine-readable result on stdout (no spinner, no questions)
  -h, --help        this text

Exit codes: 0 booked, 1 error, 2 usage, 3 nothing booked (no service, no slot, no choice made, or a
required question unanswered).`;

export interface AgentOptions {
  /** The patient's request, as written. */
  text: string;
  url: string;
  token: string;
  clinicId: string | undefined;
  name: string | undefined;
  email: string | undefined;
  phone: string | undefined;
  yes: boolean;
  json: boolean;
  /** A series is booked whole or not at all (no dates skipped). */
  allOrNothing: boolean;
  /** `--answer key=value`, in order: answers to the service's questions, read once the service is known. */
  answers: { key: string; text: string }[];
}

export type ParsedArgs =
  { kind: "help" } | { kind: "usage"; message: string; json: boolean } | { kind: "run"; options: AgentOptions };

export const defaultUrl = "http://127.0.0.1:3000";
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const e164Pattern = /^\+[1-9]\d{1,14}$/;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Parses the agent's arguments, with environment fallbacks for url, token and clinic. A leading
 * `--` is dropped: `pnpm run start -- "text" --url …` hands it through, and parseArgs would
 * otherwise take every flag after it for text.
 */
export function parseAgentArgs(argv: readonly string[], env: EnvSettings): ParsedArgs {
  const args = argv[0] === "--" ? argv.slice(1) : [...argv];
  const json = args.includes("--json");
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: "string" },
        token: { type: "string" },
        clinic: { type: "string" },
        name: { type: "string" },
        email: { type: "string" },
        phone: { type: "string" },
        yes: { type: "boolean", short: "y" },
        json: { type: "boolean" },
        "all-or-nothing": { type: "boolean" },
        answer: { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    return { kind: "usage", message: error instanceof Error ? error.message : String(error), json };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  const text = positionals.join(" ").trim();
  if (!text) return { kind: "usage", message: 'say what to book, e.g. "a sports massage tomorrow morning"', json };
  const token = values.token ?? env.token;
  if (!token) return { kind: "usage", message: "an access token is needed: --token <jwt> (or CLINIC_TOKEN)", json };
  const url = values.url ?? env.url ?? defaultUrl;
  if (!/^https?:\/\/[^\s/]+/i.test(url))
    return { kind: "usage", message: `--url must be an http(s) URL, got "${url}"`, json };
  const clinicId = values.clinic ?? env.clinic;
  if (clinicId !== undefined && !uuidPattern.test(clinicId))
    return { kind: "usage", message: `--clinic must be a clinic UUID, got "${clinicId}"`, json };
  if (values.phone !== undefined && !e164Pattern.test(values.phone)) {
    return {
      kind: "usage",
      message: `--phone must be an E.164 number such as +4930123456, got "${values.phone}"`,
      json,
    };
  }
  if (values.email !== undefined && !emailPattern.test(values.email))
    return { kind: "usage", message: `--email is not an e-mail address: "${values.email}"`, json };
  const answers: AgentOptions["answers"] = [];
  for (const given of values.answer ?? []) {
    const match = /^([a-z][a-z0-9_]{0,39})=([\s\S]*)$/.exec(given);
    if (!match?.[1] || match[2] === undefined)
      return { kind: "usage", message: `--answer must be key=value with a question's key, got "${given}"`, json };
    answers.push({ key: match[1], text: match[2] });
  }
  const name = values.name?.trim();
  if (name === "") return { kind: "usage", message: "--name must not be empty", json };
  const yes = values.yes ?? false;
  // Nobody is asked anything with --yes, so the name must be known before any work is done.
  if (yes && name === undefined) return { kind: "usage", message: "--name is required with --yes", json };
  return {
    kind: "run",
    options: {
      text,
      url,
      token,
      clinicId: clinicId?.toLowerCase(),
      name,
      email: values.email,
      phone: values.phone,
      yes,
      json: values.json ?? false,
      allOrNothing: values["all-or-nothing"] ?? false,
      answers,
    },
  };
}
