import { formatDuration } from "../../viewer/client-logic.js";
import type { El } from "../../viewer/client/browser.js";
import { h } from "../../viewer/client/dom.js";
import { evaluationBadges } from "../../viewer/client/evaluations.js";
import type { RunSummary } from "../model.js";
import { formatCost, formatCount, formatTime } from "./format.js";
import { routeHash } from "./routes.js";

/** Pieces of a run every view draws the same way; data is always text, links are built from ids, never taken from data. */

/** The run's status as a word: ok, error, suspended or running. */
export function statusWord(run: RunSummary): El {
  return h("span", { class: "run-status", "data-status": run.status }, run.status);
}

export function traceLink(run: RunSummary, text: string): El {
  return h("a", { href: routeHash({ view: "trace", id: run.id }), class: "run-name", title: text }, text);
}

export function sessionLink(sessionId: string | undefined): El | null {
  if (sessionId === undefined) return null;
  return h("a", { href: routeHash({ view: "session", id: sessionId }), class: "session-link", "data-session-link": sessionId }, sessionId);
}

export function tagChips(tags: readonly string[]): El[] {
  return tags.map((t) => h("span", { class: "tag", "data-tag": t }, t));
}

export function durationText(run: RunSummary): string {
  return run.end === null ? "running" : formatDuration(run.end - run.start);
}

export function runEvaluations(run: RunSummary): El[] {
  return evaluationBadges(run.evaluations);
}

/** The run's facts as a definition list (trace and comparison headers). */
export function runFacts(run: RunSummary): El {
  const dl = h("dl", { class: "facts run-facts" });
  const fact = (k: string, ...v: unknown[]) => {
    if (v.every((x) => x === undefined || x === null || x === "")) return;
    dl.append(h("dt", null, k), h("dd", null, ...v));
  };
  fact("status", statusWord(run));
  fact("session", sessionLink(run.sessionId));
  fact("user", run.userId);
  if (run.tags.length > 0) fact("tags", ...tagChips(run.tags));
  fact("started", formatTime(run.start));
  fact("duration", durationText(run));
  fact("calls", formatCount(run.llmCalls) + " LLM · " + formatCount(run.toolCalls) + " tool · " + formatCount(run.spans) + " spans");
  fact("tokens", formatCount(run.tokens));
  fact("cost", formatCost(run.costUsd));
  if (run.models.length > 0) fact("models", run.models.join(", "));
  if (run.evaluations.length > 0) fact("evaluations", ...runEvaluations(run));
  fact("trace id", run.id);
  return dl;
}
