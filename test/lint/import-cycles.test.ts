// No import cycles between the source files of src/ and exporters/: a hand-written walk over the import
// graph (every static import and re-export, `import type` included, as madge counts them), so it runs
// in about a second where eslint's import/no-cycle takes minutes.
import { describe, expect, it } from "vitest";
import { importGraph, sourceFiles } from "../support/import-graph.js";

/** Strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) components.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

describe("import cycles", () => {
  it("src/ and exporters/ have none", () => {
    const graph = importGraph([...sourceFiles("src"), ...sourceFiles("exporters")]);
    expect(graph.size).toBeGreaterThan(100);
    const described = cyclesOf(graph).map((files) => `files that import each other in a ring: ${files.join(", ")}`);
    expect(described).toEqual([]);
  });

  it("finds a cycle when there is one", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
      ["e.ts", ["e.ts"]],
    ]);
    expect(cyclesOf(graph)).toEqual([["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
  });
});
