/**
 * The estate the simulator's Resource Manager answers Resource Graph queries from
 * (sim/arm/armGraph.ts): rows as Resource Graph returns them (id, name, type, subscriptionId,
 * resourceGroup, location, properties), seeded by type, plus the faults a test plants.
 */

/** One Resource Graph row, as Azure writes it (objectArray format). */
export interface GraphRow {
  readonly id: string;
  readonly name: string;
  /** Lower-case, as Resource Graph writes types. */
  readonly type: string;
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly location: string;
  readonly tenantId?: string;
  readonly properties: Record<string, unknown>;
  readonly [field: string]: unknown;
}

/** The types estate discovery asks for. */
export const GRAPH_TYPES = {
  appServiceCertificate: "microsoft.web/certificates",
  site: "microsoft.web/sites",
  slot: "microsoft.web/sites/slots",
  gateway: "microsoft.network/applicationgateways",
  frontDoorDomain: "microsoft.cdn/profiles/customdomains",
  frontDoorSecret: "microsoft.cdn/profiles/secrets",
  cdnDomain: "microsoft.cdn/profiles/endpoints/customdomains",
  vault: "microsoft.keyvault/vaults",
} as const;

interface Placed {
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly location?: string | undefined;
}

export interface SeedAppServiceCertificate extends Placed {
  readonly name: string;
  /** As Azure writes it (40 upper hex); a test may give any text. */
  readonly thumbprint: string;
  /** Dates as text, as Azure writes them (`2027-01-01T00:00:00+00:00`), or Dates. */
  readonly notBefore?: Date | string | undefined;
  readonly expiresAt: Date | string;
  readonly hostNames: readonly string[];
  readonly subjectName?: string | undefined;
  readonly issuer?: string | undefined;
  /** The vault's ARM id, when the certificate comes from a vault. */
  readonly keyVaultId?: string | undefined;
  readonly keyVaultSecretName?: string | undefined;
}

export interface SeedSslBinding {
  readonly hostName: string;
  /** Undefined: the host name has no certificate (sslState Disabled). */
  readonly thumbprint?: string | undefined;
  readonly sslState?: "SniEnabled" | "IpBasedEnabled" | "Disabled" | undefined;
}

export interface SeedSite extends Placed {
  readonly name: string;
  /** A slot of the site `name`: the row is `microsoft.web/sites/slots`, named `site/slot`. */
  readonly slot?: string | undefined;
  readonly bindings: readonly SeedSslBinding[];
}

export interface SeedGateway extends Placed {
  readonly name: string;
  readonly certificates: readonly {
    readonly name: string;
    /** `https://{vault}.vault.azure.net/secrets/{name}[/{version}]`. */
    readonly keyVaultSecretId?: string | undefined;
    /** Base64 of the public part, as the gateway keeps an uploaded PFX. */
    readonly publicCertData?: string | undefined;
  }[];
  readonly listeners: readonly {
    readonly name: string;
    readonly hostName?: string | undefined;
    /** The name of one of `certificates`. */
    readonly certificate: string;
  }[];
}

export interface SeedFrontDoorDomain extends Placed {
  readonly profile: string;
  readonly name: string;
  readonly hostName: string;
  /** Undefined: an Azure-managed certificate. */
  readonly secret?:
    | {
        readonly name: string;
        /**
         * The Key Vault secret it comes from, as Azure writes it: an ARM id
         * (`/subscriptions/…/providers/Microsoft.KeyVault/vaults/{vault}/secrets/{name}`).
         */
        readonly secretSourceId: string;
        readonly expiresAt?: Date | string | undefined;
        /** SHA-1, 40 hex, as Azure shows it. */
        readonly thumbprint?: string | undefined;
        readonly subject?: string | undefined;
        readonly subjectAlternativeNames?: readonly string[] | undefined;
      }
    | undefined;
}

export interface SeedVault extends Placed {
  readonly name: string;
}

/**
 * What Resource Graph answers instead of its rows: `endless-pages` (every page has a fresh
 * skip token, forever), `repeat-token` (every page gives the same skip token), `429` (throttled,
 * with Retry-After), `500`.
 */
export type GraphFault =
  | "endless-pages"
  | "repeat-token"
  | { readonly status: 429; readonly retryAfterSeconds: number }
  | 500;

const text = (d: Date | string | undefined) =>
  d === undefined ? undefined : typeof d === "string" ? d : d.toISOString().replace("Z", "+00:00");

const group = (s: Placed, provider: string) =>
  `/subscriptions/${s.subscriptionId}/resourceGroups/${s.resourceGroup}/providers/${provider}`;

function row(
  s: Placed,
  id: string,
  name: string,
  type: string,
  properties: Record<string, unknown>,
): GraphRow {
  return {
    id,
    name,
    type,
    tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47",
    kind: "",
    location: s.location ?? "westeurope",
    resourceGroup: s.resourceGroup.toLowerCase(),
    subscriptionId: s.subscriptionId,
    managedBy: "",
    sku: null,
    plan: null,
    properties,
    tags: {},
    identity: null,
    zones: null,
    extendedLocation: null,
  };
}

