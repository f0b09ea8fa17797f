/**
 * The page's views as URL fragments, so a reload (or a link someone sends) opens the same view
 * and selection: `#/runs?session=…&q=…&sort=…`, `#/session/ID`, `#/trace/ID/SPAN`,
 * `#/compare/A/B`. Pure: parsed and written by the page, read back by the unit test.
 */

/** The runs list's filters and order, as the URL keeps them. */
export interface RunsQuery {
  session: string;
  user: string;
  tag: string;
  status: string;
  q: string;
  sort: string;
}

export type Route =
  | { view: "runs"; query: RunsQuery }
  | { view: "session"; id: string }
  | { view: "trace"; id: string; span?: string }
  | { view: "compare"; a: string; b: string };

export const DEFAULT_SORT = "time-desc";

export function emptyQuery(): RunsQuery {
  return { session: "", user: "", tag: "", status: "", q: "", sort: DEFAULT_SORT };
}

const QUERY_KEYS: readonly (keyof RunsQuery)[] = ["session", "user", "tag", "status", "q", "sort"];
const HEX = /^[0-9a-f]+$/;

function decode(part: string | undefined): string | undefined {
  if (part === undefined) return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** The route a fragment names; anything unknown is the runs list. */
export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, "");
  const q = text.indexOf("?");
  const path = (q < 0 ? text : text.slice(0, q)).split("/").filter((p) => p !== "");
  const params = new URLSearchParams(q < 0 ? "" : text.slice(q + 1));
  const [view, first, second] = path;
  if (view === "session") {
    const id = decode(first);
    if (id !== undefined && id !== "") return { view: "session", id };
  }
  if (view === "trace" && first !== undefined && HEX.test(first)) {
    return second !== undefined && HEX.test(second) ? { view: "trace", id: first, span: second } : { view: "trace", id: first };
  }
  if (view === "compare" && first !== undefined && second !== undefined && HEX.test(first) && HEX.test(second))
    return { view: "compare", a: first, b: second };
  const query = emptyQuery();
  for (const key of QUERY_KEYS) query[key] = params.get(key) ?? query[key];
  return { view: "runs", query };
}

/** The fragment of a route (what `parseRoute` reads back to the same route). */
export function routeHash(route: Route): string {
  switch (route.view) {
    case "session":
      return "#/session/" + encodeURIComponent(route.id);
    case "trace":
      return "#/trace/" + route.id + (route.span ? "/" + route.span : "");
    case "compare":
      return "#/compare/" + route.a + "/" + route.b;
    default: {
      const params = new URLSearchParams();
      for (const key of QUERY_KEYS) {
        const value = route.query[key];
        if (value !== "" && !(key === "sort" && value === DEFAULT_SORT)) params.set(key, value);
      }
      const text = params.toString();
      return "#/runs" + (text ? "?" + text : "");
    }
  }
}
