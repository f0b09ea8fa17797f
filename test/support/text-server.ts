import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/**
 * A real HTTP server on 127.0.0.1 that answers each request with the text `handler` resolves to
 * for its path (500 and the error when it rejects); closed after each test. Call once per file.
 */
export function textServer(): (handler: (path: string) => Promise<string>) => Promise<string> {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });
  return async (handler) => {
    const listening = createServer((req, res) => {
      handler(req.url ?? "/").then(
        (body) => res.end(body),
        (error: unknown) => {
          res.statusCode = 500;
          res.end(String(error));
        },
      );
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  };
}
