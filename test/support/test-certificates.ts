// A throwaway certificate authority, a server certificate for 127.0.0.1 and a client certificate,
// made with the openssl command line into a directory, for tests of OTLP over TLS. Made per run
// (valid for a day) so that no key is kept in the repository.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface TestCertificates {
  /** Paths of the PEM files. */
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The common name in the client certificate. */
  clientName: string;
  read(path: string): string;
}

/** Whether the openssl command line is there to make them. */
export function canMakeCertificates(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
}

/** A key pair and a certificate for `name` signed by the CA in `dir`, with the given extensions. */
function signed(dir: string, file: string, name: string, extensions: string): void {
  writeFileSync(join(dir, `${file}.ext`), extensions);
  openssl(dir, [
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    `${file}.key`,
    "-out",
    `${file}.csr`,
    "-subj",
    `/CN=${name}`,
  ]);
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${file}.csr`,
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "1",
    "-out",
    `${file}.crt`,
    "-extfile",
    `${file}.ext`,
  ]);
}

export function makeCertificates(dir: string): TestCertificates {
  openssl(dir, [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "1",
    "-subj",
    "/CN=relaytrace test CA",
  ]);
  signed(dir, "server", "127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  const clientName = "relaytrace test client";
  signed(dir, "client", clientName, "extendedKeyUsage=clientAuth\n");
  return {
    caCert: join(dir, "ca.crt"),
    serverCert: join(dir, "server.crt"),
    serverKey: join(dir, "server.key"),
    clientCert: join(dir, "client.crt"),
    clientKey: join(dir, "client.key"),
    clientName,
    read: (path) => readFileSync(path, "utf8"),
  };
}
