// relaytrace inside an app on OpenTelemetry JS SDK 2, the maintained 2.x line (sdk-node 0.223,
// sdk-trace-base 2.12, api 1.9): the packed relaytrace is added with a plain `npm install`, and the
// app's programs (test/peers/apps/otel-sdk2-app.mjs and otel-sdk2-app-types.ts) run it. relaytrace's
// OpenTelemetry dependencies admit the 2.x line, so npm hands it the app's packages and the app
// keeps its one api copy.
//
// Not part of `npm test`, whose tree is relaytrace's own rather than an app's: the peer-version
// matrix (test/interop/tools/peer-matrix.sh) installs the app apart, packs relaytrace and runs this file.
import { otelAppSuite } from "../support/otel-app-suite.js";

otelAppSuite({ name: "SDK 2", program: "otel-sdk2-app.mjs", types: "otel-sdk2-app-types.ts" });
