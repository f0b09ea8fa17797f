import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { VIEWER_CSP, VIEWER_SCRIPT } from "../../src/cli/viewer/page.js";
import { startNode } from "../support/child-process.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const DEMO = fileURLToPath(new URL("../fixtures/nat-atof/", import.meta.url));
const scratch = useScratchTmpdir("relaytrace-viewer-bundle-");

describe("the viewer's page script", () => {
  it("is the build's bundle of the browser modules: the built CLI writes the script the sources bundle to", async () => {
    const out = join(scratch.dir, "page.html");
    const view = startNode(CLI, ["view", join(DEMO, "exmp02_atof.jsonl"), "-o", out]);
    expect((await view.exited).code).toBe(0);
    const html = await readFile(out, "utf8");
    const script = /<script>([\s\S]*)<\/script>\n<\/body>/.exec(html)![1]!;
    expect(script).toBe(VIEWER_SCRIPT);
    expect(html).toContain(VIEWER_CSP);
  });

  it("is one bundled script, not function source text put together at run time", () => {
    expect(VIEWER_SCRIPT).toMatch(/^"use strict";\n\(\(\) => \{\n/);
    expect(VIEWER_SCRIPT).not.toMatch(/\.toString\(\)|viewerMain|CLIENT_LOGIC/);
    expect(VIEWER_SCRIPT.split("\n").length).toBeGreaterThan(100);
  });
});
