// DATABASE_URL with libpq's `host=/dir` (src/client.ts socketOf, docs/operations.md): the server's
// Unix socket, the parameter not sent to the server as a setting.
import { existsSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { openDatabase, rowsOf, socketOf } from "../src/index.ts";

describe("a database URL naming a socket directory", () => {
  it("connects through the socket in it, at the URL's port, and drops the parameter from the URL", () => {
    expect(socketOf("postgres://app@localhost/clinic?host=/var/run/postgresql")).toEqual({
      url: "postgres://app@localhost/clinic",
      path: "/var/run/postgresql/.s.PGSQL.5432",
    });
    expect(socketOf("postgres://app:pw@localhost:6543/clinic?host=%2Frun%2Fpg%2F&sslmode=disable")).toEqual({
      url: "postgres://app:pw@localhost:6543/clinic?sslmode=disable",
      path: "/run/pg/.s.PGSQL.6543",
    });
  });

  it("leaves every other URL as it is", () => {
    for (const url of [
      "postgres://app@127.0.0.1:5432/clinic",
      "postgres://app@db.internal/clinic?host=db2.internal",
      "not a url",
    ])
      expect(socketOf(url)).toEqual({ url, path: undefined });
  });

  const serverUrl = inject("databaseUrl");
  const local = serverUrl ? new URL(serverUrl) : undefined;
  const socket = `/var/run/postgresql/.s.PGSQL.${local?.port || "5432"}`;
  it.skipIf(!local || local.hostname !== "127.0.0.1" || !existsSync(socket))(
    "reaches the local server through its socket (no server address: not TCP)",
    async () => {
      const url = new URL(serverUrl ?? "");
      url.searchParams.set("host", "/var/run/postgresql");
      const handle = await openDatabase({ url: url.href, poolMax: 1 });
      try {
        const [row] = rowsOf<{ addr: string | null; one: number }>(
          await handle.db.execute(sql`select inet_server_addr()::text as addr, 1 as one`),
        );
        expect(row).toEqual({ addr: null, one: 1 });
      } finally {
        await handle.close();
      }
    },
  );
});
