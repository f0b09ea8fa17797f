import { VIEWER_CSS } from "../viewer/styles.js";
import { dashboardClientScript } from "./client-bundle.js";
import { DASHBOARD_CSS } from "./styles.js";

/** The page's script and stylesheet, served from the dashboard's own origin. */
export const DASHBOARD_SCRIPT = dashboardClientScript();
export const DASHBOARD_STYLES = VIEWER_CSS + DASHBOARD_CSS;

/**
 * Nothing but this server: scripts, styles and requests from its own origin only, no frames, no
 * forms, no base; the page never embeds data in its markup (it asks the server for JSON).
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page: an empty root the script fills. */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="relaytrace serve">
<title>relaytrace dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard.css">
</head>
<body>
<div id="relaytrace-dashboard"></div>
<script src="/dashboard.js"></script>
</body>
</html>
`;
