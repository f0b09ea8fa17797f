// Shared by every layer's option checks (events import nothing of ours, so all layers may use it).

function flat(key: string): string {
  return key.replace(/[_-]/g, "").toLowerCase();
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known option a misspelt key most likely meant: the same letters ignoring case, `_` and `-`
 * (`tool_call_id` → `toolCallId`), a prefix (`outputDir` → `outputDirectory`), or a small slip
 * (`sytemPrompt` → `systemPrompt`). Undefined when no known key is plausibly meant.
 */
export function closestKey(key: string, known: Iterable<string>): string | undefined {
  const k = flat(key);
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of known) {
    const c = flat(candidate);
    let score: number;
    if (c === k) score = 0;
    else if (c.startsWith(k) || k.startsWith(c)) score = 1;
    else {
      const distance = editDistance(k, c);
      score = distance <= Math.max(2, Math.floor(c.length / 4)) ? 1 + distance : Infinity;
    }
    if (score < bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return best;
}

/**
 * The one option check of every layer: throws a TypeError on the first key of `options` that
 * is not in `known`, in one message format — `<owner>: unknown option "<key>"<context>`, then
 * the closest known key (`(did you mean "<key>"?)`) or the list of known ones. `prefix` names a
 * nested bag (`agent.`).
 */
export function checkOptionKeys(
  owner: string,
  options: object,
  known: Iterable<string>,
  where: { prefix?: string; context?: string } = {},
): void {
  const allowed = known instanceof Set ? (known as ReadonlySet<string>) : new Set(known);
  for (const key in options) {
    if (!Object.prototype.hasOwnProperty.call(options, key) || allowed.has(key)) continue;
    const prefix = where.prefix ?? "";
    const guess = closestKey(key, allowed);
    const hint =
      guess === undefined ? `; known options: ${[...allowed].map((k) => prefix + k).join(", ")}` : ` (did you mean "${prefix}${guess}"?)`;
    throw new TypeError(`${owner}: unknown option "${prefix}${key}"${where.context ?? ""}${hint}`);
  }
}
