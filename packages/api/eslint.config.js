// The workspace rules, plus the layers of this package (docs/architecture.md): routers → domain
// modules → @clinic/db and the pure domain. A file below the routers that imports one fails lint.
import workspace from "../../eslint.config.js";

const routerLayer = {
  group: ["**/router/*", "**/router/**", "**/trpc.ts", "**/trpc"],
  message: "Layers point down: only routers and the package entry may import routers or the procedure builders (docs/architecture.md).",
};

export default [
  ...workspace,
  {
    files: ["src/**/*.ts"],
    ignores: ["src/router/**", "src/trpc.ts", "src/index.ts", "src/workers.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [routerLayer] }] },
  },
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
          patterns: [routerLayer, { group: ["**/modules/**", "../*"], message: "The pure domain imports nothing but itself (docs/architecture.md)." }],
        },
      ],
    },
  },
];
