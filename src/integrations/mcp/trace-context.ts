import { currentScopeContext } from "../../events/scope-stack.js";
import { traceparentFrom } from "../../runtime/propagation.js";

type Params = { _meta?: Record<string, unknown> } & Record<string, unknown>;

/**
 * The request's params with the W3C trace context of the current scope in `_meta.traceparent`,
 * where MCP carries it, so a traced server continues the same trace. Outside any scope there is
 * nothing to continue and the params go as they are.
 */
export function withTraceparent<P extends Params>(params: P): P {
  let traceparent: string;
  try {
    traceparent = traceparentFrom(currentScopeContext());
  } catch {
    return params;
  }
  return { ...params, _meta: { ...(params._meta ?? {}), traceparent } };
}
