// `npm start` runs the server compiled: one ES module per entry point with source maps, the
// workspace's own TypeScript packages bundled in, every third-party package left to Node's
// resolution from this app (so each must be a dependency of @clinic/server: checked below).
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const read = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
const own = read("./package.json");
const bundled = [
  "../../packages/api/package.json",
  "../../packages/db/package.json",
  "../../packages/config/package.json",
].map(read);
const thirdParty = (pkg) => Object.keys(pkg.dependencies ?? {}).filter((name) => !name.startsWith("@clinic/"));
const external = [...new Set([own, ...bundled].flatMap(thirdParty))];
const missing = external.filter((name) => !(name in (own.dependencies ?? {})));
if (missing.length > 0) {
  console.error(
    `@clinic/server must depend on what its bundle imports: add ${missing.join(", ")} to apps/server/package.json`,
  );
  process.exit(1);
}
await build({
  entryPoints: { main: "src/main.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  external,
  logLevel: "warning",
  // Bundled CommonJS helpers may call require().
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
console.log(`built dist/main.js (${String(external.length)} packages left external)`);
