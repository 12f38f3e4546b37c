// The import graph of packages/api/src, read from the sources with TypeScript's own pre-processor
// (every import, `import type` and `export … from` counts): what the architecture test checks.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export interface ImportGraph {
  /** Source files relative to `src/`, each with the files it imports (also relative to `src/`). */
  files: Map<string, string[]>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every relative import of every `.ts` file under `srcDir` (package imports are left out). */
export function readImportGraph(srcDir: string): ImportGraph {
  const files = new Map<string, string[]>();
  for (const path of sourceFiles(srcDir)) {
    const info = ts.preProcessFile(readFileSync(path, "utf8"), true, false);
    const targets = info.importedFiles.map((f) => f.fileName).filter((name) => name.startsWith("."));
    files.set(
      relative(srcDir, path),
      targets.map((target) => relative(srcDir, resolve(dirname(path), target))),
    );
  }
  return { files };
}

/** The module a file belongs to (`modules/<name>/…`), if any. */
export function moduleOf(file: string): string | undefined {
  const match = /^modules\/([^/]+)\//.exec(file);
  return match?.[1];
}

/** Module → the other modules it imports, both sorted. */
export function moduleDependencies(graph: ImportGraph): Map<string, string[]> {
  const deps = new Map<string, Set<string>>();
  for (const [file, targets] of graph.files) {
    const from = moduleOf(file);
    if (!from) continue;
    const set = deps.get(from) ?? new Set<string>();
    deps.set(from, set);
    for (const target of targets) {
      const to = moduleOf(target);
      if (to && to !== from) set.add(to);
    }
  }
  return new Map([...deps].sort(([a], [b]) => a.localeCompare(b)).map(([name, set]) => [name, [...set].sort()]));
}

/** Imports of another module's file other than its `index.ts`. */
export function importsPastIndex(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph.files) {
    for (const target of targets) {
      const to = moduleOf(target);
      if (to && to !== moduleOf(file) && target !== `modules/${to}/index.ts`) found.push(`${file} → ${target}`);
    }
  }
  return found.sort();
}

/** The cycles of a directed graph (its strongly connected components with more than one node, or a self-loop). */
export function cyclesOf(edges: Map<string, readonly string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, indexOf.get(next) ?? 0));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) components.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!indexOf.has(node)) visit(node);
  return components;
}

/** The module dependency list as docs/architecture.md shows it between its markers. */
export function renderModuleDependencies(deps: Map<string, string[]>): string {
  return [...deps]
    .map(
      ([name, targets]) =>
        `- \`${name}\` → ${targets.length > 0 ? targets.map((t) => `\`${t}\``).join(", ") : "no other module"}`,
    )
    .join("\n");
}
