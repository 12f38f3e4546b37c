// One lint configuration for the whole workspace: typescript-eslint's type-checked rules.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/.data/**", "drizzle/**", "**/*.js", "**/*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
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
    files: ["**/config.ts", "**/*.test.ts", "**/vitest.config.ts", "**/test/**", "**/bench/**"],
    rules: { "no-restricted-properties": "off" },
  },
);
