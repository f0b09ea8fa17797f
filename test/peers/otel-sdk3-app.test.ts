// relaytrace inside an app on OpenTelemetry JS SDK 3, as `npm install @opentelemetry/sdk-node
// @opentelemetry/api` sets one up today (sdk-node 0.301, sdk-trace 3, api 1.10): the packed relaytrace
// is added with a plain `npm install`, and the app's programs (test/peers/apps/otel-sdk3-app.mjs and
// otel-sdk3-app-types.ts) run it. relaytrace's OpenTelemetry dependencies admit the 3.x line, so npm
// hands it the app's packages and the app keeps its one api copy.
//
// Not part of `npm test` (the repository develops on SDK 2): the peer-version matrix
// (test/interop/tools/peer-matrix.sh) installs the app apart, packs relaytrace and runs this file.
import { otelAppSuite } from "../support/otel-app-suite.js";

otelAppSuite({ name: "SDK 3", program: "otel-sdk3-app.mjs", types: "otel-sdk3-app-types.ts" });
