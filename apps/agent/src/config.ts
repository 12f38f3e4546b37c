// The only place the agent reads the environment: fallbacks for flags that were not given.

/** Settings taken from the environment when the matching flag is absent. */
export interface EnvSettings {
  /** `CLINIC_URL`: the server's base URL (for `--url`). */
  url: string | undefined;
  /** `CLINIC_TOKEN`: the access token (for `--token`), so it need not appear in the process list. */
  token: string | undefined;
  /** `CLINIC_ID`: the clinic (for `--clinic`). */
  clinic: string | undefined;
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value && value.trim().length > 0 ? value.trim() : undefined;

/** Reads CLINIC_URL, CLINIC_TOKEN and CLINIC_ID (empty values count as absent). */
export function readEnvSettings(env: Readonly<Record<string, string | undefined>> = process.env): EnvSettings {
  return { url: nonEmpty(env.CLINIC_URL), token: nonEmpty(env.CLINIC_TOKEN), clinic: nonEmpty(env.CLINIC_ID) };
}
