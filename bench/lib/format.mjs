// Plain-text tables for the console and BENCHMARKS.md (GitHub-flavoured markdown).

export function table(headers, rows) {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (r) => "| " + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ") + " |";
  const sep = "|" + widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|";
  return [line(headers), sep, ...cells.map(line)].join("\n");
}

export const ns = (v) => (Number.isFinite(v) ? `${Math.round(v).toLocaleString("en-US")}` : "n/a");
export const us = (v) => (Number.isFinite(v) ? (v / 1000).toFixed(2) : "n/a");
export const ratio = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "n/a");
export const pct = (v) => (Number.isFinite(v) ? `${v >= 0 ? "+" : ""}${v.toFixed(2)} %` : "n/a");
export const mib = (bytes) => (Number.isFinite(bytes) ? (bytes / 1048576).toFixed(1) : "n/a");
export const verdict = (ok) => (ok === undefined ? "—" : ok ? "met" : "NOT met");
