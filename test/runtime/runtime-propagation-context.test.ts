import { describe, expect, it } from "vitest";
import {
  capturePropagationContext,
  createRuntime,
  propagationContextFromJson,
  propagationContextToJson,
  RelaytraceError,
  type PropagationContext,
} from "relaytrace";
import { capturingRuntime, scopes } from "../support/capture.js";

const ROOT = "019ca945-0a01-7651-8317-1ff4a6a3a450";
const PARENT = "019ca945-0b9c-7128-a24b-e40ad23f0824";

describe("propagation context (NeMo Relay's shape)", () => {
  it("capturePropagationContext() is camelCase: { version, rootUuid, parentUuid } inside a scope", async () => {
    const rt = createRuntime();
    let ctx: PropagationContext | undefined;
    let scopeUuid = "";
    await rt.withScope(
      "agent",
      (scope) => {
        scopeUuid = scope.uuid;
        ctx = rt.capturePropagationContext();
      },
      { category: "agent" },
    );
    expect(ctx).toEqual({ version: 1, rootUuid: scopeUuid, parentUuid: scopeUuid });
    let inTool: PropagationContext | undefined;
    let toolUuid = "";
    await rt.withScope("agent", () =>
      rt.executeTool("lookup", {}, (_args, tctx) => {
        toolUuid = tctx.toolUuid;
        inTool = capturePropagationContext(); // the package-level function: no runtime needed
        return { result: null };
      }),
    );
    expect(inTool?.parentUuid).toBe(toolUuid);
  });

  it("converts to and from NeMo Relay's JSON text with snake_case keys; root_uuid omitted when absent", () => {
    expect(propagationContextToJson({ version: 1, rootUuid: ROOT, parentUuid: PARENT })).toBe(
      `{"version":1,"root_uuid":"${ROOT}","parent_uuid":"${PARENT}"}`,
    );
    expect(propagationContextToJson({ version: 1, parentUuid: PARENT })).toBe(`{"version":1,"parent_uuid":"${PARENT}"}`);
    expect(propagationContextFromJson(`{"version":1,"root_uuid":"${ROOT}","parent_uuid":"${PARENT}"}`)).toEqual({
      version: 1,
      rootUuid: ROOT,
      parentUuid: PARENT,
    });
    expect(propagationContextFromJson(`{"version":1,"parent_uuid":"${PARENT}"}`)).toEqual({ version: 1, parentUuid: PARENT });
  });

  it("rejects bad text with invalid_argument naming the problem", () => {
    const code = (text: string) => {
      try {
        propagationContextFromJson(text);
        return "accepted";
      } catch (error) {
        expect(error).toBeInstanceOf(RelaytraceError);
        return `${(error as RelaytraceError).code}: ${(error as Error).message}`;
      }
    };
    expect(code("{not json")).toBe("invalid_argument: propagation context is not JSON text");
    expect(code(`{"version":2,"parent_uuid":"${PARENT}"}`)).toBe("invalid_argument: unsupported propagation context version 2; expected 1");
    expect(code(`{"version":1,"parent_uuid":"00000000-0000-0000-0000-000000000000"}`)).toBe(
      "invalid_argument: propagation context parent_uuid must not be all zero",
    );
    expect(code(`{"version":1}`)).toBe("invalid_argument: propagation context parent_uuid must be a uuid");
  });

  it("a context sent as JSON text continues the same trace in another runtime (and old snake_case objects still work)", async () => {
    const producer = createRuntime();
    let text = "";
    let rootUuid = "";
    await producer.withScope(
      "caller",
      (scope) => {
        rootUuid = scope.uuid;
        text = propagationContextToJson(producer.capturePropagationContext());
      },
      { category: "agent" },
    );
    const { rt, settle } = capturingRuntime();
    await rt.withPropagation(propagationContextFromJson(text), () => rt.withScope("callee", () => 1));
    await rt.withPropagation(JSON.parse(text) as never, () => rt.withScope("callee-legacy", () => 1));
    const starts = scopes(await settle()).filter((e) => e.scope_category === "start");
    expect(starts.map((e) => [e.name, e.parent_uuid])).toEqual([
      ["callee", rootUuid],
      ["callee-legacy", rootUuid],
    ]);
  });
});
