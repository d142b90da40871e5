import { z } from "zod";
import {
  type EstateBinding,
  type EstateCertificate,
  MAX_BINDINGS,
} from "../../core/estate/estate.js";
import { hostNamesOf, shown } from "./graphRows.js";
import { certificateOfPublicData, type PublicCertificate } from "./publicCertData.js";

/**
 * Application Gateway listeners' certificates and Front Door / CDN custom domains, from Resource
 * Graph's rows: validated, escaped, bounded, as graphRows.ts does for App Service.
 */

const text = z.string().max(100_000).optional().catch(undefined);
const sub = z
  .object({ id: z.string().max(2000).optional().catch(undefined) })
  .optional()
  .catch(undefined);

const sslCertificate = z.object({
  id: text,
  name: z.string().max(100_000),
  properties: z
    .object({
      keyVaultSecretId: text,
      // Bounded where it is read (publicCertData.ts), so an oversized one is reported, not dropped.
      publicCertData: z.string().optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
});

const listener = z.object({
  id: text,
  properties: z
    .object({
      hostName: text,
      hostNames: z.array(z.string().max(100_000)).max(1000).optional().catch(undefined),
      sslCertificate: sub,
    })
    .optional()
    .catch(undefined),
});

export const gatewayRow = z.object({
  id: z.string().min(1).max(2000),
  subscriptionId: z.string().max(100),
  resourceGroup: text,
  sslCertificates: z.array(z.unknown()).max(10_000).optional().catch(undefined),
  httpListeners: z.array(z.unknown()).max(10_000).optional().catch(undefined),
});

export const frontDoorRow = z.object({
  id: z.string().min(1).max(2000),
  name: z.string().max(100_000),
  subscriptionId: z.string().max(100),
  resourceGroup: text,
  hostName: text,
  certificateType: text,
  secretId: text,
});

/** Each of a gateway's certificates, bound to the listeners that name it. */
export function gatewayCertificates(row: z.infer<typeof gatewayRow>): EstateCertificate[] {
  const gatewayId = row.id.toLowerCase();
  const listeners = (row.httpListeners ?? []).flatMap((l) => {
    const parsed = listener.safeParse(l);
    return parsed.success ? [parsed.data] : [];
  });
  return (row.sslCertificates ?? []).flatMap((c) => {
    const parsed = sslCertificate.safeParse(c);
    if (!parsed.success) return [];
    const cert = parsed.data;
    const id = `${gatewayId}/sslcertificates/${cert.name.toLowerCase()}`;
    const using = listeners.filter((l) => l.properties?.sslCertificate?.id?.toLowerCase() === id);
    const boundTo: EstateBinding[] = using.slice(0, MAX_BINDINGS).map((l) => ({
      kind: "listener",
      resourceId: shown(l.id?.toLowerCase()) ?? gatewayId,
      hostName: shown((l.properties?.hostName ?? l.properties?.hostNames?.[0])?.toLowerCase()),
    }));
    const listened = hostNamesOf(
      using.flatMap((l) => [l.properties?.hostName, ...(l.properties?.hostNames ?? [])]),
    );
    const data = publicDataOf(cert.properties?.publicCertData);
    const names =
      listened.hostNames.length === 0 && data.read
        ? { hostNames: data.read.hostNames, more: data.read.moreHostNames }
        : listened;
    return [
      {
        id: shown(id) ?? id.slice(0, 300),
        kind: "application-gateway",
        name: shown(cert.name) ?? "",
        subscriptionId: row.subscriptionId.toLowerCase(),
        resourceGroup: shown(row.resourceGroup),
        thumbprint: data.read?.thumbprint,
        notBefore: data.read?.notBefore,
        expiresAt: data.read?.expiresAt,
        issuer: data.read?.issuer,
        subject: data.read?.subject,
        hostNames: names.hostNames,
        moreHostNames: names.more,
        keyVaultId: vaultSecretId(cert.properties?.keyVaultSecretId),
        boundTo,
        problems: data.problems,
      } satisfies EstateCertificate,
    ];
  });
}

/**
 * A certificate uploaded as PFX: Resource Graph gives its public chain only, no expiry or
 * thumbprint. Data that is there but cannot be read is a problem; none (a vault's) is not.
 */
function publicDataOf(value: string | undefined): {
  read: PublicCertificate | undefined;
  problems: string[];
} {
  if (value === undefined || value.trim() === "") return { read: undefined, problems: [] };
  const read = certificateOfPublicData(value);
  return { read, problems: read ? [] : ["its public certificate data could not be read"] };
}

/** `https://{vault}.vault.azure.net/secrets/{name}[/{version}]` -> lower-case, no version. */
export function vaultSecretId(value: string | undefined): string | undefined {
  const m = value?.match(
    /^https:\/\/([a-z0-9-]{3,24})\.vault\.azure\.net\/(secrets|certificates)\/([a-z0-9-]{1,127})(\/[^/]*)?\/?$/i,
  );
  if (!m) return undefined;
  return `https://${m[1]?.toLowerCase()}.vault.azure.net/${m[2]?.toLowerCase()}/${m[3]?.toLowerCase()}`;
}

/** A Front Door / CDN custom domain, with its certificate source. */
export function frontDoorCertificate(row: z.infer<typeof frontDoorRow>): EstateCertificate {
  const id = row.id.toLowerCase();
  const host = shown(row.hostName?.toLowerCase());
  const type = shown(row.certificateType);
  return {
    id: shown(id) ?? id.slice(0, 300),
    kind: "front-door",
    name: shown(row.name) ?? "",
    subscriptionId: row.subscriptionId.toLowerCase(),
    resourceGroup: shown(row.resourceGroup),
    hostNames: host ? [host] : [],
    moreHostNames: 0,
    boundTo: [{ kind: "custom-domain", resourceId: shown(id) ?? "", hostName: host }],
    problems: type ? [] : ["its certificate type is not given"],
    ...(type === "ManagedCertificate" ? { autoRenew: true } : {}),
  };
}
