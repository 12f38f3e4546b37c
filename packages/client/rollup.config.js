// Two outputs from src/index.ts:
// - dist/index.js: the runtime, transpiled with TypeScript itself (no type checking here: `tsc
//   --noEmit` does that) and bundled into one ES module; dependencies stay imports.
// - dist/index.d.ts: the declarations, bundled by rollup-plugin-dts into one self-contained file.
//   src/router.ts makes the router type free of server types (see the comment there), so the
//   output imports only @trpc/* — a test checks that no `@clinic/` import is left.
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { dts } from "rollup-plugin-dts";

// Workspace packages are bundled (only @clinic/api/error-codes is imported at run time: a
// module without imports); everything else stays an import of the consumer's dependencies.
const external = (id) =>
  !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0") && !id.startsWith("@clinic/");

/** Resolves workspace imports through their package's `exports`, as Node would. */
const workspace = {
  name: "workspace",
  resolveId(id) {
    return id.startsWith("@clinic/") ? fileURLToPath(import.meta.resolve(id)) : null;
  },
};

/** Strips types from .ts modules (type-only imports vanish, so src/router.ts never gets here). */
const transpileTypeScript = {
  name: "transpile-typescript",
  transform(code, id) {
    if (!id.endsWith(".ts")) return null;
    const out = ts.transpileModule(code, {
      fileName: id,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
        sourceMap: true,
      },
    });
    return { code: out.outputText, map: out.sourceMapText ? JSON.parse(out.sourceMapText) : null };
  },
};

export default [
  {
    input: "src/index.ts",
    output: { file: "dist/index.js", format: "es", sourcemap: true },
    external,
    plugins: [workspace, transpileTypeScript],
  },
  {
    input: "src/index.ts",
    output: { file: "dist/index.d.ts", format: "es" },
    external,
    plugins: [dts({ tsconfig: "tsconfig.build.json", respectExternal: true })],
  },
];
