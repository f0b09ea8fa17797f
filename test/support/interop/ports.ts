import { createServer } from "node:net";

/**
 * A loopback TCP port that was free a moment ago. The programs under test (Jaeger, the
 * collector, Phoenix) take ports from their configuration, not port 0, so the OS picks one
 * here and the program binds it right after.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
