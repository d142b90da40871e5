import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";

/**
 * A small ACME directory with RFC 9773's renewalInfo endpoint, for tests and the sandbox
 * (ARI): the directory names `renewalInfo`; GET {renewalInfo}/{certID} answers
 * the window a test set for that CertID, with a Retry-After; a test can move the window (into
 * the past: "renew now"), change Retry-After, and stage faults. Nothing else of ACME is served.
 */

/** A suggested window as the sim serves it. */
export interface AcmeWindow {
  readonly start: Date;
  readonly end: Date;
  readonly explanationUrl?: string | undefined;
}

/**
 * - `500`: an ACME problem document with status 500 (`urn:ietf:params:acme:error:serverInternal`).
 * - `hang`: the request is read and never answered (close() drops it).
 * - `malformed`: 200 with a body that is not renewalInfo.
 * - `huge`: 200 with a body of 1 MiB.
 */
export type AcmeFault = 500 | "hang" | "malformed" | "huge";
export type AcmeFaultTarget = "directory" | "renewalInfo";

export interface AcmeOptions {
  /** PEM key and certificate of the listener (the client must trust the certificate). */
  readonly key: string;
  readonly cert: string;
  /** Port on 127.0.0.1 (default 0: any free one). */
  readonly port?: number | undefined;
  /** The sim's clock, for renewNow (default the wall clock). */
  readonly now?: (() => Date) | undefined;
  /**
   * The window of a CertID no test set; default none (404, as a CA answers for a certificate
   * it did not issue).
   */
  readonly defaultWindow?: ((certId: string) => AcmeWindow | undefined) | undefined;
}

export interface AcmeRequest {
  readonly method: string;
  readonly path: string;
}

export interface AcmeSimulator {
  /** `https://127.0.0.1:PORT/directory`: the value for CERTSCHED_ARI_DIRECTORIES. */
  readonly directoryUrl: string;
  /** `https://127.0.0.1:PORT/renewal-info`, as the directory names it. */
  readonly renewalInfoUrl: string;
  setWindow(certId: string, window: AcmeWindow | undefined): void;
  /** A window wholly in the past (yesterday), with an explanation: renew now. */
  renewNow(certId: string, explanationUrl?: string): void;
  /** The Retry-After sent with renewalInfo answers (default "21600"); undefined: none. */
  setRetryAfter(value: string | undefined): void;
  setFault(target: AcmeFaultTarget, fault: AcmeFault | undefined): void;
  clearFaults(): void;
  /** Every request, in arrival order (the live array). */
  readonly requests: AcmeRequest[];
  /** Stops listening and drops open connections (hanging ones included). */
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;
const PROBLEM = "application/problem+json";

export async function startAcme(options: AcmeOptions): Promise<AcmeSimulator> {
  const now = options.now ?? (() => new Date());
  const windows = new Map<string, AcmeWindow>();
  const faults = new Map<AcmeFaultTarget, AcmeFault>();
  const requests: AcmeRequest[] = [];
  let retryAfter: string | undefined = "21600";
  let base = "";

  const send = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, {
      "content-type": status >= 400 ? PROBLEM : "application/json",
      "cache-control": "public, max-age=0, no-cache",
      ...headers,
    });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };

  /** True when a fault answered (or swallowed) the request. */
  const faulted = (res: ServerResponse, target: AcmeFaultTarget): boolean => {
    const fault = faults.get(target);
    if (fault === undefined) return false;
    if (fault === "hang") return true;
    if (fault === 500) {
      send(res, 500, {
        type: "urn:ietf:params:acme:error:serverInternal",
        detail: "The simulator's CA is having a bad day",
        status: 500,
      });
    } else if (fault === "malformed") {
      send(res, 200, { suggestedWindow: { start: "soon", end: "later" } });
    } else {
      send(res, 200, `{"pad":"${"x".repeat(1024 * 1024)}"}`);
    }
    return true;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    requests.push({ method: req.method ?? "", path });
    if (req.method !== "GET") {
      send(
        res,
        405,
        { type: "urn:ietf:params:acme:error:malformed", detail: "GET only", status: 405 },
        { allow: "GET" },
      );
      return;
    }
    if (path === "/directory") {
      if (faulted(res, "directory")) return;
      send(res, 200, {
        newNonce: `${base}/acme/new-nonce`,
        newAccount: `${base}/acme/new-acct`,
        newOrder: `${base}/acme/new-order`,
        revokeCert: `${base}/acme/revoke-cert`,
        keyChange: `${base}/acme/key-change`,
        renewalInfo: `${base}/renewal-info`,
        meta: { termsOfService: `${base}/terms`, website: "https://certsched.invalid/sim" },
      });
      return;
    }
    const match = /^\/renewal-info\/([^/]+)$/.exec(path);
    if (!match) {
      send(res, 404, {
        type: "urn:ietf:params:acme:error:malformed",
        detail: "Not found",
        status: 404,
      });
      return;
    }
    if (faulted(res, "renewalInfo")) return;
    const certId = decodeURIComponent(match[1] ?? "");
    const window = windows.get(certId) ?? options.defaultWindow?.(certId);
    if (!window) {
      send(res, 404, {
        type: "urn:ietf:params:acme:error:malformed",
        detail: `Certificate ${certId} not found`,
        status: 404,
      });
      return;
    }
    send(
      res,
      200,
      {
        suggestedWindow: { start: window.start.toISOString(), end: window.end.toISOString() },
        ...(window.explanationUrl ? { explanationURL: window.explanationUrl } : {}),
      },
      retryAfter === undefined ? {} : { "retry-after": retryAfter },
    );
  };

  const server = createServer({ key: options.key, cert: options.cert }, (req, res) => {
    req.resume();
    req.on("end", () => handle(req, res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    directoryUrl: `${base}/directory`,
    renewalInfoUrl: `${base}/renewal-info`,
    setWindow: (certId, window) => {
      if (window === undefined) windows.delete(certId);
      else windows.set(certId, window);
    },
    renewNow: (certId, explanationUrl = `${base}/incident`) => {
      const t = now().getTime();
      windows.set(certId, {
        start: new Date(t - 2 * DAY_MS),
        end: new Date(t - DAY_MS),
        explanationUrl,
      });
    },
    setRetryAfter: (value) => {
      retryAfter = value;
    },
    setFault: (target, fault) => {
      if (fault === undefined) faults.delete(target);
      else faults.set(target, fault);
    },
    clearFaults: () => faults.clear(),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
