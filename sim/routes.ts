import type { SimOperation } from "./operation.js";

/** A matched route: the operation and its one path parameter (subscription, id or tenant). */
export interface RouteMatch {
  operation: SimOperation;
  pathValue: string;
}

const PARAM = Symbol("param");
type Pattern = readonly (string | typeof PARAM)[];

const V3 = ["prod", "v3", "ssl", "certificate", "subscription", PARAM, "schedule"] as const;
const PUBLIC = ["public", "v1", "subscription", PARAM, "public", "certificate"] as const;

const ROUTES: readonly { operation: SimOperation; pattern: Pattern }[] = [
  { operation: "create", pattern: [...V3, "create"] },
  { operation: "renew", pattern: [...V3, "renew"] },
  { operation: "list", pattern: [...PUBLIC, "renew", "getlist"] },
  { operation: "publicRenew", pattern: [...PUBLIC, "renew"] },
  { operation: "test", pattern: [...PUBLIC, "test"] },
  { operation: "token", pattern: ["identity", PARAM, "oauth2", "token"] },
];

/**
 * Matches a raw (still percent-encoded) path. Splitting happens before decoding so that an
 * encoded "/" inside a subscription or tenant stays inside its segment and can never reach
 * another route.
 */
export function matchRoute(rawPath: string): RouteMatch | undefined {
  if (!rawPath.startsWith("/")) return undefined;
  const segments = decodeSegments(rawPath.slice(1).split("/"));
  if (!segments) return undefined;
  for (const { operation, pattern } of ROUTES) {
    const pathValue = matchPattern(pattern, segments);
    if (pathValue !== undefined) return { operation, pathValue };
  }
  return undefined;
}

function matchPattern(pattern: Pattern, segments: string[]): string | undefined {
  if (pattern.length !== segments.length) return undefined;
  let value: string | undefined;
  for (const [i, expected] of pattern.entries()) {
    const actual = segments[i] ?? "";
    if (expected === PARAM) value = actual;
    else if (expected !== actual) return undefined;
  }
  return value;
}

function decodeSegments(raw: string[]): string[] | undefined {
  try {
    return raw.map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}
