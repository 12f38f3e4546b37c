// The seed's naming convention (rule 11): "when several providers offer the same offering, append
// the provider name to the service name" — "Massage - Anna Berg", "Massage - Ben Kluge" — so a
// patient, the desk and the booking agent's fuzzy matching tell them apart. Pure.

/** The separator of the convention, as the brief writes it. */
export const nameSeparator = " - ";

/** A service as the convention needs it. */
export interface NamedService {
  id: string;
  name: string;
  provider_name: string | null;
}

/** The offering a name stands for: the name without a trailing " - <a provider's name>". */
export function offeringOf(name: string, providerNames: readonly string[]): string {
  const trimmed = name.trim();
  // The longest provider name first, so "Massage - Anna Berg-Lind" is not cut at "Berg".
  const byLength = [...providerNames].sort((a, b) => b.length - a.length);
  for (const provider of byLength) {
    const suffix = `${nameSeparator}${provider}`;
    if (provider !== "" && trimmed.toLowerCase().endsWith(suffix.toLowerCase()))
      return trimmed.slice(0, -suffix.length).trim();
  }
  return trimmed;
}

/** What the form suggests: the conventional name, and the other services of the offering without it. */
export interface NameSuggestion {
  offering: string;
  name: string;
  /** Others offering the same that do not name their provider yet ("Massage" of Anna Berg). */
  unnamed: { name: string; suggestion: string }[];
  /** Another service already carries the conventional name: that provider offers it already. */
  taken: string | undefined;
}

/**
 * The conventional name of a service assigned to `providerName` when another service of the clinic
 * offers the same offering (compared without case and without a provider suffix); undefined when
 * nothing needs it (no provider, nobody else offers it, or the name already follows it).
 */
export function suggestName(input: {
  serviceId: string | undefined;
  name: string;
  providerName: string | null;
  services: readonly NamedService[];
  providerNames: readonly string[];
}): NameSuggestion | undefined {
  if (input.providerName === null) return undefined;
  const offering = offeringOf(input.name, input.providerNames);
  if (offering === "") return undefined;
  const same = input.services.filter(
    (s) => s.id !== input.serviceId && offeringOf(s.name, input.providerNames).toLowerCase() === offering.toLowerCase(),
  );
  if (same.length === 0) return undefined;
  const name = `${offering}${nameSeparator}${input.providerName}`;
  const unnamed = same.flatMap((s) =>
    s.provider_name !== null && s.name.trim().toLowerCase() === offering.toLowerCase()
      ? [{ name: s.name, suggestion: `${s.name.trim()}${nameSeparator}${s.provider_name}` }]
      : [],
  );
  const taken = same.find((s) => s.name.trim().toLowerCase() === name.toLowerCase())?.name;
  if (name === input.name.trim() && unnamed.length === 0) return undefined;
  return { offering, name, unnamed, taken };
}
