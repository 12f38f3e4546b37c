import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { type SQL, sql } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { DatabaseHealth } from "./health.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** A database or a transaction: data-access functions take either. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface DbHandle {
  db: Db;
  kind: "pglite" | "postgres";
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /** Whether the database is reachable, as the last queries found it; report connection errors to it. */
  health: DatabaseHealth;
  /** Connections the pool may open (1 for the embedded database). */
  poolMax: number;
  /** Runs a script of several statements without parameters (a library's schema migrations). */
  execScript(script: string): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  /** PostgreSQL connection string; when absent an embedded PGlite database is used. */
  url?: string | undefined;
  /** PGlite data directory; absent = in memory. */
  pgliteDir?: string | undefined;
  /** A PGlite data-directory dump to start from (tests use a migrated template). */
  pgliteLoad?: Blob | undefined;
  /** postgres.js pool size. */
  poolMax?: number | undefined;
  /**
   * Seconds a new connection may take to be ready (default 1.5: requests fail fast while the
   * database is away). Tests' own handles wait longer: on a loaded CI machine a Citus coordinator
   * took over 1.5 s to start a backend (docs/testing.md#connect-timeouts).
   */
  connectTimeoutS?: number | undefined;
  /** Called with every statement run through Drizzle and its parameters (tests that inspect plans). */
  onQuery?: ((text: string, parameters: unknown[]) => void) | undefined;
  /**
   * PostgreSQL only: called with every statement the driver sends to the server, transaction
   * control included (tests that count a request's round trips).
   */
  onServerStatement?: ((text: string) => void) | undefined;
}

const pgliteExtensions = { btree_gist, pg_trgm, unaccent };

/** Opens the configured database: a postgres.js pool for a URL, embedded PGlite otherwise. */
export async function openDatabase(options: DbOptions): Promise<DbHandle> {
  if (options.url) {
    const { url, path } = socketOf(options.url);
    const client = postgres(url, {
      ...(path ? { path } : {}),
      max: options.poolMax ?? 10,
      onnotice: () => undefined,
      // While the database is away every request must fail fast (503) and the pool must come back
      // as soon as the database does (docs/operations.md#database-outage): a short connect
      // timeout, and reconnects after at most half a second instead of postgres.js's default
      // backoff, which grows to 20 s and holds every queued query that long.
      connect_timeout: options.connectTimeoutS ?? 1.5,
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
      idle_timeout: 30,
      ...(options.onServerStatement
        ? { debug: (_connection: number, text: string) => options.onServerStatement?.(text) }
        : {}),
    });
    return handleOf(drizzlePostgres({ client, schema, ...loggerOf(options) }), "postgres", options.poolMax ?? 10, {
      close: () => client.end({ timeout: 5 }),
      // The simple query protocol runs several statements in one call, on a connection of its own
      // (a script may BEGIN and COMMIT, which postgres.js allows only on a reserved connection).
      execScript: async (script) => {
        const connection = await client.reserve();
        try {
          await connection.unsafe(script).simple();
        } catch (error) {
          // A failed script that began a transaction leaves it open and aborted: end it before the
          // connection goes back to the pool.
          await connection
            .unsafe("rollback")
            .simple()
            .catch(() => undefined);
          throw error;
        } finally {
          connection.release();
        }
      },
    });
  }
  if (options.pgliteDir) await mkdir(options.pgliteDir, { recursive: true });
  const client = await PGlite.create({
    ...(options.pgliteDir ? { dataDir: options.pgliteDir } : {}),
    ...(options.pgliteLoad ? { loadDataDir: options.pgliteLoad } : {}),
    extensions: pgliteExtensions,
  });
  return handleOf(drizzlePglite({ client, schema, ...loggerOf(options) }), "pglite", 1, {
    close: () => client.close(),
    execScript: async (script) => {
      await client.exec(script);
    },
  });
}

