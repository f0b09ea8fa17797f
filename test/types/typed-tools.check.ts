// Compiled by test/agent-typed-tools.test.ts with `tsc --noEmit`: each line states a type the
// public API promises; a `@ts-expect-error` that is not needed fails the compile too.
import { type } from "arktype";
import * as v from "valibot";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { z } from "zod";
import { createRuntime, defineTool } from "relaytrace";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_: T): void => undefined;

// A literal JSON Schema types the arguments: required keys plain, the rest optional.
defineTool({
  name: "add",
  description: "",
  inputSchema: {
    type: "object",
    properties: {
      a: { type: "number" },
      b: { type: "integer" },
      label: { type: "string" },
      tags: { type: "array", items: { type: "string" } },
      mode: { enum: ["fast", "slow"] },
    },
    required: ["a", "b"],
  },
  execute: (args) => {
    assertType<Equal<typeof args, { a: number; b: number; label?: string; tags?: string[]; mode?: "fast" | "slow" }>>(true);
    return String(args.a + args.b);
  },
});

// `as const` on a schema declared elsewhere works the same.
const point = { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] } as const;
defineTool({
  name: "norm",
  description: "",
  inputSchema: point,
  execute: ({ x, y }) => {
    assertType<Equal<typeof x, number>>(true);
    // @ts-expect-error -- z is not in the schema
    void y.z;
    return Math.hypot(x, y);
  },
});

// Nested objects are typed through.
defineTool({
  name: "nested",
  description: "",
  inputSchema: {
    type: "object",
    properties: { user: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
    required: ["user"],
  },
  execute: ({ user }) => {
    assertType<Equal<typeof user, { name: string }>>(true);
    return user.name;
  },
});

// No schema, or a schema typed only as JSON: plain records.
defineTool({
  name: "free",
  description: "",
  execute: (args) => {
    assertType<Equal<typeof args, Record<string, unknown>>>(true);
    return "";
  },
});

// Standard Schemas: execute receives the schema's output type.
defineTool({
  name: "zod",
  description: "",
  inputSchema: z.object({ city: z.string(), days: z.number().int().default(1) }),
  execute: (args) => {
    assertType<Equal<typeof args, { city: string; days: number }>>(true);
    return args.city;
  },
});
defineTool({
  name: "valibot",
  description: "",
  inputSchema: toStandardJsonSchema(v.object({ q: v.string() })),
  execute: (args) => {
    assertType<Equal<typeof args, { q: string }>>(true);
    return args.q;
  },
});
defineTool({
  name: "arktype",
  description: "",
  inputSchema: type({ n: "number", "note?": "string" }),
  execute: (args) => {
    assertType<Equal<typeof args, { n: number; note?: string }>>(true);
    return String(args.n);
  },
});

// runtime.executeTool resolves with the callback's result type.
export async function executeToolKeepsTheResultType(): Promise<void> {
  const runtime = createRuntime();
  const out = await runtime.executeTool("sum", { a: 1 }, async () => ({ result: { total: 3, parts: [1, 2] } }));
  assertType<Equal<typeof out.result, { total: number; parts: number[] }>>(true);
}
