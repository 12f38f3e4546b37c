// docs/architecture.md's route table must match the route table the server derives from the
// procedures, and name module functions that exist and that the procedure's router calls.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { appRouter } from "@clinic/api";
import { restRoutes } from "../src/routes.ts";
import {
  cyclesOf,
  importsPastIndex,
  moduleDependencies,
  readImportGraph,
  renderModuleDependencies,
} from "./importGraph.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));

interface DocRow {
  method: string;
  path: string;
  procedure: string;
  functions: string[];
}

async function documentedRoutes(): Promise<DocRow[]> {
  const text = await readFile(`${root}docs/architecture.md`, "utf8");
  const start = text.indexOf("<!-- routes:start -->");
  const end = text.indexOf("<!-- routes:end -->");
  expect(start, "docs/architecture.md lacks the routes:start marker").toBeGreaterThan(-1);
  return text
    .slice(start, end)
    .split("\n")
    .filter((line) => /^\| (GET|POST|PUT|PATCH|DELETE) /.test(line))
    .map((line) => {
      const [method = "", path = "", procedure = "", functions = ""] = line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { method, path, procedure, functions: functions.split(",").map((f) => f.trim()) };
    });
}

const rowOf = (r: { method: string; path: string; procedure: string }) =>
  `| ${r.method} | ${r.path} | ${r.procedure} |`;

describe("docs/architecture.md", () => {
  it("lists exactly the REST routes the server serves, with their procedures", async () => {
    const actual = restRoutes(appRouter).map((e) =>
      rowOf({ method: e.rest.method, path: e.rest.path.replace(/:([a-z_]+)/g, "{$1}"), procedure: e.procedure }),
    );
    const documented = (await documentedRoutes()).map(rowOf);
    // On failure, the message shows the rows to add (missing) or to remove (stale).
    expect({
      missing: actual.filter((r) => !documented.includes(r)),
      stale: documented.filter((r) => !actual.includes(r)),
    }).toEqual({ missing: [], stale: [] });
    expect(new Set(documented).size).toBe(documented.length);
  });

  it("names module functions that exist and that the procedure's router calls", async () => {
    const modules = new Map<string, Record<string, unknown>>();
    for (const row of await documentedRoutes()) {
      const [area = ""] = row.procedure.split(".");
      const routerSource = await routerSourceWithHelpers(area);
      expect(row.functions.length, row.procedure).toBeGreaterThan(0);
      for (const ref of row.functions) {
        const [module = "", fn = ""] = ref.split(".");
        let exports = modules.get(module);
        if (!exports) {
          exports = (await import(pathToFileURL(`${root}packages/api/src/modules/${module}/index.ts`).href)) as Record<
            string,
            unknown
          >;
          modules.set(module, exports);
        }
        expect(
          typeof exports[fn],
          `${ref} (for ${row.procedure}) is not a function exported by modules/${module}`,
        ).toBe("function");
        expect(routerSource, `router/${area}.ts (or a router-local helper it imports) does not call ${fn}`).toMatch(
          new RegExp(`\\b${fn}\\(`),
        );
      }
    }
  });
});

/**
 * A router's source with the router-local helpers it imports (`src/router/shared/*.ts`): a call
 * made for the router by such a helper counts as the router's own.
 */
async function routerSourceWithHelpers(area: string): Promise<string> {
  const source = await readFile(`${root}packages/api/src/router/${area}.ts`, "utf8");
  const helpers = [...source.matchAll(/from "\.\/shared\/([A-Za-z]+\.ts)"/g)].map((m) => m[1] ?? "");
  const helperSources = await Promise.all(
    helpers.map((file) => readFile(`${root}packages/api/src/router/shared/${file}`, "utf8")),
  );
  return [source, ...helperSources].join("\n");
}

describe("the import graph of packages/api/src", () => {
  const graph = readImportGraph(`${root}packages/api/src`);
  const deps = moduleDependencies(graph);

  it("has no cycle, between files or between modules", () => {
    expect(cyclesOf(graph.files)).toEqual([]);
    expect(cyclesOf(deps)).toEqual([]);
  });

  it("reaches another module only through its index.ts", () => {
    expect(importsPastIndex(graph)).toEqual([]);
  });

  it("is exactly the declared module dependencies (packages/api/module-dependencies.json)", () => {
    const { $comment: _comment, ...declared } = JSON.parse(
      readFileSync(`${root}packages/api/module-dependencies.json`, "utf8"),
    ) as Record<string, string[]>;
    const normalized = Object.fromEntries(
      Object.entries(declared).map(([name, targets]) => [name, [...targets].sort()]),
    );
    expect(Object.fromEntries(deps)).toEqual(normalized);
  });

  it("is the list docs/architecture.md shows between its module-deps markers", async () => {
    const text = await readFile(`${root}docs/architecture.md`, "utf8");
    const start = text.indexOf("<!-- module-deps:start -->");
    const end = text.indexOf("<!-- module-deps:end -->");
    expect(start, "docs/architecture.md lacks the module-deps markers").toBeGreaterThan(-1);
    const documented = text.slice(start + "<!-- module-deps:start -->".length, end).trim();
    // On failure, the expected value is the list to paste between the markers.
    expect(documented).toBe(renderModuleDependencies(deps));
  });
});
