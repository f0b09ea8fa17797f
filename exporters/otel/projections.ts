import { FullProjection } from "./full.js";
import { GenAiProjection } from "./gen-ai.js";
import { OpenInferenceProjection } from "./openinference.js";
import type { Projection, ProjectionName } from "./projection.js";

/** The projection implementation for a configured name; unknown names are a configuration error. */
export function createProjection(name: ProjectionName, namespace: string): Projection {
  switch (name) {
    case "full":
      return new FullProjection(namespace);
    case "openinference":
      return new OpenInferenceProjection(namespace);
    case "gen_ai":
      return new GenAiProjection();
    default:
      throw new TypeError(`unknown OTel projection ${JSON.stringify(name)}; expected "full", "openinference" or "gen_ai"`);
  }
}
