import { isIP } from "node:net";
import { hostname, networkInterfaces } from "node:os";

/** Whether `host` is a loopback address or name. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A host as it appears in a URL or a Host header (an IPv6 address in brackets). */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * The Host header values the server answers to, each `host:port`, lowercase: its loopback names,
 * the address it was bound to and, bound to every interface or a non-loopback address, the
 * machine's addresses and name. A name that only resolves to this machine (a site's DNS rebinding)
 * is not among them.
 */
export function allowedHosts(bound: string, port: number): Set<string> {
  const names = new Set<string>(["127.0.0.1", "localhost", "[::1]", urlHost(bound)]);
  if (!isLoopback(bound)) {
    const machine = hostname().toLowerCase();
    names.add(machine);
    names.add(`${machine}.local`);
    for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) names.add(urlHost(i.address));
  }
  return new Set([...names].map((n) => `${n.toLowerCase()}:${port}`));
}
