// The workspace rules, plus the layers of this package (docs/architecture.md): routers → domain
// modules → @clinic/db and the pure domain. A file below the routers that imports one fails lint,
// and so does a module that imports another module past its index.ts or against the declared
// direction (module-dependencies.json).
import { readFileSync } from "node:fs";
import { workspace } from "../../eslint.base.js";

const { $comment: _comment, ...allowed } = JSON.parse(
  readFileSync(new URL("./module-dependencies.json", import.meta.url), "utf8"),
);
const modules = Object.keys(allowed);

const routerLayer = {
  group: ["**/router/*", "**/router/**", "**/trpc.ts", "**/trpc"],
  message:
    "Layers point down: only routers and the package entry may import routers or the procedure builders (docs/architecture.md).",
};
/** `<prefix>/<module>/<file other than index.ts>`, where prefix leads into src/modules. */
const throughIndex = (prefix) => ({
  regex: `^${prefix.replaceAll(".", "\\.")}/(?!\\.\\.?/)[^/]+/(?!index\\.ts$)`,
  message: "Use another module only through its index.ts (docs/architecture.md#module-dependencies).",
});

/** One block per module: the router layer, index-only imports, and the modules it may not use. */
const moduleBlocks = (prefix) =>
  modules.map((name) => ({
    files: [`${prefix}src/modules/${name}/**/*.ts`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            routerLayer,
            throughIndex(".."),
            ...modules
              .filter((other) => other !== name && !allowed[name].includes(other))
              .map((other) => ({
                regex: `^\\.\\./${other}(/|$)`,
                message: `modules/${name} may not import modules/${other}: declare the dependency in module-dependencies.json if it points one way (docs/architecture.md#module-dependencies).`,
              })),
          ],
        },
      ],
    },
  }));

/**
 * The layer rules, for files under `prefix` (the package's folder as seen from the config that uses
 * them: "" here, "packages/api/" in the workspace's config, which lints every package in one run).
 */
export function apiLayers(prefix) {
  return [
    {
      files: [`${prefix}src/**/*.ts`],
      ignores: ["src/router/**", "src/trpc.ts", "src/index.ts", "src/workers.ts"].map((glob) => prefix + glob),
      rules: { "no-restricted-imports": ["error", { patterns: [routerLayer] }] },
    },
    {
      files: [`${prefix}src/router/**/*.ts`],
      rules: { "no-restricted-imports": ["error", { patterns: [throughIndex("../modules")] }] },
    },
    {
      files: [`${prefix}src/*.ts`],
      rules: { "no-restricted-imports": ["error", { patterns: [throughIndex("./modules")] }] },
    },
    ...moduleBlocks(prefix),
    {
      files: [`${prefix}src/domain/**/*.ts`],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            paths: [
              { name: "@clinic/db", message: "The pure domain does no I/O: pass data in (docs/architecture.md)." },
              { name: "drizzle-orm", message: "The pure domain does no I/O: pass data in (docs/architecture.md)." },
            ],
            patterns: [
              routerLayer,
              {
                group: ["**/modules/**", "../*"],
                message: "The pure domain imports nothing but itself (docs/architecture.md).",
              },
            ],
          },
        ],
      },
    },
  ];
}

export default [...workspace, ...apiLayers("")];
