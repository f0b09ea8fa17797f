import { describe, expect, it } from "vitest";
import { SpanCapture } from "../../exporters/testing/span-capture.js";
import { capturingRuntime } from "../support/capture.js";

describe("runtime.metric", () => {
  it("emits one mark with the reserved schema and snake_case measurements on the wire", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope("agent", () => {
      rt.metric("tokens", [
        { name: "llm.tokens", kind: "counter", valueType: "u64", value: 42, unit: "{token}", attributes: { model: "m" } },
        { name: "latency", kind: "histogram", valueType: "f64", value: 12.5, unit: "ms", boundaries: [5, 10, 50] },
      ]);
    });
    const [agent, mark] = await settle();
    expect(mark).toMatchObject({
      kind: "mark",
      name: "tokens",
      parent_uuid: agent!.uuid,
      data_schema: { name: "nemo.relay.metric_measurements", version: "1" },
      data: {
        measurements: [
          { name: "llm.tokens", kind: "counter", value_type: "u64", value: 42, unit: "{token}", attributes: { model: "m" } },
          { name: "latency", kind: "histogram", value_type: "f64", value: 12.5, unit: "ms", boundaries: [5, 10, 50] },
        ],
      },
    });
  });

  it("validates every measurement before emitting anything", async () => {
    const { rt, settle } = capturingRuntime();
    const bad: [unknown, RegExp][] = [
      [[], /non-empty array/],
      [[{ name: "x", kind: "counter", valueType: "u64", value: -1 }], /non-negative safe integer/],
      [[{ name: "x", kind: "gauge", valueType: "i64", value: 1.5 }], /safe integer/],
      [[{ name: "x", kind: "gauge", valueType: "f64", value: Number.NaN }], /finite number/],
      [[{ name: "x", kind: "meter", valueType: "f64", value: 1 }], /kind must be/],
      [[{ name: "x", kind: "gauge", value_type: "f64", value: 1 }], /unknown field value_type \(use valueType\)/],
      [[{ name: "x", kind: "gauge", valueType: "f64", value: 1, boundaries: [1] }], /histograms only/],
      [[{ name: "x", kind: "histogram", valueType: "f64", value: 1, boundaries: [2, 1] }], /ascending/],
      [
        [
          { name: "ok", kind: "gauge", valueType: "f64", value: 1 },
          { name: "", kind: "gauge", valueType: "f64", value: 1 },
        ],
        /measurements\[1\]: name/,
      ],
    ];
    for (const [measurements, message] of bad) expect(() => rt.metric("m", measurements as never)).toThrow(message);
    expect(await settle()).toEqual([]);
  });

  it("never reaches trace projections", async () => {
    const { rt } = capturingRuntime();
    const spans = new SpanCapture({ projection: "full" });
    spans.register(rt);
    await rt.withScope("agent", () => {
      rt.metric("tokens", [{ name: "n", kind: "gauge", valueType: "f64", value: 1 }]);
      rt.mark("visible");
    });
    await rt.shutdown();
    const [agent] = await spans.spans();
    expect(agent!.events.map((e) => e.name)).toEqual(["visible"]);
  });
});
