import { isJsonObject } from "../events/json.js";

/** A question the loop cannot answer by itself: it parks the tool call until someone answers. */
export interface Request {
  id: string;
  /** Open vocabulary: `authorization`, `approval`, `input`, `question`, `tool_call` (relay). */
  kind: string;
  prompt: string;
  url?: string;
  data?: Record<string, unknown>;
  /** RFC 3339. */
  expiresAt?: string;
}

/** The reply to a `Request`; `id` must echo the request id. */
export interface Answer {
  id: string;
  ok: boolean;
  data?: Record<string, unknown>;
  /** Advisory only. */
  reason?: "declined" | "cancelled" | "expired";
}

/** What every tool execution resolves to. Errors are values (`isError: true`), not throws. */
export interface ToolResult {
  output: string;
  isError: boolean;
  metadata?: Record<string, unknown>;
  /**
   * Opaque metadata for observability, never sent to the model: it becomes the managed tool
   * call's annotation (`category_profile.tool_result_annotation`). Set it by returning
   * `{ result, annotation }` from a tool.
   */
  annotation?: unknown;
  /**
   * What the tool's `execute` threw (or its timeout), on the error result it became: the loop
   * records the managed tool call as failed with it. Never sent to the model; not enumerable on
   * the results `defineTool` makes, so printing, comparing or serializing a result shows only
   * what the model reads.
   */
  error?: unknown;
}

/** A tool result that suspends the call; `metadata.pending` holds the request. */
export type ToolOutcome = ToolResult & { metadata: { pending: Request } };

let sequence = 0;

/** Builds a suspension result; an absent id becomes `pnd-<time36>-<seq>`. */
export function pending(request: Partial<Request> & { kind: string; prompt: string }): ToolOutcome {
  sequence += 1;
  // `id` first: the wire golden's key order.
  const { id, ...rest } = request;
  const req: Request = { id: id ?? `pnd-${Date.now().toString(36)}-${sequence}`, ...rest };
  const output = req.url ? `${req.prompt}\n${req.url}` : req.prompt;
  return { output, isError: true, metadata: { pending: req } };
}

/** A suspension that asks the user to authorize at `url`. */
export function authRequired(url: string, prompt = "Authorization required to continue"): ToolOutcome {
  return pending({ kind: "authorization", prompt, url });
}

/** True when `value` has a Request's shape (string `id`, `kind`, `prompt`), e.g. a request read back from storage. */
export function isRequest(value: unknown): value is Request {
  return (
    isJsonObject(value as never) &&
    typeof (value as Request).id === "string" &&
    typeof (value as Request).kind === "string" &&
    typeof (value as Request).prompt === "string"
  );
}

/** The request carried by a suspension result, or undefined when the result is not one. */
export function pendingOf(result: unknown): Request | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const metadata = (result as { metadata?: unknown }).metadata;
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const req = (metadata as { pending?: unknown }).pending;
  return isRequest(req) ? req : undefined;
}

/** Replaces every character outside `[a-zA-Z0-9_-]` with `_`. */
export function sanitize(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, "_");
}
