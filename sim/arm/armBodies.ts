import { type ArmSite, type ArmZone, siteId, zoneId } from "./armState.js";

/**
 * ARM's JSON, as the real one writes it for these resource types (the fields Azure's SDKs read,
 * and enough of the rest that a reader of a recorded answer recognises it).
 */

export interface ArmErrorBody {
  error: { code: string; message: string };
}

export function armError(code: string, message: string): ArmErrorBody {
  return { error: { code, message } };
}

export function zoneBody(zone: ArmZone) {
  return {
    id: zoneId(zone.subscriptionId, zone.resourceGroup, zone.name),
    name: zone.name,
    type: "Microsoft.Network/dnszones",
    etag: "00000002-0000-0000-0000-000000000000",
    location: "global",
    tags: {},
    properties: {
      maxNumberOfRecordSets: 10000,
      maxNumberOfRecordsPerRecordSet: null,
      numberOfRecordSets: 2,
      nameServers: [...zone.nameServers],
      zoneType: "Public",
    },
  };
}

/** `{site}.azurewebsites.net`, or `{site}-{slot}.azurewebsites.net` for a slot. */
export function defaultHostName(site: string, slot?: string): string {
  return `${slot === undefined ? site : `${site}-${slot}`}.azurewebsites.net`.toLowerCase();
}

export function siteBody(site: ArmSite) {
  const hostNames = [...site.hostNames, defaultHostName(site.name)];
  return {
    id: siteId(site.subscriptionId, site.resourceGroup, site.name),
    name: site.name,
    type: "Microsoft.Web/sites",
    kind: "app",
    location: "West Europe",
    tags: {},
    properties: {
      name: site.name,
      state: "Running",
      hostNames,
      enabledHostNames: [...hostNames, `${site.name}.scm.azurewebsites.net`.toLowerCase()],
      defaultHostName: defaultHostName(site.name),
      resourceGroup: site.resourceGroup,
      enabled: true,
      httpsOnly: false,
    },
  };
}

/** One binding of a site (or slot): named `site/host` (`site/slot/host` for a slot). */
export function bindingBody(site: ArmSite, host: string, slot?: string) {
  const owner = siteId(site.subscriptionId, site.resourceGroup, site.name, slot);
  const isDefault = host.toLowerCase().endsWith(".azurewebsites.net");
  return {
    id: `${owner}/hostNameBindings/${host}`,
    name: slot === undefined ? `${site.name}/${host}` : `${site.name}/${slot}/${host}`,
    type:
      slot === undefined
        ? "Microsoft.Web/sites/hostNameBindings"
        : "Microsoft.Web/sites/slots/hostNameBindings",
    location: "West Europe",
    properties: {
      siteName: slot === undefined ? site.name : `${site.name}(${slot})`,
      domainId: null,
      azureResourceName: site.name,
      azureResourceType: "Website",
      customHostNameDnsRecordType: isDefault ? "A" : "CName",
      hostNameType: isDefault ? "Managed" : "Verified",
      sslState: "Disabled",
      thumbprint: null,
    },
  };
}

/** 403 AuthorizationFailed, worded as ARM words it. */
export function authorizationFailed(action: string, scope: string): ArmErrorBody {
  return armError(
    "AuthorizationFailed",
    `The client '00000000-0000-0000-0000-00000000c11e' with object id '00000000-0000-0000-0000-00000000c11e' does not have authorization to perform action '${action}' over scope '${scope}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
  );
}
