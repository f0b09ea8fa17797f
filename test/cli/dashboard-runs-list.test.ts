// What the dashboard's runs list shows and in what order, and the URLs that name each view: the
// page's own functions, run in Node.
import { describe, expect, it } from "vitest";
import type { RunSummary } from "../../src/cli/dashboard/model.js";
import { emptyQuery, parseRoute, routeHash, type Route } from "../../src/cli/dashboard/client/routes.js";
import { filterValues, runMatches, runSearchText, sortRuns } from "../../src/cli/dashboard/client/run-filter.js";

function run(id: string, fields: Partial<RunSummary>): RunSummary {
  return {
    id,
    rootSpanId: id.slice(16),
    name: "agent",
    kind: "agent",
    start: 0,
    end: 0,
    status: "ok",
    tags: [],
    spans: 1,
    llmCalls: 0,
    toolCalls: 0,
    errors: 0,
    tokens: 0,
    models: [],
    evaluations: [],
    files: [],
    version: 1,
    ...fields,
  };
}

const runs = [
  run("a".repeat(32), { start: 100, end: 400, sessionId: "s-1", userId: "ana", tags: ["prod"], costUsd: 0.5, input: "Weather in Oslo?" }),
  run("b".repeat(32), { start: 200, end: 250, sessionId: "s-1", userId: "bo", tags: ["prod", "beta"], status: "error" }),
  run("c".repeat(32), { start: 300, end: null, sessionId: "s-2", userId: "ana", status: "suspended", costUsd: 0.1, name: "triage" }),
];

const shown = (query: Partial<ReturnType<typeof emptyQuery>>) =>
  runs.filter((r) => runMatches(r, { ...emptyQuery(), ...query }, runSearchText(r))).map((r) => r.id[0]);

describe("the runs list", () => {
  it("filters by session, user, tag, status and every word of the search", () => {
    expect(shown({})).toEqual(["a", "b", "c"]);
    expect(shown({ session: "s-1" })).toEqual(["a", "b"]);
    expect(shown({ user: "ana" })).toEqual(["a", "c"]);
    expect(shown({ tag: "beta" })).toEqual(["b"]);
    expect(shown({ status: "suspended" })).toEqual(["c"]);
    expect(shown({ q: "OSLO weather" })).toEqual(["a"]);
    expect(shown({ q: "triage ana" })).toEqual(["c"]);
    expect(shown({ session: "s-1", user: "ana", q: "nothing-like-it" })).toEqual([]);
  });

  it("sorts by time, duration and cost, each way; a running run lasts until now", () => {
    const order = (sort: string) => sortRuns([...runs], sort, 1_000).map((r) => r.id[0]);
    expect(order("time-desc")).toEqual(["c", "b", "a"]);
    expect(order("time-asc")).toEqual(["a", "b", "c"]);
    expect(order("duration-desc")).toEqual(["c", "a", "b"]);
    expect(order("duration-asc")).toEqual(["b", "a", "c"]);
    expect(order("cost-desc")).toEqual(["a", "c", "b"]);
    expect(order("cost-asc")).toEqual(["b", "c", "a"]);
  });

  it("offers the sessions, users and tags the runs have", () => {
    expect(filterValues(runs)).toEqual({ session: ["s-1", "s-2"], user: ["ana", "bo"], tag: ["beta", "prod"] });
  });
});

describe("the dashboard's URLs", () => {
  it("name each view so that reading one back gives the same view", () => {
    const routes: Route[] = [
      { view: "runs", query: emptyQuery() },
      { view: "runs", query: { ...emptyQuery(), session: "chat #7 / ünï", status: "error", q: "a&b=c", sort: "cost-asc" } },
      { view: "session", id: "chat #7 / ünï?x=1" },
      { view: "trace", id: "0123456789abcdef0123456789abcdef" },
      { view: "trace", id: "0123456789abcdef0123456789abcdef", span: "0123456789abcdef" },
      { view: "compare", a: "a".repeat(32), b: "b".repeat(32) },
    ];
    for (const route of routes) expect(parseRoute(routeHash(route))).toEqual(route);
    expect(routeHash({ view: "session", id: "javascript:alert(1)" })).toBe("#/session/javascript%3Aalert(1)");
  });

  it("read anything else as the runs list", () => {
    for (const hash of ["", "#", "#/nothing", "#/trace/<script>", "#/compare/a", "#/session/%E0%A4%A"])
      expect(parseRoute(hash)).toEqual({ view: "runs", query: emptyQuery() });
  });
});
