import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TokenCredential } from "@azure/identity";
import type { SecretClientOptions } from "@azure/keyvault-secrets";
import { makeSelfSignedCert } from "./tls.js";

/** A credential that always has a token: the fake accepts any bearer token. */
export const stubCredential: TokenCredential = {
  getToken: async () => ({ token: "t", expiresOnTimestamp: Date.now() + 3600e3 }),
};

/** One request the fake received, in arrival order. */
export interface FakeVaultRequest {
  method: string;
  /** Path without the query string, still percent-encoded as sent. */
  path: string;
  /** Whether it carried `Authorization: Bearer ...`. */
  authorized: boolean;
}

/**
 * A planned misbehaviour for the next `times` requests (default 1; `Infinity` for all), in
 * arrival order: the SDK's first, unauthenticated challenge request counts too.
 */
export interface FakeVaultFault {
  /** Answer with this status instead of serving the request. */
  status?: number;
  /** Body for `status`; defaults to a Key Vault style error JSON. */
  body?: string;
  /** Destroy the socket without answering (a reset connection). */
  reset?: boolean;
  /** Wait this long (ms) before answering, failing or resetting. */
  delayMs?: number;
  times?: number;
}

/** A local HTTPS stand-in for Azure Key Vault, good enough for the real SecretClient. */
export interface FakeKeyVault {
  /** Vault URL to hand to SecretClient, e.g. https://127.0.0.1:PORT. */
  url: string;
  /** PEM of the self-signed certificate: trust it via `tlsOptions: { ca }`. */
  ca: string;
  /**
   * SecretClient options for this fake: trust its certificate, accept its challenge resource,
   * and no SDK retries (so a fault test sees the fault, quickly).
   */
  clientOptions: SecretClientOptions;
  /** Adds a new version of `name`; a disabled version answers 403 like the real vault. */
  setSecret(name: string, value: string, options?: { enabled?: boolean }): void;
  deleteSecret(name: string): void;
  readonly requests: readonly FakeVaultRequest[];
  /** How many authorized GETs of `name` arrived (any version, faults included). */
  reads(name: string): number;
  inject(fault: FakeVaultFault): void;
  close(): Promise<void>;
}

interface SecretVersion {
  version: string;
  value: string;
  enabled: boolean;
  /** Unix seconds, as Key Vault reports them. */
  created: number;
}

// Any tenant works: the SDK only needs a well-formed challenge to ask its credential for a token.
const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CHALLENGE = `Bearer authorization="https://login.microsoftonline.com/${TENANT}", resource="https://vault.azure.net"`;

/**
 * Starts the fake on 127.0.0.1 and a free port. Behaviour follows what the real SecretClient
 * needs (see AZURE-NOTES): 401 challenge without a token, `GET /secrets/<name>/[<version>]`
 * with one, 404 `SecretNotFound` for unknown names.
 */
export async function startFakeKeyVault(
  init: { secrets?: Record<string, string> } = {},
): Promise<FakeKeyVault> {
  const { key, cert } = await makeSelfSignedCert();
  const secrets = new Map<string, SecretVersion[]>();
  const requests: FakeVaultRequest[] = [];
  const faults: Array<FakeVaultFault & { left: number }> = [];
  let url = "";

  const setSecret = (name: string, value: string, options: { enabled?: boolean } = {}): void => {
    const versions = secrets.get(name) ?? [];
    versions.push({
      version: randomBytes(16).toString("hex"),
      value,
      enabled: options.enabled ?? true,
      created: Math.floor(Date.now() / 1000),
    });
    secrets.set(name, versions);
  };

  const serve = (req: IncomingMessage, res: ServerResponse, authorized: boolean): void => {
    if (!authorized) {
      send(
        res,
        401,
        {
          error: {
            code: "Unauthorized",
            message: "AKV10000: Request is missing a Bearer or PoP token.",
          },
        },
        {
          "www-authenticate": CHALLENGE,
        },
      );
      return;
    }
    const [, collection, rawName, rawVersion] = new URL(
      req.url ?? "/",
      "https://fake",
    ).pathname.split("/");
    if (req.method !== "GET" || collection !== "secrets" || !rawName) {
      send(res, 405, {
        error: { code: "BadParameter", message: "The fake vault only serves GET /secrets/<name>." },
      });
      return;
    }
    const name = decodeURIComponent(rawName);
    const versions = secrets.get(name) ?? [];
    const found = rawVersion ? versions.find((v) => v.version === rawVersion) : versions.at(-1);
    if (!found) {
      send(res, 404, {
        error: {
          code: "SecretNotFound",
          message: `A secret with (name/id) ${name} was not found in this key vault.`,
        },
      });
      return;
    }
    if (!found.enabled) {
      send(res, 403, {
        error: {
          code: "Forbidden",
          message: "Operation get is not allowed on a disabled secret.",
          innererror: { code: "SecretDisabled" },
        },
      });
      return;
    }
    send(res, 200, {
      value: found.value,
      id: `${url}/secrets/${encodeURIComponent(name)}/${found.version}`,
      attributes: {
        enabled: true,
        created: found.created,
        updated: found.created,
        recoveryLevel: "Recoverable+Purgeable",
      },
    });
  };

  const server = createServer({ key, cert }, (req, res) => {
    req.resume();
    const authorized = /^Bearer\s+\S/i.test(req.headers.authorization ?? "");
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    requests.push({ method: req.method ?? "GET", path, authorized });

    const fault = faults.find((f) => f.left > 0);
    if (fault) fault.left -= 1;
    const act = (): void => {
      if (fault?.reset) {
        req.socket.destroy();
      } else if (fault?.status !== undefined) {
        res.writeHead(fault.status, { "content-type": "application/json" });
        res.end(
          fault.body ??
            JSON.stringify({ error: { code: "InternalError", message: "Injected fault." } }),
        );
      } else {
        serve(req, res, authorized);
      }
    };
    if (fault?.delayMs) setTimeout(act, fault.delayMs);
    else act();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  for (const [name, value] of Object.entries(init.secrets ?? {})) setSecret(name, value);

  return {
    url,
    ca: cert,
    clientOptions: {
      disableChallengeResourceVerification: true,
      tlsOptions: { ca: cert },
      retryOptions: { maxRetries: 0 },
    },
    setSecret,
    deleteSecret: (name) => {
      secrets.delete(name);
    },
    requests,
    reads: (name) => {
      const prefix = `/secrets/${encodeURIComponent(name)}`;
      return requests.filter(
        (r) =>
          r.authorized &&
          r.method === "GET" &&
          (r.path === prefix || r.path.startsWith(`${prefix}/`)),
      ).length;
    },
    inject: (fault) => {
      faults.push({ ...fault, left: fault.times ?? 1 });
    },
    close: () =>
      new Promise<void>((resolve) => {
        // The SDK keeps connections alive: drop them, or close() waits for their idle timeout.
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}
