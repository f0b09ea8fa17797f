import type { El } from "./browser.js";
import { h } from "./dom.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** An evaluation's result in a few characters: its score, else its label. */
function verdict(e: any): string {
  const parts: string[] = [];
  if (typeof e.score === "number") parts.push(String(e.score));
  if (typeof e.label === "string" && e.label !== "") parts.push(e.label);
  return parts.join(" · ");
}

/** The evaluations a file recorded, reduced to those with a name (the input is not trusted). */
export function evaluationsOf(list: unknown): any[] {
  return Array.isArray(list) ? list.filter((e) => typeof e === "object" && e !== null && typeof e.name === "string" && e.name !== "") : [];
}

/** A waterfall badge per evaluation: `name score`. */
export function evaluationBadges(list: unknown): El[] {
  return evaluationsOf(list).map((e) => {
    const text = verdict(e);
    return h("span", { class: "badge score", "data-evaluation": e.name, title: "evaluation " + e.name }, e.name + (text ? " " + text : ""));
  });
}

/** Scores, labels and explanations, one item per evaluation (as text, never markup). */
export function evaluationsList(list: unknown): El {
  const ul = h("ul", { class: "evaluations" });
  for (const e of evaluationsOf(list)) {
    const text = verdict(e);
    ul.append(
      h(
        "li",
        { "data-evaluation": e.name },
        h("strong", null, e.name),
        text ? h("span", { class: "verdict" }, " " + text) : null,
        typeof e.explanation === "string" && e.explanation !== "" ? h("div", { class: "explanation" }, e.explanation) : null,
      ),
    );
  }
  return ul;
}
