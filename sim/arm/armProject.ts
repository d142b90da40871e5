import type { GraphRow } from "./armEstate.js";

/**
 * What Resource Graph's `project` (and `mv-expand` of a site's TLS bindings) makes of the rows
 * for the queries certsched sends (shared/adapters/estate/graphQueries.ts): the flat columns
 * each one names, per type. A query without `| project` gets the whole rows, as Resource Graph
 * gives them.
 */
export type ProjectedRow = Record<string, unknown>;

const props = (row: GraphRow): Record<string, unknown> => row.properties ?? {};
const str = (value: unknown) => (value === undefined || value === null ? "" : String(value));
const placed = (row: GraphRow) => ({
  id: row.id,
  name: row.name,
  subscriptionId: row.subscriptionId,
  resourceGroup: row.resourceGroup,
});

function certificate(row: GraphRow): ProjectedRow[] {
  const p = props(row);
  return [
    {
      ...placed(row),
      thumbprint: str(p.thumbprint),
      expirationDate: str(p.expirationDate),
      issueDate: str(p.issueDate),
      issuer: str(p.issuer),
      subjectName: str(p.subjectName),
      hostNames: p.hostNames ?? null,
      keyVaultId: str(p.keyVaultId),
      keyVaultSecretName: str(p.keyVaultSecretName),
      serverFarmId: str(p.serverFarmId),
    },
  ];
}

function siteBindings(row: GraphRow): ProjectedRow[] {
  const states = props(row).hostNameSslStates;
  if (!Array.isArray(states)) return [];
  return states
    .map((b) => (b ?? {}) as Record<string, unknown>)
    .filter((b) => str(b.thumbprint) !== "")
    .map((b) => ({
      id: row.id,
      type: row.type,
      subscriptionId: row.subscriptionId,
      hostName: str(b.name),
      sslState: str(b.sslState),
      thumbprint: str(b.thumbprint),
    }));
}

function gateway(row: GraphRow): ProjectedRow[] {
  const p = props(row);
  return [{ ...placed(row), sslCertificates: p.sslCertificates, httpListeners: p.httpListeners }];
}

function frontDoorDomain(row: GraphRow): ProjectedRow[] {
  const tls = (props(row).tlsSettings ?? {}) as Record<string, unknown>;
  const secret = (tls.secret ?? {}) as Record<string, unknown>;
  return [
    {
      ...placed(row),
      hostName: str(props(row).hostName),
      certificateType: str(tls.certificateType),
      secretId: str(secret.id),
    },
  ];
}

function frontDoorSecret(row: GraphRow): ProjectedRow[] {
  const parameters = (props(row).parameters ?? {}) as Record<string, unknown>;
  const source = (parameters.secretSource ?? {}) as Record<string, unknown>;
  return [
    {
      id: row.id,
      secretType: str(parameters.type),
      secretSourceId: str(source.id),
      expirationDate: str(parameters.expirationDate),
      subject: str(parameters.subject),
      certificateAuthority: str(parameters.certificateAuthority),
      thumbprint: str(parameters.thumbprint),
      subjectAlternativeNames: parameters.subjectAlternativeNames ?? null,
    },
  ];
}

const PROJECTIONS: Readonly<Record<string, (row: GraphRow) => ProjectedRow[]>> = {
  "microsoft.web/certificates": certificate,
  "microsoft.web/sites": siteBindings,
  "microsoft.web/sites/slots": siteBindings,
  "microsoft.network/applicationgateways": gateway,
  "microsoft.cdn/profiles/customdomains": frontDoorDomain,
  "microsoft.cdn/profiles/afdendpoints/domains": frontDoorDomain,
  "microsoft.cdn/profiles/secrets": frontDoorSecret,
  "microsoft.keyvault/vaults": (row) => [placed(row)],
};

/**
 * The rows as `query` projects them: whole rows when it does not project, or keeps the whole
 * `properties` column, or names no known type.
 */
export function projectRows(query: string, rows: readonly GraphRow[]): ProjectedRow[] {
  const columns = /\|\s*project\b([^|]*)/i.exec(query)?.[1];
  if (columns === undefined || /(^|,)\s*properties\s*(,|$)/i.test(columns)) return [...rows];
  return rows.flatMap((row) => {
    const projection = PROJECTIONS[row.type.toLowerCase()];
    return projection ? projection(row) : [row];
  });
}
