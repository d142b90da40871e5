import type { SimOperation } from "./operation.js";

/**
 * A matched route: the operation, the method it answers, its path parameter (subscription, id
 * or tenant) and, for Get Certificate, the certificate name.
 */
export interface RouteMatch {
  operation: SimOperation;
  method: "GET" | "POST";
  pathValue: string;
  name?: string;
}

const PARAM = Symbol("param");
const NAME = Symbol("name");
type Pattern = readonly (string | typeof PARAM | typeof NAME)[];

const V3 = ["prod", "v3", "ssl", "certificate", "subscription", PARAM, "schedule"] as const;
const PUBLIC = ["public", "v1", "subscription", PARAM, "public", "certificate"] as const;

const ROUTES: readonly { operation: SimOperation; pattern: Pattern; method?: "GET" }[] = [
  { operation: "create", pattern: [...V3, "create"] },
  { operation: "renew", pattern: [...V3, "renew"] },
  { operation: "list", pattern: [...PUBLIC, "renew", "getlist"] },
  { operation: "publicRenew", pattern: [...PUBLIC, "renew"] },
  { operation: "test", pattern: [...PUBLIC, "test"] },
  { operation: "token", pattern: ["identity", PARAM, "oauth2", "token"] },
  // Get Certificate: not shown by the spec; path and method from the vendor's 8.0 client.
  {
    operation: "get",
    pattern: [
      "prod",
      "v3",
      "ssl",
      "certificate",
      "subscription",
      PARAM,
      "get",
      "certificatename",
      NAME,
    ],
    method: "GET",
  },
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
  for (const { operation, pattern, method = "POST" } of ROUTES) {
    const values = matchPattern(pattern, segments);
    if (values?.pathValue !== undefined) {
      const { pathValue, name } = values;
      return { operation, method, pathValue, ...(name === undefined ? {} : { name }) };
    }
  }
  return undefined;
}

function matchPattern(
  pattern: Pattern,
  segments: string[],
): { pathValue?: string; name?: string } | undefined {
  if (pattern.length !== segments.length) return undefined;
  const values: { pathValue?: string; name?: string } = {};
  for (const [i, expected] of pattern.entries()) {
    const actual = segments[i] ?? "";
    if (expected === PARAM) values.pathValue = actual;
    else if (expected === NAME) values.name = actual;
    else if (expected !== actual) return undefined;
  }
  return values;
}

function decodeSegments(raw: string[]): string[] | undefined {
  try {
    return raw.map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}