/**
 * A PostgreSQL URL with libpq's `host` parameter naming a directory (`…?host=/var/run/postgresql`):
 * the server's Unix socket in it, which postgres.js takes as `path`, and the URL without the
 * parameter (postgres.js would send it to the server as a setting). Any other URL as it is.
 * Where the database is on the same machine, a socket saves each round trip TCP's loopback work
 * (docs/performance.md#the-servers-share, docs/operations.md).
 */
export function socketOf(databaseUrl: string): { url: string; path: string | undefined } {
  let parsed: URL;
  try {
    parsed = new URL(databaseUrl);
  } catch {
    return { url: databaseUrl, path: undefined };
  }
  const host = parsed.searchParams.get("host");
  if (!host?.startsWith("/")) return { url: databaseUrl, path: undefined };
  parsed.searchParams.delete("host");
  return { url: parsed.href, path: `${host.replace(/\/+$/, "")}/.s.PGSQL.${parsed.port || "5432"}` };
}

const loggerOf = ({ onQuery }: DbOptions) => (onQuery ? { logger: { logQuery: onQuery } } : {});

function handleOf(
  db: Db,
  kind: DbHandle["kind"],
  poolMax: number,
  driver: Pick<DbHandle, "close" | "execScript">,
): DbHandle {
  const ping = async () => {
    await db.execute(sql`select 1`);
  };
  const health = new DatabaseHealth(ping);
  return {
    db,
    kind,
    ping,
    health,
    poolMax,
    execScript: driver.execScript,
    close: async () => {
      health.close();
      await driver.close();
    },
  };
}

/**
 * A value as node-postgres would send it, for libraries written against it: absent is NULL, a
 * plain object is JSON, arrays and dates as they are (each driver sends those itself).
 */
function asParameter(value: unknown): unknown {
  if (value === undefined) return null;
  if (
    value === null ||
    value instanceof Date ||
    Array.isArray(value) ||
    Buffer.isBuffer(value) ||
    typeof value !== "object"
  )
    return value;
  return JSON.stringify(value);
}

/**
 * Runs one statement written with `$1`, `$2` … placeholders (as libraries write them) in `db`, a
 * database or a transaction, binding `values` as parameters; answers the rows.
 */
export async function executePositional(
  db: Db,
  text: string,
  values: readonly unknown[],
): Promise<Record<string, unknown>[]> {
  const chunks: SQL[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, match.index)));
    chunks.push(sql`${sql.param(asParameter(values[Number(match[1]) - 1]))}`);
    last = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return rowsOf<Record<string, unknown>>(await db.execute(sql.join(chunks)));
}

/**
 * Rows of a raw `db.execute()` result: postgres.js returns an array, PGlite an object with
 * `rows`. Use the query builder where possible; this is for the few raw statements.
 */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  if (typeof result === "object" && result !== null && "rows" in result && Array.isArray(result.rows)) {
    return result.rows as T[];
  }
  return [];
}

const dialect = new PgDialect();

/** postgres.js's pool, as Drizzle's `$client` of a PostgreSQL database (PGlite's has no `unsafe`). */
function postgresClientOf(db: Db): postgres.Sql | undefined {
  const client: unknown = (db as unknown as { $client?: unknown }).$client;
  return typeof client === "function" && "unsafe" in client ? (client as postgres.Sql) : undefined;
}

/**
 * Admission of cursors to one pool: a cursor holds its connection for as long as its reader reads (a
 * report streamed to a slow client), so at most `slots` run at once and the others wait their turn,
 * which leaves the rest of the pool to requests and the job workers
 * (docs/operations.md#sizing-the-pool).
 */
class CursorGate {
  private readonly waiting: (() => void)[] = [];

  constructor(private free: number) {}

