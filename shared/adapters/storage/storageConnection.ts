/**
 * The endpoints an Azure Storage connection string (AzureWebJobsStorage) leads to, read the way
 * the Storage SDKs read it: `Key=Value` pairs separated by `;`, keys case-insensitive, a value
 * may contain `=` (account keys end in `==`). Pure: no URL is reached here. Values are never put
 * in a problem's text: the string carries the account key.
 */

/** Services whose endpoint is derived from the account when not given explicitly. */
const DERIVED_SERVICES = ["blob", "queue", "table"] as const;

/** Azurite's well-known ports, as UseDevelopmentStorage=true means them. */
const DEVELOPMENT_PORTS: Readonly<Record<(typeof DERIVED_SERVICES)[number], number>> = {
  blob: 10000,
  queue: 10001,
  table: 10002,
};

export interface StorageEndpoint {
  /** Where it comes from, as a person would look for it: "TableEndpoint", "blob (derived)". */
  readonly source: string;
  /** The endpoint, or undefined when its text is not an absolute URL. */
  readonly url: URL | undefined;
}

export interface StorageConnection {
  /** Every endpoint the string names or implies, explicit ones first. */
  readonly endpoints: readonly StorageEndpoint[];
  /** The endpoint the ledger's TableClient will reach, when the string leads to one. */
  readonly table: URL | undefined;
  /** Problems with the string's shape (not with its endpoints' schemes). */
  readonly problems: readonly string[];
}

function url(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Lower-cased keys to values; the first occurrence wins, as in the SDKs. */
function pairs(connectionString: string): { values: Map<string, string>; malformed: number } {
  const values = new Map<string, string>();
  let malformed = 0;
  for (const element of connectionString.split(";")) {
    const part = element.trim();
    if (part === "") continue;
    const at = part.indexOf("=");
    if (at <= 0) {
      malformed += 1;
      continue;
    }
    const key = part.slice(0, at).trim().toLowerCase();
    if (!values.has(key)) values.set(key, part.slice(at + 1).trim());
  }
  return { values, malformed };
}

/** Reads a storage connection string into the endpoints it leads to. */
export function storageConnection(connectionString: string): StorageConnection {
  const { values, malformed } = pairs(connectionString);
  const problems: string[] = [];
  if (malformed > 0 || values.size === 0) {
    problems.push("must be a storage connection string (Key=Value pairs separated by ;)");
  }
  const endpoints: StorageEndpoint[] = [];
  const explicit = new Map<string, URL | undefined>();
  for (const [key, value] of values) {
    // EndpointSuffix is a domain, not an endpoint.
    if (!key.endsWith("endpoint")) continue;
    const service = key.slice(0, -"endpoint".length);
    const parsed = url(value);
    explicit.set(service, parsed);
    endpoints.push({
      source: `${service.charAt(0).toUpperCase()}${service.slice(1)}Endpoint`,
      url: parsed,
    });
  }

  if (values.get("usedevelopmentstorage")?.toLowerCase() === "true") {
    // The emulator on this machine, or behind the proxy the string names.
    const proxy = values.get("developmentstorageproxyuri");
    const base = proxy === undefined ? new URL("http://127.0.0.1") : url(proxy);
    if (proxy !== undefined) endpoints.push({ source: "DevelopmentStorageProxyUri", url: base });
    for (const service of DERIVED_SERVICES) {
      if (explicit.has(service)) continue;
      const derived = base ? new URL(base.href) : undefined;
      if (derived) derived.port = String(DEVELOPMENT_PORTS[service]);
      endpoints.push({ source: `${service} (UseDevelopmentStorage)`, url: derived });
      if (service === "table") explicit.set("table", derived);
    }
    return { endpoints, table: explicit.get("table"), problems };
  }

  const account = values.get("accountname");
  if (account !== undefined) {
    const protocol = (values.get("defaultendpointsprotocol") ?? "https").toLowerCase();
    const suffix = values.get("endpointsuffix") ?? "core.windows.net";
    for (const service of DERIVED_SERVICES) {
      if (explicit.has(service)) continue;
      // What the SDKs (and the Functions host) build when no endpoint is given for a service.
      const derived = url(`${protocol}://${account}.${service}.${suffix}`);
      endpoints.push({ source: `${service} (derived from AccountName)`, url: derived });
      explicit.set(service, derived);
    }
  }
  const table = explicit.get("table");
  if (!explicit.has("table")) {
    problems.push("names no table endpoint (give TableEndpoint or AccountName)");
  }
  return { endpoints, table, problems };
}
