import type { TokenSource } from "../../core/ports/tokens.js";
import { TokenError } from "../../lib/errors.js";
import { LoadOnce } from "../../lib/loadOnce.js";
import { registerToken } from "../../lib/redact/redact.js";

/** The part of @azure/identity's TokenCredential we use. */
export interface CredentialLike {
  getToken(
    scopes: string,
    options?: { abortSignal?: AbortSignal },
  ): Promise<{ token: string; expiresOnTimestamp: number } | null>;
}

/**
 * A v1 resource id as a v2 scope: `<resource>/.default`, kept exactly. The management resource
 * ends in "/", so its scope is `https://management.core.windows.net//.default`: the identity
 * platform takes the audience from everything before the last "/", and that gives the same
 * audience (with its slash) as the spec's client-credentials flow.
 */
export function scopeFor(resource: string): string {
  return `${resource}/.default`;
}

/**
 * Cloud tokens from the app's own identity (CERTSCHED_CLOUD_CREDENTIAL=managed-identity), for
 * customers who grant it access instead of handing certsched a client secret. @azure/identity is
 * imported on first use, keeping it off the cold-start path.
 */
export function managedIdentitySource(
  credential?: CredentialLike,
  options: {
    /** Longest wait for one token, in ms (CERTSCHED_HTTP_TIMEOUT); unset: no limit. */
    timeoutMs?: number | undefined;
    /** A user-assigned identity's client id (an account's own); unset: the app's default. */
    clientId?: string | undefined;
  } = {},
): TokenSource {
  const resolved = new LoadOnce(
    async (): Promise<CredentialLike> =>
      credential ??
      new (await import("@azure/identity")).DefaultAzureCredential(
        options.clientId ? { managedIdentityClientId: options.clientId } : {},
      ),
  );
  return {
    kind: "managed-identity",
    async getToken(resource) {
      const identity = resolved.get();
      let result: Awaited<ReturnType<CredentialLike["getToken"]>>;
      try {
        result = await withTimeout(
          (signal) => identity.then((c) => c.getToken(scopeFor(resource), { abortSignal: signal })),
          options.timeoutMs,
        );
      } catch (error) {
        throw new TokenError(
          "TOKEN_UNAVAILABLE",
          `Managed identity could not get a token for ${resource}: ${
            error instanceof Error ? error.message.split("\n")[0] : String(error)
          }`,
          { resource, cause: error },
        );
      }
      if (!result) {
        throw new TokenError(
          "TOKEN_UNAVAILABLE",
          `Managed identity returned no token for ${resource}`,
          {
            resource,
          },
        );
      }
      registerToken(result.token);
      return { token: result.token, expiresOnMs: result.expiresOnTimestamp };
    },
  };
}

/**
 * Runs `call` with a signal that aborts after `timeoutMs`, and gives up then even if the
 * credential ignores the signal: a token endpoint that never answers must not hang a sweep.
 */
async function withTimeout<T>(
  call: (signal: AbortSignal | undefined) => Promise<T>,
  timeoutMs: number | undefined,
): Promise<T> {
  if (timeoutMs === undefined) return call(undefined);
  const signal = AbortSignal.timeout(timeoutMs);
  let stopWatching = () => {};
  const timedOut = new Promise<never>((_, reject) => {
    const onAbort = () =>
      reject(new Error("no answer within the timeout (CERTSCHED_HTTP_TIMEOUT)"));
    signal.addEventListener("abort", onAbort, { once: true });
    stopWatching = () => signal.removeEventListener("abort", onAbort);
  });
  try {
    return await Promise.race([call(signal), timedOut]);
  } finally {
    stopWatching();
  }
}