  async enter(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

const cursorGates = new WeakMap<postgres.Sql, CursorGate>();

/** A pool's cursor gate: all but two of its connections (at least one). */
function cursorGateOf(client: postgres.Sql): CursorGate {
  let gate = cursorGates.get(client);
  if (!gate) {
    gate = new CursorGate(Math.max(1, client.options.max - 2));
    cursorGates.set(client, gate);
  }
  return gate;
}

/**
 * The rows of one statement, `size` at a time (docs/performance.md#reports). On PostgreSQL they are
 * read through a cursor (postgres.js's, one portal of one statement: one snapshot; at most two
 * batches in memory: the next is read while the consumer handles this one), on a connection of the pool
 * held until the last batch or until the consumer stops; at most all but two of the pool's connections
 * hold cursors at once, the others wait (`CursorGate`). The embedded database, in-process and for
 * development, answers the statement whole, then sliced. `db` must be the database, not a
 * transaction.
 */
export async function* rowBatches<T>(db: Db, query: SQL, size: number): AsyncGenerator<T[]> {
  const client = postgresClientOf(db);
  if (!client) {
    const rows = rowsOf<T>(await db.execute(query));
    for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
    return;
  }
  const { sql: text, params } = dialect.sqlToQuery(query);
  const gate = cursorGateOf(client);
  await gate.enter();
  try {
    const batches = client.unsafe(text, params as postgres.ParameterOrJSON<never>[]).cursor(size);
    const cursor = batches[Symbol.asyncIterator]();
    // One batch ahead: the next is asked for before this one is handed on, so that PostgreSQL computes
    // it while the consumer writes this one (two processes, two cores) — at most two batches in memory.
    let next = cursor.next();
    try {
      for (;;) {
        const batch = await next;
        if (batch.done) return;
        next = cursor.next();
        yield batch.value as unknown as T[];
      }
    } finally {
      // A consumer that stops early (a client gone): the cursor is closed and its connection freed.
      await next.catch(() => undefined);
      await cursor.return?.();
    }
  } finally {
    gate.leave();
  }
}

/**
 * A statement prepared under `name`, called with its parameters `$1`, `$2`, … in order; answers
 * its rows. On PostgreSQL (postgres.js) it is parsed and planned once per connection, and each call
 * is then one round trip. A statement that is not prepared — what `db.execute()` and the query
 * builder send — costs two when it has parameters: postgres.js first asks the server for their
 * types (Parse, Describe), and only then binds and runs it (docs/performance.md#prepared-statements).
 * For the hot paths' statements, whose text is fixed; never for text that varies with the input.
 */
export function preparedStatement<T>(
  db: Db,
  name: string,
  text: string,
  arity: number,
): (...values: unknown[]) => Promise<T[]> {
  let statements = preparedStatements.get(db);
  if (!statements) {
    statements = new Map();
    preparedStatements.set(db, statements);
  }
  const known = statements.get(name);
  if (known) {
    if (known.text !== text) throw new Error(`${name} is prepared with another text`);
    return known.call as (...values: unknown[]) => Promise<T[]>;
  }
  const names = Array.from({ length: arity }, (_, i) => `p${String(i + 1)}`);
  const query = db._.session.prepareQuery(
    { sql: text, params: names.map((n) => sql.placeholder(n)) },
    undefined,
    name,
    false,
  );
  const call = async (...values: unknown[]) => {
    if (values.length !== arity) throw new Error(`${name} takes ${String(arity)} parameters`);
    return rowsOf<T>(await query.execute(Object.fromEntries(names.map((n, i) => [n, values[i]]))));
  };
  statements.set(name, { text, call });
  return call;
}

/**
 * One call of a clinic's database function, `select fn(clinic_id, p)` — a prepared statement (one
 * round trip) whose bare form Citus delegates to the clinic's node — answered as its JSON. `fn` is a
 * function's name written in the code, never input.
 */
export async function callClinicJsonFunction(db: Db, fn: string, clinicId: string, p: object): Promise<unknown> {
  const call = preparedStatement<{ answer: unknown }>(db, fn, `select ${fn}($1::uuid, $2::jsonb) as answer`, 2);
  const [row] = await call(clinicId, JSON.stringify(p));
  const answer = row?.answer;
  return typeof answer === "string" ? (JSON.parse(answer) as unknown) : answer;
}

const preparedStatements = new WeakMap<
  Db,
  Map<string, { text: string; call: (...values: unknown[]) => Promise<unknown[]> }>
>();