export function appServiceCertificateRow(c: SeedAppServiceCertificate): GraphRow {
  return row(
    c,
    group(c, `Microsoft.Web/certificates/${c.name}`),
    c.name,
    GRAPH_TYPES.appServiceCertificate,
    {
      friendlyName: "",
      subjectName: c.subjectName ?? c.hostNames[0] ?? "",
      hostNames: [...c.hostNames],
      issuer: c.issuer ?? "Simulated CA",
      issueDate: text(c.notBefore) ?? null,
      expirationDate: text(c.expiresAt),
      thumbprint: c.thumbprint,
      valid: null,
      keyVaultId: c.keyVaultId ?? null,
      keyVaultSecretName: c.keyVaultSecretName ?? null,
      keyVaultSecretStatus: c.keyVaultId === undefined ? "Unknown" : "Succeeded",
      serverFarmId: group(c, "Microsoft.Web/serverfarms/plan"),
    },
  );
}

export function siteRow(s: SeedSite): GraphRow {
  const path =
    s.slot === undefined
      ? `Microsoft.Web/sites/${s.name}`
      : `Microsoft.Web/sites/${s.name}/slots/${s.slot}`;
  const states = s.bindings.map((b) => ({
    name: b.hostName,
    sslState: b.sslState ?? (b.thumbprint === undefined ? "Disabled" : "SniEnabled"),
    ipBasedSslResult: null,
    virtualIP: null,
    virtualIPv6: null,
    thumbprint: b.thumbprint ?? null,
    certificateResourceId: null,
    toUpdate: null,
    toUpdateIpBasedSsl: null,
    ipBasedSslState: "NotConfigured",
    hostType: "Standard",
  }));
  return row(
    s,
    group(s, path),
    s.slot === undefined ? s.name : `${s.name}/${s.slot}`,
    s.slot === undefined ? GRAPH_TYPES.site : GRAPH_TYPES.slot,
    {
      name: s.name,
      state: "Running",
      hostNames: s.bindings.map((b) => b.hostName),
      enabledHostNames: s.bindings.map((b) => b.hostName),
      hostNameSslStates: states,
    },
  );
}

export function gatewayRow(g: SeedGateway): GraphRow {
  const id = group(g, `Microsoft.Network/applicationGateways/${g.name}`);
  const certId = (name: string) => `${id}/sslCertificates/${name}`;
  const listenerId = (name: string) => `${id}/httpListeners/${name}`;
  return row(g, id, g.name, GRAPH_TYPES.gateway, {
    provisioningState: "Succeeded",
    operationalState: "Running",
    sku: { name: "WAF_v2", tier: "WAF_v2" },
    sslCertificates: g.certificates.map((c) => ({
      name: c.name,
      id: certId(c.name),
      etag: 'W/"00000000-0000-0000-0000-000000000001"',
      type: "Microsoft.Network/applicationGateways/sslCertificates",
      properties: {
        provisioningState: "Succeeded",
        ...(c.keyVaultSecretId === undefined ? {} : { keyVaultSecretId: c.keyVaultSecretId }),
        ...(c.publicCertData === undefined ? {} : { publicCertData: c.publicCertData }),
        httpListeners: g.listeners
          .filter((l) => l.certificate === c.name)
          .map((l) => ({ id: listenerId(l.name) })),
      },
    })),
    httpListeners: g.listeners.map((l) => ({
      name: l.name,
      id: listenerId(l.name),
      type: "Microsoft.Network/applicationGateways/httpListeners",
      properties: {
        provisioningState: "Succeeded",
        protocol: "Https",
        ...(l.hostName === undefined ? {} : { hostName: l.hostName, hostNames: [l.hostName] }),
        requireServerNameIndication: l.hostName !== undefined,
        sslCertificate: { id: certId(l.certificate) },
        frontendPort: { id: `${id}/frontendPorts/port_443` },
      },
    })),
  });
}

/** The custom domain's row and, when it brings its own certificate, the profile secret's. */
export function frontDoorRows(d: SeedFrontDoorDomain): GraphRow[] {
  const profile = group(d, `Microsoft.Cdn/profiles/${d.profile}`);
  const secretId = d.secret === undefined ? undefined : `${profile}/secrets/${d.secret.name}`;
  const domain = row(d, `${profile}/customDomains/${d.name}`, d.name, GRAPH_TYPES.frontDoorDomain, {
    hostName: d.hostName,
    domainValidationState: "Approved",
    provisioningState: "Succeeded",
    deploymentStatus: "Succeeded",
    tlsSettings: {
      certificateType: d.secret === undefined ? "ManagedCertificate" : "CustomerCertificate",
      minimumTlsVersion: "TLS12",
      secret: secretId === undefined ? null : { id: secretId },
    },
  });
  if (d.secret === undefined || secretId === undefined) return [domain];
  const s = d.secret;
  const secret = row(d, secretId, s.name, GRAPH_TYPES.frontDoorSecret, {
    provisioningState: "Succeeded",
    parameters: {
      type: "CustomerCertificate",
      secretSource: { id: s.secretSourceId },
      secretVersion: "",
      useLatestVersion: true,
      subject: s.subject ?? d.hostName,
      expirationDate: text(s.expiresAt) ?? null,
      certificateAuthority: "Simulated CA",
      subjectAlternativeNames: [...(s.subjectAlternativeNames ?? [d.hostName])],
      ...(s.thumbprint === undefined ? {} : { thumbprint: s.thumbprint }),
    },
  });
  return [domain, secret];
}

export function vaultRow(v: SeedVault): GraphRow {
  return row(v, group(v, `Microsoft.KeyVault/vaults/${v.name}`), v.name, GRAPH_TYPES.vault, {
    vaultUri: `https://${v.name.toLowerCase()}.vault.azure.net/`,
    tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47",
    sku: { family: "A", name: "standard" },
    enableRbacAuthorization: true,
    provisioningState: "Succeeded",
  });
}
