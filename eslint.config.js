// ESLint for the sources, exporters, tests, examples and benches: typescript-eslint's recommended
// rules, with the few this codebase deliberately departs from turned off where they are noise.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "test/fixtures/**", "test/interop/nat/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        URLSearchParams: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        clearImmediate: "readonly",
        queueMicrotask: "readonly",
        structuredClone: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        fetch: "readonly",
        Response: "readonly",
        Request: "readonly",
        Headers: "readonly",
        performance: "readonly",
        SharedArrayBuffer: "readonly",
        Atomics: "readonly",
        globalThis: "readonly",
        crypto: "readonly",
        ReadableStream: "readonly",
        WritableStream: "readonly",
        TransformStream: "readonly",
        Blob: "readonly",
        document: "readonly",
        window: "readonly",
        navigator: "readonly",
        HTMLElement: "readonly",
        Event: "readonly",
        EventTarget: "readonly",
        DOMException: "readonly",
        WeakRef: "readonly",
        FinalizationRegistry: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "max-len": ["error", { code: 140, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // The sources stay readable: no function over 80 lines, no line over 140 characters (strings included).
    files: ["src/**/*.ts", "exporters/**/*.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 80 }],
      "max-len": ["error", { code: 140, ignoreUrls: true }],
    },
  },
  {
    // Compile-time checks: parameters and values exist to be looked at by the type checker only.
    files: ["test/types/**"],
    rules: { "@typescript-eslint/no-unused-vars": "off" },
  },
);
