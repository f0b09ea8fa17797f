import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_BUILTINS } from "../../src/agent/builtins/index.js";
import { createToolkit, pendingOf, type Toolkit } from "../../src/agent/index.js";

let base: string;
let work: string;
let outside: string;
let tk: Toolkit;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "relaytrace-builtins-"));
  work = join(base, "work");
  outside = join(base, "outside");
  await mkdir(work);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "top secret\n");
  await symlink(outside, join(work, "link-out"));
  await symlink(join(outside, "secret.txt"), join(work, "secret-link.txt"));
  tk = await createToolkit({ builtins: [...ALL_BUILTINS], workdir: work });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("file built-ins", () => {
  it("write creates parents and reports the byte count; read returns the text or a line window", async () => {
    const w = await tk.execute("write", { path: "sub/note.txt", content: "one\ntwo\nthree\nfour" });
    expect(w).toEqual({ output: "Wrote 18 bytes to sub/note.txt", isError: false });
    expect(await readFile(join(work, "sub", "note.txt"), "utf8")).toBe("one\ntwo\nthree\nfour");
    expect(await tk.execute("read", { path: "sub/note.txt" })).toEqual({ output: "one\ntwo\nthree\nfour", isError: false });
    expect((await tk.execute("read", { path: "sub/note.txt", offset: 2, limit: 2 })).output).toBe("two\nthree");
    const missing = await tk.execute("read", { path: "absent.txt" });
    expect(missing.isError).toBe(true);
    expect(missing.output).toMatch(/^read: .*ENOENT/);
  });

  it("edit replaces one unique occurrence, refuses an absent or ambiguous one, and replaceAll replaces every one", async () => {
    await writeFile(join(work, "e.txt"), "a-b-a $&");
    expect(await tk.execute("edit", { path: "e.txt", oldString: "b", newString: "$&B" })).toEqual({
      output: "Edited e.txt (1 replacement)",
      isError: false,
    });
    expect(await readFile(join(work, "e.txt"), "utf8")).toBe("a-$&B-a $&");
    expect(await tk.execute("edit", { path: "e.txt", oldString: "zzz", newString: "y" })).toEqual({
      output: "edit: oldString not found in e.txt",
      isError: true,
    });
    const ambiguous = await tk.execute("edit", { path: "e.txt", oldString: "a", newString: "y" });
    expect(ambiguous).toEqual({ output: "edit: oldString is not unique in e.txt (2 occurrences); use replaceAll", isError: true });
    expect((await tk.execute("edit", { path: "e.txt", oldString: "a", newString: "y", replaceAll: true })).output).toBe(
      "Edited e.txt (2 replacements)",
    );
    expect(await readFile(join(work, "e.txt"), "utf8")).toBe("y-$&B-y $&");
  });

  it("grep lists file:line:text matches filtered by include and capped by limit; glob lists sorted relative paths", async () => {
    await mkdir(join(work, "g", "deep"), { recursive: true });
    await writeFile(join(work, "g", "a.ts"), "const x = 1;\nfind me\n");
    await writeFile(join(work, "g", "deep", "b.ts"), "find me too\n");
    await writeFile(join(work, "g", "c.md"), "find me not in ts\n");
    const grep = await tk.execute("grep", { pattern: "^find", path: "g", include: "*.ts" });
    expect(grep.output.split("\n").sort()).toEqual([
      `${join(work, "g", "a.ts")}:2:find me`,
      `${join(work, "g", "deep", "b.ts")}:1:find me too`,
    ]);
    expect((await tk.execute("grep", { pattern: "find", path: "g", limit: 1 })).output.split("\n")).toHaveLength(1);
    expect((await tk.execute("grep", { pattern: "(" })).output).toMatch(/^grep: invalid regex/);
    expect(await tk.execute("glob", { pattern: "**/*.ts", path: "g" })).toEqual({ output: "a.ts\ndeep/b.ts", isError: false });
    expect((await tk.execute("glob", { pattern: "*.md", path: "g" })).output).toBe("c.md");
  });

  it("apply_patch adds, updates and deletes files, and a hunk that does not match writes nothing", async () => {
    await writeFile(join(work, "p1.txt"), "alpha\nbeta\ngamma\n");
    await writeFile(join(work, "gone.txt"), "bye\n");
    const patch = [
      "*** Begin Patch",
      "*** Add File: new/p2.txt",
      "+hello",
      "+world",
      "*** Update File: p1.txt",
      "@@",
      " alpha",
      "-beta",
      "+BETA",
      "*** Delete File: gone.txt",
      "*** End Patch",
    ].join("\n");
    expect(await tk.execute("apply_patch", { patchText: patch })).toEqual({ output: "Applied patch: 3 file operations", isError: false });
    expect(await readFile(join(work, "new", "p2.txt"), "utf8")).toBe("hello\nworld");
    expect(await readFile(join(work, "p1.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    await expect(readFile(join(work, "gone.txt"))).rejects.toThrow(/ENOENT/);
    const bad = [
      "*** Begin Patch",
      "*** Add File: never.txt",
      "+x",
      "*** Update File: p1.txt",
      "-no such line",
      "+y",
      "*** End Patch",
    ].join("\n");
    expect(await tk.execute("apply_patch", { patchText: bad })).toEqual({
      output: "apply_patch: hunk does not match file contents",
      isError: true,
    });
    await expect(readFile(join(work, "never.txt"))).rejects.toThrow(/ENOENT/);
    expect((await tk.execute("apply_patch", { patchText: "no header" })).output).toBe("apply_patch: missing '*** Begin Patch'");
  });

  it("todowrite renders the list it is given", async () => {
    const todos = [
      { id: "1", text: "write tests", completed: true },
      { id: "2", text: "ship", completed: false },
    ];
    expect(await tk.execute("todowrite", { todos })).toEqual({ output: "[x] write tests\n[ ] ship", isError: false });
    expect((await tk.execute("todowrite", { todos: [] })).output).toBe("(no todos)");
  });
});

describe("workdir confinement", () => {
  const escapes: [string, Record<string, unknown>][] = [
    ["read", { path: "../outside/secret.txt" }],
    ["read", { path: "/etc/hostname" }],
    ["read", { path: "secret-link.txt" }],
    ["read", { path: "link-out/secret.txt" }],
    ["write", { path: "../outside/planted.txt", content: "x" }],
    ["write", { path: "link-out/planted.txt", content: "x" }],
    ["write", { path: "link-out/new-dir/planted.txt", content: "x" }],
    ["edit", { path: "secret-link.txt", oldString: "top", newString: "no" }],
    ["grep", { pattern: "secret", path: "link-out" }],
    ["grep", { pattern: "secret", path: ".." }],
    ["glob", { pattern: "*", path: "../outside" }],
    ["bash", { command: "pwd", workdir: "link-out" }],
    ["apply_patch", { patchText: "*** Begin Patch\n*** Add File: ../outside/planted.txt\n+x\n*** End Patch" }],
    ["apply_patch", { patchText: "*** Begin Patch\n*** Delete File: link-out/secret.txt\n*** End Patch" }],
  ];
  it.each(escapes)("%s %j is refused as outside the workdir", async (tool, args) => {
    const r = await tk.execute(tool, args);
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/outside the workdir/);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
    await expect(readFile(join(outside, "planted.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("a walk does not follow a symlink out of the workdir", async () => {
    const all = await tk.execute("grep", { pattern: "top secret" });
    expect(all).toEqual({ output: "", isError: false });
    expect((await tk.execute("glob", { pattern: "**/secret.txt" })).output).toBe("");
  });

  it("createToolkit refuses a workdir that does not exist", async () => {
    await expect(createToolkit({ builtins: true, workdir: join(base, "nope") })).rejects.toThrow(/workdir .* does not exist/);
  });
});

describe("bash", () => {
  it("runs in the workdir, reports a non-zero exit with its code, and kills a command past its timeout", async () => {
    expect(await tk.execute("bash", { command: "echo out; echo err 1>&2" })).toEqual({ output: "out\nerr\n", isError: false });
    expect((await tk.execute("bash", { command: "pwd" })).output.trim()).toBe(work);
    expect((await tk.execute("bash", { command: "pwd", workdir: "sub" })).output.trim()).toBe(join(work, "sub"));
    expect(await tk.execute("bash", { command: "echo no; exit 3" })).toEqual({
      output: "no\n\nbash: command exited with code 3",
      isError: true,
    });
    const slow = await tk.execute("bash", { command: "sleep 5", timeout: 100 });
    expect(slow.isError).toBe(true);
    expect(slow.output).toContain("terminated by timeout after 100 ms");
    const big = await tk.execute("bash", { command: "head -c 40000 /dev/zero | tr '\\0' a" });
    expect(big.output).toBe(`${"a".repeat(20_000)}\n[... 10000 bytes of output dropped (40000 in all) ...]\n${"a".repeat(10_000)}`);
  });
});

describe("webfetch (against a loopback server)", () => {
  it("returns the body as text with tags stripped, or raw html; a non-2xx status is an error", async () => {
    const server = createServer((req, res) => {
      if (req.url === "/missing") {
        res.writeHead(404).end("nope");
        return;
      }
      if (req.url === "/moved") {
        res.writeHead(302, { location: "/page" }).end();
        return;
      }
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<html><script>x()</script><body><h1>Title</h1><p>Body text</p></body></html>");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await tk.execute("webfetch", { url: `${url}/page` })).toEqual({ output: "TitleBody text", isError: false });
      expect((await tk.execute("webfetch", { url: `${url}/page`, format: "html" })).output).toContain("<h1>Title</h1>");
      expect((await tk.execute("webfetch", { url: `${url}/moved`, format: "text" })).output).toBe("TitleBody text");
      expect(await tk.execute("webfetch", { url: `${url}/missing` })).toEqual({ output: "HTTP 404", isError: true });
      expect((await tk.execute("webfetch", { url: "file:///etc/passwd" })).output).toMatch(/only http and https/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("question", () => {
  it("takes toolnexus's {questions} schema: the prompt renders each question and its options; the answer's data is the result", async () => {
    const questions = [{ question: "Which colour?", header: "Colour", options: ["red", "blue"] }, { question: "Why?" }];
    const first = await tk.execute("question", { questions });
    expect(pendingOf(first)).toMatchObject({ kind: "question", prompt: "Which colour? (options: red, blue)\nWhy?", data: { questions } });
    const answer = { id: pendingOf(first)!.id, ok: true, data: { answers: [["blue"], ["because"]] } };
    expect(await tk.execute("question", { questions }, { answer })).toEqual({
      output: '{"answers":[["blue"],["because"]]}',
      isError: false,
    });
    // the old single-string shape is refused by the schema, so the model learns the right one
    const old = await tk.execute("question", { question: "which colour?" });
    expect(old.isError).toBe(true);
    expect(old.output).toMatch(/^invalid arguments for question/);
  });
});
