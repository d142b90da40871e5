import type { TokenSource } from "../../core/ports/tokens.js";

/**
 * Times each token request of a source that does not go through our HttpClient (the managed
 * identity's requests are made by @azure/identity). Reported as upstream "token": status 200
 * when a token came back, undefined when none did.
 */
export function timedTokenSource(
  source: TokenSource,
  onCall: (upstream: "token", durationMs: number, status: number | undefined) => void,
): TokenSource {
  return {
    kind: source.kind,
    async getToken(resource) {
      const started = performance.now();
      let status: number | undefined;
      try {
        const token = await source.getToken(resource);
        status = 200;
        return token;
      } finally {
        onCall("token", performance.now() - started, status);
      }
    },
  };
}
