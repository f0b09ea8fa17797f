import { browserWindow as window } from "../../viewer/client/browser.js";

/** A JSON answer of the dashboard's own server; an error answer throws its message. */
export async function fetchJson<T>(path: string): Promise<T> {
  const response = await window.fetch(path, { headers: { accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(typeof body?.error === "string" ? body.error : "HTTP " + response.status);
  return body as T;
}
