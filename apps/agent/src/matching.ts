// Choosing among fuzzy service matches, and matching a spoken name to a provider (no I/O).
import { fold, wordsOf } from "./words.ts";

/** Scores closer than this make the best match ambiguous (the patient should choose). */
export const ambiguityMargin = 0.1;

/** What the agent needs of a `services.search` match. */
export interface ServiceMatch {
  service: { id: string; name: string; provider_id: string | null; provider_name: string | null };
  score: number;
}

/**
 * True when the best two matches are within `margin` of each other (scores best first), so
 * taking the first would be a guess. Rounded to the API's 3 decimals: 0.9 vs 0.8 is within 0.1.
 */
export function isAmbiguous(scores: readonly number[], margin: number = ambiguityMargin): boolean {
  const [best, second] = scores;
  if (best === undefined || second === undefined) return false;
  return Math.round((best - second) * 1000) <= Math.round(margin * 1000);
}

/**
 * True when every word of the mention starts a word of the name: "Anna" and "anna b" match
 * "Anna Berg"; "Dr. Berg" matches too (titles are dropped), accents and case do not matter.
 */
export function mentionMatchesName(mention: string, fullName: string): boolean {
  const wanted = wordsOf(mention).filter((w) => !["dr", "doctor", "mr", "mrs", "ms"].includes(w));
  const name = wordsOf(fullName);
  return wanted.length > 0 && wanted.every((w) => name.some((n) => n.startsWith(w)));
}

/** Merges the answers of several searches: one entry per service with its best score, best first. */
export function mergeMatches<M extends ServiceMatch>(lists: readonly (readonly M[])[]): M[] {
  const byId = new Map<string, M>();
  for (const list of lists) {
    for (const match of list) {
      const seen = byId.get(match.service.id);
      if (!seen || match.score > seen.score) byId.set(match.service.id, match);
    }
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || a.service.name.localeCompare(b.service.name));
}

/**
 * Narrows the matches to the provider the patient named: services assigned to someone whose name
 * matches the mention, plus unassigned ones (any provider may do those). When nothing fits, the
 * mention was not a provider ("with hot stones"), so all matches stay.
 */
export function narrowByProvider<M extends ServiceMatch>(
  matches: readonly M[],
  mention: string | undefined,
): { matches: M[]; narrowed: boolean } {
  if (!mention) return { matches: [...matches], narrowed: false };
  const named = matches.filter(
    (m) => m.service.provider_name !== null && mentionMatchesName(mention, m.service.provider_name),
  );
  if (named.length === 0) return { matches: [...matches], narrowed: false };
  const unassigned = matches.filter((m) => m.service.provider_id === null);
  return { matches: [...named, ...unassigned].sort((a, b) => b.score - a.score), narrowed: true };
}

function trigrams(text: string): Set<string> {
  const grams = new Set<string>();
  for (const word of wordsOf(text)) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) grams.add(padded.slice(i, i + 3));
  }
  return grams;
}

/** Trigram similarity in [0, 1], like PostgreSQL's pg_trgm `similarity`. */
export function similarity(a: string, b: string): number {
  const x = trigrams(a);
  const y = trigrams(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const gram of x) if (y.has(gram)) shared++;
  return shared / (x.size + y.size - shared);
}

/**
 * The service names closest to a query that the API's search found nothing for ("did you
 * mean"): by trigram similarity, then any name sharing a word prefix, at most `limit`.
 */
export function closestNames(query: string, names: readonly string[], limit = 3): string[] {
  const queryWords = wordsOf(query);
  return names
    .map((name) => {
      const nameWords = wordsOf(name);
      const sharesWord = queryWords.some((q) => q.length >= 3 && nameWords.some((n) => n.startsWith(q.slice(0, 3))));
      return { name, score: similarity(query, name) + (sharesWord ? 0.05 : 0) };
    })
    .filter((c) => c.score >= 0.1)
    .sort((a, b) => b.score - a.score || fold(a.name).localeCompare(fold(b.name)))
    .slice(0, limit)
    .map((c) => c.name);
}
