// Data flows one way: the exporters (relaytrace/exporters and relaytrace/testing) project events
// and never reach the agent loop or the integrations, not even through a file they import.
import { describe, expect, it } from "vitest";
import { importGraph, sourceFiles } from "../support/import-graph.js";

const FORBIDDEN = ["src/agent/", "src/integrations/"];

/** Each file reachable from `roots`, with one import chain that reaches it (breadth first, no recursion). */
function reachable(graph: ReadonlyMap<string, readonly string[]>, roots: readonly string[]): Map<string, string[]> {
  const chains = new Map<string, string[]>(roots.map((r) => [r, [r]]));
  const queue = [...roots];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!;
    for (const next of graph.get(file) ?? []) {
      if (chains.has(next)) continue;
      chains.set(next, [...chains.get(file)!, next]);
      queue.push(next);
    }
  }
  return chains;
}

describe("layers", () => {
  it("exporters/ reach neither the agent loop nor the integrations, type imports included", () => {
    const graph = importGraph([...sourceFiles("src"), ...sourceFiles("exporters")]);
    const exporters = [...graph.keys()].filter((f) => f.startsWith("exporters/"));
    expect(exporters.length).toBeGreaterThan(20);
    const chains = reachable(graph, exporters);
    // relaytrace/testing serves the replay: it is reached, and it must stay below the loop.
    expect(chains.has("src/replay/index.ts")).toBe(true);
    const violations = [...chains]
      .filter(([file]) => FORBIDDEN.some((prefix) => file.startsWith(prefix)))
      .map(([, chain]) => chain.join(" → "));
    expect(violations).toEqual([]);
  });
});
