// Preloaded with `node --import` to run a script as on Cloudflare Workers, whose
// AsyncLocalStorage.enterWith throws "not implemented": only run() enters a context.
import { AsyncLocalStorage } from "node:async_hooks";

AsyncLocalStorage.prototype.enterWith = function enterWith() {
  throw new Error("asyncLocalStorage.enterWith() is not implemented");
};
