import { describe, expect, it } from "vitest";
import { redactPII } from "../../src/redact/index.js";
import { capturingRuntime, scopes } from "../support/capture.js";

describe("names of scope-local registrations are unique per scope", () => {
  it("two concurrent requests each registering a scope-local sanitizer with the same name both work", async () => {
    const { rt, settle } = capturingRuntime();
    const handle = (user: string) =>
      rt.withScope(`request-${user}`, async (scope) => {
        rt.registerScopeEndSanitizer("request-redaction", 1, (_e, f) => ({ ...f, data: `redacted for ${user}` }), { scope });
        await new Promise((r) => setTimeout(r, 10)); // both registrations are live at once
        await rt.withScope("work", () => undefined);
      });
    await Promise.all([handle("ada"), handle("bob")]);
    const ends = scopes(await settle()).filter((e) => e.scope_category === "end" && e.name === "work");
    expect(ends.map((e) => e.data).sort()).toEqual(["redacted for ada", "redacted for bob"]);
  });

  it("redactPII registered scope-locally by two concurrent requests works for both", async () => {
    const { rt, settle } = capturingRuntime();
    const handle = (to: string) =>
      rt.withScope("request", async (scope) => {
        redactPII({ scope }).register(rt);
        await new Promise((r) => setTimeout(r, 10));
        await rt.executeTool("send", { to }, () => ({ result: "sent" }));
      });
    await Promise.all([handle("ada@example.com"), handle("bob@example.com")]);
    const events = await settle();
    expect(JSON.stringify(events)).not.toMatch(/ada@example\.com|bob@example\.com/);
  });

  it("within one scope, and among global registrations, a name is still taken once", async () => {
    const { rt } = capturingRuntime();
    rt.registerMarkSanitizer("global", 1, (_e, f) => f);
    expect(() => rt.registerMarkSanitizer("global", 2, (_e, f) => f)).toThrow('mark sanitizer "global" is already registered');
    await rt.withScope("s", (scope) => {
      rt.registerMarkSanitizer("local", 1, (_e, f) => f, { scope });
      expect(() => rt.registerMarkSanitizer("local", 1, (_e, f) => f, { scope })).toThrow(
        'mark sanitizer "local" is already registered on this scope',
      );
    });
  });
});
