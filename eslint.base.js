// The rules of every package: typescript-eslint's type-checked rules on two TypeScript programs,
// the Node packages' (the root tsconfig.json) and the web pages' (apps/web, with the DOM), so that
// one ESLint run checks each source file once (docs/testing.md#lint-and-typecheck).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export const workspace = tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/.data/**", "drizzle/**", "**/*.js", "**/*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ["./tsconfig.json", "./apps/web/tsconfig.json"], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through the config module." },
      ],
    },
  },
  {
    files: ["**/config.ts", "**/*.test.ts", "**/vitest.config.ts", "vitest.shared.ts", "**/test/**", "**/bench/**"],
    rules: { "no-restricted-properties": "off" },
  },
);
