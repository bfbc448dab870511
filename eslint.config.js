// ESLint (issue 40): typescript-eslint's recommended rules and React's rules of hooks; formatting is Prettier's.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["build/", "public/build/", ".cache/", "node_modules/", "data/", "test/fixtures/", ".builds/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // React's rules where React runs (test helpers named use… are not hooks).
    files: ["app/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: { "react-hooks/rules-of-hooks": "error", "react-hooks/exhaustive-deps": "error" },
  },
  {
    rules: {
      // The spreadsheet readers and their tests match control characters on purpose (XML 1.0 forbids them).
      "no-control-regex": "off",
      // TypeScript checks names: ESLint's own check knows neither the browser's nor Node's globals.
      "no-undef": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // Rows typed at the boundary (issue 40): a raw query's row type comes from its declared columns (db/typed-sql.ts
    // selectRows) or Drizzle's builders, never from a cast stated beside the SQL.
    // Tests and benches read tables to check them, outside the boundary: they may still cast.
    files: ["server/**/*.ts", "app/**/*.{ts,tsx}", "common/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.name='queryRows'][typeArguments]",
          message: "queryRows<T> only casts: declare the columns and read them with selectRows (db/typed-sql.ts), or use Drizzle's builders.",
        },
      ],
    },
  },
  {
    // An eslint-disable comment says why on its own line (`-- the reason`).
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
);
