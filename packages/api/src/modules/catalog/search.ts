import { sql } from "drizzle-orm";
import { type Db, rowsOf, services } from "@clinic/db";
import { type ServiceView, servicesByIds } from "./view.ts";

/**
 * Fuzzy search scoring (documented in docs/providers-services.md). Both sides go through
 * `search_text` (lower-cased, accents removed), then
 *   score = greatest(similarity(name, q), strict_word_similarity(q, name), 0.8 * word_similarity(q, name))
 * and only scores ≥ SEARCH_THRESHOLD count. similarity handles typos and word order over the
 * whole name; the word similarities let a short query match one word of a longer name; the plain
 * word similarity is damped because it also rewards bare prefixes ("xyz" vs "Xylophone": 0.5).
 */
export const SEARCH_THRESHOLD = 0.45;
const WORD_SIMILARITY_WEIGHT = 0.8;

export interface SearchMatch {
  service: ServiceView;
  score: number;
}

/** Active, live services of a clinic whose name matches `q` fuzzily, best first. */
export async function searchServices(db: Db, clinicId: string, q: string, limit: number): Promise<SearchMatch[]> {
  return db.transaction(async (tx) => {
    // The pg_trgm operators below let the planner use the GIN index on search_text(name); their
    // thresholds are session settings, so pin them (for this transaction only) to values whose
    // union is exactly "score ≥ SEARCH_THRESHOLD".
    await tx.execute(sql`select
        set_config('pg_trgm.similarity_threshold', ${String(SEARCH_THRESHOLD)}, true),
        set_config('pg_trgm.strict_word_similarity_threshold', ${String(SEARCH_THRESHOLD)}, true),
        set_config('pg_trgm.word_similarity_threshold', ${String(SEARCH_THRESHOLD / WORD_SIMILARITY_WEIGHT)}, true)`);
    const name = sql`search_text(${services.name})`;
    const query = sql`search_text(${q}::text)`;
    const similarity = sql`similarity(${name}, ${query})`;
    const score = sql`greatest(${similarity}, strict_word_similarity(${query}, ${name}), ${WORD_SIMILARITY_WEIGHT}::float8 * word_similarity(${query}, ${name}))::float8`;
    const result = await tx.execute(sql`
      select ${services.id} as id, ${score} as score
      from ${services}
      where ${services.clinicId} = ${clinicId}
        and ${services.deletedAt} is null
        and ${services.isActive}
        and (${name} % ${query} or ${name} %> ${query} or ${name} %>> ${query})
        and ${score} >= ${SEARCH_THRESHOLD}::float8
      order by 2 desc, ${similarity} desc, ${services.name} asc, ${services.id} asc
      limit ${limit}`);
    const hits = rowsOf<{ id: string; score: number | string }>(result);
    const byId = new Map(
      (
        await servicesByIds(
          tx,
          clinicId,
          hits.map((h) => h.id),
        )
      ).map((s) => [s.id, s]),
    );
    return hits.flatMap((hit) => {
      const service = byId.get(hit.id);
      return service ? [{ service, score: Math.round(Number(hit.score) * 1000) / 1000 }] : [];
    });
  });
}
