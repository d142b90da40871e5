import type * as Full from "undici";
import { LoadOnce } from "../loadOnce.js";

/**
 * The four pieces of undici certsched uses, loaded on their own: `import("undici")` runs its
 * index, which loads fetch, WebSocket, the caches, the mocks and every interceptor (110 files,
 * some 60 ms on a laptop, before the first request can go out); these pieces are about a third
 * of that (the CLI's first request). undici has no "exports" map, so its files are
 * reachable by path; test/shared/lib/http/undiciCore.test.ts holds that each piece is the very
 * object undici's index exports, so an upgrade that moves a file fails there, not in production.
 */
export interface Undici {
  readonly Agent: typeof Full.Agent;
  readonly buildConnector: typeof Full.buildConnector;
  readonly errors: typeof Full.errors;
  /** undici's `request(url, options)`; `options.dispatcher` is required here (no global agent). */
  readonly request: (
    url: string | URL,
    options: Parameters<typeof Full.request>[1] & { readonly dispatcher: Full.Dispatcher },
  ) => ReturnType<typeof Full.request>;
}

/** undici's api/api-request.js: `request.call(dispatcher, { origin, path, method, ... })`. */
type DispatchRequest = (this: Full.Dispatcher, options: object) => ReturnType<typeof Full.request>;

const undici = new LoadOnce(load);

/**
 * undici is loaded on the first call, not at import: it is the largest module on the function
 * app's load path and the CLI's, and neither should pay for it before anything is sent
 * (docs/performance.md).
 */
export function loadUndici(): Promise<Undici> {
  return undici.get();
}

async function load(): Promise<Undici> {
  const [agent, connect, errors, api] = await Promise.all([
    import("undici/lib/dispatcher/agent.js"),
    import("undici/lib/core/connect.js"),
    import("undici/lib/core/errors.js"),
    import("undici/lib/api/api-request.js"),
  ]);
  const dispatch = api.default as DispatchRequest;
  return {
    Agent: agent.default,
    buildConnector: connect.default,
    errors: errors.default,
    // What undici's index wraps around api-request (makeDispatcher): the URL split into origin
    // and path, the call made on the dispatcher given.
    request: (url, options) => {
      const target = typeof url === "string" ? new URL(url) : url;
      return dispatch.call(options.dispatcher, {
        ...options,
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? "GET",
      });
    },
  };
}
