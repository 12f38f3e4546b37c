// Two outputs from src/index.ts:
// - dist/index.js: the runtime, transpiled with TypeScript itself (no type checking here: `tsc
//   --noEmit` does that) and bundled into one ES module; dependencies stay imports.
// - dist/index.d.ts: the declarations, bundled by rollup-plugin-dts into one self-contained file.
//   src/router.ts makes the router type free of server types (see the comment there), so the
//   output imports only @trpc/* — a test checks that no `@clinic/` import is left.
import ts from "typescript";
import { dts } from "rollup-plugin-dts";

const external = (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0");

/** Strips types from .ts modules (type-only imports vanish, so src/router.ts never gets here). */
const transpileTypeScript = {
  name: "transpile-typescript",
  transform(code, id) {
    if (!id.endsWith(".ts")) return null;
    const out = ts.transpileModule(code, {
      fileName: id,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, sourceMap: true },
    });
    return { code: out.outputText, map: out.sourceMapText ? JSON.parse(out.sourceMapText) : null };
  },
};

export default [
  {
    input: "src/index.ts",
    output: { file: "dist/index.js", format: "es", sourcemap: true },
    external,
    plugins: [transpileTypeScript],
  },
  {
    input: "src/index.ts",
    output: { file: "dist/index.d.ts", format: "es" },
    external,
    plugins: [dts({ tsconfig: "tsconfig.build.json" })],
  },
];
