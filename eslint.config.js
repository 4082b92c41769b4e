// ESLint flat config (typescript-eslint). Formatting is Prettier's job (`npm run format`);
// rules here catch mistakes. Rules switched off below fight a deliberate style of this code
// base: each says why.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "bench/results/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly" } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // `_`-prefixed parameters and destructured leftovers are deliberate (interface shapes, rest-omits).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
      // Comma-joined assignments as one statement (`if (x) (a = 1), (b = 2);`) are this code
      // base's deliberate one-line form; the rule cannot allow them alone. tsc flags the rest.
      "@typescript-eslint/no-unused-expressions": "off",
      // Aligned columns of CLI output (`ok    config: ...`) are asserted with regexes written
      // exactly like the literal lines next to them: `{4}` would hide the alignment.
      "no-regex-spaces": "off",
      // Non-null assertions follow checks TypeScript cannot see (noUncheckedIndexedAccess on arrays just measured).
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    // Tests read arbitrary JSON answers and fake upstream bodies field by field.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // dependency-cruiser reads its config as CommonJS.
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } },
  },
  {
    // Plain-JS entry points and fixtures run under Node.
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
);
