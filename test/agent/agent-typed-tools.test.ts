import { type } from "arktype";
import * as v from "valibot";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineTool } from "../../src/agent/index.js";
import { typeCheck } from "../support/type-check.js";

describe("Standard Schema tools", () => {
  const cases = [
    ["zod", z.object({ city: z.string(), days: z.number().int().default(1) })],
    ["arktype", type({ city: "string", "days?": "number" })],
    ["valibot", toStandardJsonSchema(v.object({ city: v.string(), days: v.optional(v.number()) }))],
  ] as const;

  it.each(cases)("%s: declared to the provider as JSON Schema, validated by the schema itself", async (vendor, schema) => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: `weather_${vendor}`,
      description: "",
      inputSchema: schema,
      execute: (args) => (seen.push(args), `ok:${args.city}`),
    });
    expect(tool.inputSchema).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    expect(tool.inputSchema).not.toHaveProperty("$schema");
    expect(await tool.execute({ city: "Oslo" })).toEqual({ output: "ok:Oslo", isError: false });
    const bad = await tool.execute({ city: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.output).toMatch(new RegExp(`^invalid arguments for weather_${vendor}: /city `));
    expect(seen).toHaveLength(1);
  });

  it("execute receives the schema's output: defaults and transforms applied", async () => {
    const tool = defineTool({
      name: "days",
      description: "",
      inputSchema: z.object({ days: z.number().default(3), tag: z.string().transform((s) => s.toUpperCase()) }),
      execute: (args) => JSON.stringify(args),
    });
    expect((await tool.execute({ tag: "x" })).output).toBe('{"days":3,"tag":"X"}');
  });

  it("a Standard Schema that cannot describe itself as JSON Schema is refused at definition, saying what to do", () => {
    expect(() => defineTool({ name: "plain", description: "", inputSchema: v.object({ q: v.string() }), execute: () => "" })).toThrow(
      /toStandardJsonSchema from @valibot\/to-json-schema/,
    );
  });

  it("a literal JSON Schema still validates with ajv, naming the failing path", async () => {
    const add = defineTool({
      name: "add",
      description: "",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      execute: ({ a, b }) => String(a + b),
    });
    expect(await add.execute({ a: 2, b: 3 })).toEqual({ output: "5", isError: false });
    expect(await add.execute({ a: 2, b: "3" })).toEqual({ output: "invalid arguments for add: /b must be number", isError: true });
  });
});

describe("types", () => {
  it("literal schemas, Standard Schemas and executeTool give the types the API promises (tsc over test/types and the examples)", async () => {
    const out = await typeCheck(["test/types/typed-tools.check.ts", "examples/typed-tools.ts", "examples/skills.ts"], {
      relaytrace: ["./src/index.ts"],
      "relaytrace/exporters": ["./exporters/index.ts"],
      "relaytrace/testing": ["./exporters/testing/index.ts"],
    });
    expect(out).toBe("");
  }, 120_000);
});
