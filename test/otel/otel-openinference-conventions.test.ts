import * as published from "@arizeai/openinference-semantic-conventions";
import { describe, expect, it } from "vitest";
import { MimeType, OpenInferenceSpanKind, SemanticConventions } from "../../exporters/otel/openinference-conventions.js";

// The openinference projection writes OpenInference's names from its own table; Phoenix and other
// OpenInference readers know them by the published package's values. Drift shows here (the
// package stays a devDependency for this).

describe("the openinference projection's attribute names are OpenInference's", () => {
  it("every attribute name equals the published SemanticConventions value of the same key", () => {
    for (const [key, value] of Object.entries(SemanticConventions)) {
      expect({ key, value }).toEqual({ key, value: (published.SemanticConventions as Record<string, string>)[key] });
    }
  });

  it("every span kind equals the published OpenInferenceSpanKind, and none is missing", () => {
    expect(OpenInferenceSpanKind).toEqual({ ...published.OpenInferenceSpanKind });
  });

  it("the MIME types written equal the published MimeType values", () => {
    for (const [key, value] of Object.entries(MimeType)) {
      expect({ key, value }).toEqual({ key, value: (published.MimeType as Record<string, string>)[key] });
    }
  });
});
