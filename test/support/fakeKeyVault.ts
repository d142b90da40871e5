import { randomBytes, X509Certificate } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TokenCredential } from "@azure/identity";
import type { CertificateClientOptions } from "@azure/keyvault-certificates";
import type { SecretClientOptions } from "@azure/keyvault-secrets";
import {
  certificateBundle,
  certificateNotFound,
  sendJson as send,
  unauthorizedBody,
  vaultChallenge,
} from "../../sim/hosting/vaultProtocol.js";
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
  /** Headers for `status`, over the default `content-type: application/json` (a Location...). */
  headers?: Record<string, string>;
  /** Destroy the socket without answering (a reset connection). */
  reset?: boolean;
  /** Wait this long (ms) before answering, failing or resetting. */
  delayMs?: number;
  /** Never answer: the request waits until the client gives up or the fake closes. */
  hang?: boolean;
  /**
   * Only requests carrying a token count (the SDK's unauthenticated challenge request passes
   * untouched): how a vault that knows the caller but refuses it (403) behaves.
   */
  authorizedOnly?: boolean;
  times?: number;
}

/** What the vault holds for one certificate version, as the test installed it. */
export interface FakeCertificateVersion {
  version: string;
  /** The DER certificate (the vault's `cer`). */
  der: Buffer;
  /** Unix seconds, as Key Vault reports them. */
  created: number;
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
  /**
   * CertificateClient options for this fake: trust its certificate and accept its challenge
   * resource. No retry options: the code under test keeps its own.
   */
  certificateClientOptions: CertificateClientOptions;
  /** Adds a new version of `name`; a disabled version answers 403 like the real vault. */
  setSecret(name: string, value: string, options?: { enabled?: boolean }): void;
  deleteSecret(name: string): void;
  /**
   * Installs a new version of certificate `name` (PEM or DER); the latest version is the
   * current one, as `GET /certificates/<name>/` answers it. Returns the version id.
   */
  setCertificate(name: string, certificate: string | Uint8Array): string;
  deleteCertificate(name: string): void;
  /** Every version of `name`, oldest first. */
  certificateVersions(name: string): readonly FakeCertificateVersion[];
  /** Requests carrying this token answer 401 with a challenge, as the vault does for an expired token. */
  refuseToken(token: string): void;
  readonly requests: readonly FakeVaultRequest[];
  /**
   * The bearer token each request carried, by the index of `requests` (kept apart so tests that
   * compare `requests` whole need not know tokens).
   */
  readonly bearers: readonly (string | undefined)[];
  /** How many authorized GETs of `name` arrived (any version, faults included). */
  reads(name: string): number;
  /** The same, for certificate `name`. */
  certificateReads(name: string): number;
  /** Every distinct bearer token the vault received, in order of first arrival. */
  tokensSeen(): string[];
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

/** The DER bytes of a PEM or DER certificate. */
function toDer(certificate: string | Uint8Array): Buffer {
  return new X509Certificate(
    typeof certificate === "string" ? certificate : Buffer.from(certificate),
  ).raw;
}

/**
 * Starts the fake on 127.0.0.1 and a free port. Behaviour follows what the real SecretClient
 * and CertificateClient need (checked against them here): 401 challenge without a token,
 * `GET /secrets/<name>/[<version>]` and `GET /certificates/<name>/[<version>]` with one, 404
 * `SecretNotFound` / `CertificateNotFound` for unknown names. `challengeResource` is the
 * resource its challenge names (default https://vault.azure.net): a test sets another to play a
 * vault that asks for a token it must not get.
 */
export async function startFakeKeyVault(
  init: {
    secrets?: Record<string, string>;
    certificates?: Record<string, string | Uint8Array>;
    challengeResource?: string;
  } = {},
): Promise<FakeKeyVault> {
  const { key, cert } = await makeSelfSignedCert();
  const secrets = new Map<string, SecretVersion[]>();
  const certificates = new Map<string, FakeCertificateVersion[]>();
  const refused = new Set<string>();
  const CHALLENGE = vaultChallenge(init.challengeResource ?? "https://vault.azure.net");
  const requests: FakeVaultRequest[] = [];
  const bearers: (string | undefined)[] = [];
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

  const setCertificate = (name: string, certificate: string | Uint8Array): string => {
    const versions = certificates.get(name) ?? [];
    const version = randomBytes(16).toString("hex");
    versions.push({ version, der: toDer(certificate), created: Math.floor(Date.now() / 1000) });
    certificates.set(name, versions);
    return version;
  };

  const serveCertificate = (
    res: ServerResponse,
    rawName: string,
    rawVersion: string | undefined,
  ) => {
    const name = decodeURIComponent(rawName);
    const versions = certificates.get(name) ?? [];
    const found = rawVersion ? versions.find((v) => v.version === rawVersion) : versions.at(-1);
    if (!found) {
      send(res, 404, certificateNotFound(name));
      return;
    }
    send(res, 200, certificateBundle(url, name, found));
  };

  const serve = (
    req: IncomingMessage,
    res: ServerResponse,
    authorized: boolean,
    bearer: string | undefined,
  ): void => {
    if (!authorized || (bearer !== undefined && refused.has(bearer))) {
      send(res, 401, unauthorizedBody(authorized), { "www-authenticate": CHALLENGE });
      return;
    }
    const [, collection, rawName, rawVersion] = new URL(
      req.url ?? "/",
      "https://fake",
    ).pathname.split("/");
    if (req.method === "GET" && collection === "certificates" && rawName) {
      serveCertificate(res, rawName, rawVersion || undefined);
      return;
    }
    if (req.method !== "GET" || collection !== "secrets" || !rawName) {
      send(res, 405, {
        error: {
          code: "BadParameter",
          message: "The fake vault only serves GET /secrets/<name> and GET /certificates/<name>.",
        },
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
    const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? "")?.[1];
    const authorized = bearer !== undefined;
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    requests.push({ method: req.method ?? "GET", path, authorized });
    bearers.push(bearer);

    const fault = faults.find((f) => f.left > 0 && (authorized || !f.authorizedOnly));
    if (fault) fault.left -= 1;
    const act = (): void => {
      if (fault?.hang) {
        // Nothing is sent; close() drops the connection.
      } else if (fault?.reset) {
        req.socket.destroy();
      } else if (fault?.status !== undefined) {
        res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers });
        res.end(
          fault.body ??
            JSON.stringify({ error: { code: "InternalError", message: "Injected fault." } }),
        );
      } else {
        serve(req, res, authorized, bearer);
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
  for (const [name, value] of Object.entries(init.certificates ?? {})) setCertificate(name, value);

  const authorizedReads = (collection: string, name: string) => {
    const prefix = `/${collection}/${encodeURIComponent(name)}`;
    return requests.filter(
      (r) =>
        r.authorized &&
        r.method === "GET" &&
        (r.path === prefix || r.path.startsWith(`${prefix}/`)),
    ).length;
  };

  return {
    url,
    ca: cert,
    clientOptions: {
      disableChallengeResourceVerification: true,
      tlsOptions: { ca: cert },
      retryOptions: { maxRetries: 0 },
    },
    certificateClientOptions: {
      disableChallengeResourceVerification: true,
      tlsOptions: { ca: cert },
    },
    setSecret,
    deleteSecret: (name) => {
      secrets.delete(name);
    },
    setCertificate,
    deleteCertificate: (name) => {
      certificates.delete(name);
    },
    certificateVersions: (name) => certificates.get(name) ?? [],
    refuseToken: (token) => {
      refused.add(token);
    },
    requests,
    reads: (name) => authorizedReads("secrets", name),
    certificateReads: (name) => authorizedReads("certificates", name),
    bearers,
    tokensSeen: () => [...new Set(bearers.flatMap((b) => (b === undefined ? [] : [b])))],
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
