import { FullProjection } from "./full.js";
import { GenAiProjection } from "./gen-ai.js";
import { OpenInferenceProjection } from "./openinference.js";
import type { Projection, ProjectionName } from "./projection.js";
import type { GenAiConventions } from "./env.js";
import type { GenAiEventSink } from "./gen-ai-events.js";

/**
 * The projection implementation for a configured name; unknown names are a configuration error.
 * `conventions` and `events` (where its GenAI events go) concern `gen_ai` only.
 */
export function createProjection(
  name: ProjectionName,
  namespace: string,
  conventions: GenAiConventions = "1.41",
  events?: GenAiEventSink,
): Projection {
  switch (name) {
    case "full":
      return new FullProjection(namespace);
    case "openinference":
      return new OpenInferenceProjection(namespace);
    case "gen_ai":
      return new GenAiProjection(conventions, events);
    default:
      throw new TypeError(`unknown OTel projection ${JSON.stringify(name)}; expected "full", "openinference" or "gen_ai"`);
  }
}
