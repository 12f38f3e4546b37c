// The workspace rules, plus the layers of this package (docs/architecture.md): routers → domain
// modules → @clinic/db and the pure domain. A file below the routers that imports one fails lint,
// and so does a module that imports another module past its index.ts or against the declared
// direction (module-dependencies.json).
import { readFileSync } from "node:fs";
import workspace from "../../eslint.config.js";

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
const moduleBlocks = modules.map((name) => ({
  files: [`src/modules/${name}/**/*.ts`],
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

export default [
  ...workspace,
  {
    files: ["src/**/*.ts"],
    ignores: ["src/router/**", "src/trpc.ts", "src/index.ts", "src/workers.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [routerLayer] }] },
  },
  {
    files: ["src/router/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [throughIndex("../modules")] }] },
  },
  {
    files: ["src/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [throughIndex("./modules")] }] },
  },
  ...moduleBlocks,
  {
    files: ["src/domain/**/*.ts"],
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
