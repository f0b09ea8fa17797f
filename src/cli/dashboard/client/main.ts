import { browserDocument as document, browserWindow as window, type El } from "../../viewer/client/browser.js";
import { h } from "../../viewer/client/dom.js";
import { CompareView } from "./compare-view.js";
import { formatCount } from "./format.js";
import { parseRoute, routeHash, type Route } from "./routes.js";
import type { RunStore as Store } from "./run-store.js";
import { RunStore } from "./run-store.js";
import { RunsView } from "./runs-view.js";
import { SessionView } from "./session-view.js";
import { TraceView } from "./trace-view.js";

/** A view other than the runs list, made for its route and dropped when the route changes. */
interface TransientView {
  el: El;
  dispose(): void;
}

/** The header: where the runs come from, how many there are, and whether the index is still reading. */
function header(store: Store): { el: El; update(): void } {
  const dir = h("div", { class: "sources", "data-testid": "dir" });
  const stats = h("div", { class: "stats" });
  const problems = h("ul", { class: "notes", "data-testid": "problems", hidden: true });
  const el = h(
    "div",
    null,
    h(
      "header",
      { class: "top" },
      h("div", { class: "title" }, h("h1", null, h("a", { href: "#/runs", class: "home" }, "relaytrace dashboard")), dir),
      stats,
    ),
    problems,
  );
  const stat = (label: string, value: string, key: string) =>
    h("div", { class: "stat", "data-total": key }, h("span", { class: "stat-value" }, value), h("span", { class: "stat-label" }, label));
  const update = () => {
    const info = store.info;
    if (!info) return;
    dir.textContent = info.dir + (store.offline ? " — the server does not answer" : info.ready ? "" : " — reading…");
    document.title = info.dir + " — relaytrace dashboard";
    stats.replaceChildren(
      stat("runs", formatCount(store.runs.size), "runs"),
      stat("files", formatCount(info.files.length), "files"),
      stat("corrupt lines", formatCount(info.badLines), "bad-lines"),
    );
    problems.replaceChildren(...info.problems.map((p) => h("li", null, p)));
    problems.hidden = info.problems.length === 0;
  };
  return { el, update };
}

/** The page: the header, then one view at a time, the one the URL's fragment names. */
function startDashboard(): void {
  const root = document.getElementById("relaytrace-dashboard");
  const store = new RunStore();
  const head = header(store);
  const main = h("main", { class: "dash-main" });
  root.append(head.el, main);
  const navigate = (route: Route) => {
    window.location.hash = routeHash(route);
  };
  const runs = new RunsView(
    store,
    (query) => window.history.replaceState(null, "", routeHash({ view: "runs", query })),
    (a, b) => navigate({ view: "compare", a, b }),
  );
  let current: TransientView | undefined;
  const show = () => {
    current?.dispose();
    current = undefined;
    const route = parseRoute(window.location.hash);
    root.setAttribute("data-view", route.view);
    if (route.view === "runs") {
      runs.setQuery(route.query);
      main.replaceChildren(runs.el);
      runs.draw();
      return;
    }
    current =
      route.view === "session"
        ? new SessionView(store, route.id)
        : route.view === "trace"
          ? new TraceView(store, route.id, route.span)
          : new CompareView(route.a, route.b);
    main.replaceChildren(current.el);
  };
  let first = true;
  store.onChange(() => {
    head.update();
    if (parseRoute(window.location.hash).view === "runs") runs.refresh();
    if (first && store.info) {
      first = false;
      root.setAttribute("data-ready", "true");
    }
    if (store.info?.ready) root.setAttribute("data-index-ready", "true");
  });
  window.addEventListener("hashchange", show);
  show();
  store.start();
}

startDashboard();
