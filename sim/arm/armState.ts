/**
 * What the simulator's Azure Resource Manager holds (sim/arm/armServer.ts serves it): DNS zones
 * and App Service sites with their slots, keyed as ARM keys them (subscription, resource group
 * and name, all compared without case), and the faults a test planted on paths.
 */

/** A DNS zone: `Microsoft.Network/dnsZones/{name}` in a resource group. */
export interface ArmZone {
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  /** The zone's name, e.g. `contoso.com` (no trailing dot). */
  readonly name: string;
  readonly nameServers: readonly string[];
}

/** A deployment slot of a site: its custom host names. */
export interface ArmSlot {
  readonly name: string;
  readonly hostNames: readonly string[];
}

/** An App Service app, `Microsoft.Web/sites/{name}`, with its custom host names and slots. */
export interface ArmSite {
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly name: string;
  /** Custom host names bound to the production slot; the default `{name}.azurewebsites.net` is added. */
  readonly hostNames: readonly string[];
  readonly slots?: readonly ArmSlot[] | undefined;
}

/**
 * What ARM answers instead of the resource: 401 (token refused), 403 (AuthorizationFailed), 404,
 * 500, `hang` (the request is read and never answered), `echo-token` (a 500 whose message
 * quotes the request's Authorization header: an upstream that must never be quoted as it is),
 * `endless` (a 200 whose JSON body never ends, written as fast as the client reads it) or
 * `endless-403` (the same with a 403: its status still says what it says).
 */
export type ArmFault = 401 | 403 | 404 | 500 | "hang" | "echo-token" | "endless" | "endless-403";

export const ARM_FAULTS: readonly ArmFault[] = [
  401,
  403,
  404,
  500,
  "hang",
  "echo-token",
  "endless",
  "endless-403",
];

/** `/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Network/dnsZones/{zone}`. */
export function zoneId(subscriptionId: string, resourceGroup: string, name: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Network/dnszones/${name}`;
}

/** `/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Web/sites/{site}[/slots/{slot}]`. */
export function siteId(
  subscriptionId: string,
  resourceGroup: string,
  name: string,
  slot?: string,
): string {
  const site = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Web/sites/${name}`;
  return slot === undefined ? site : `${site}/slots/${slot}`;
}

/** `/subscriptions/{s}/providers/Microsoft.Web/sites`: the subscription's list of sites. */
export function sitesListPath(subscriptionId: string): string {
  return `/subscriptions/${subscriptionId}/providers/Microsoft.Web/sites`;
}

const key = (...parts: string[]) => parts.map((p) => p.toLowerCase()).join("/");

/** ARM paths and names are case-insensitive; a trailing slash names the same resource. */
export function normalPath(path: string): string {
  return path.toLowerCase().replace(/\/+$/, "");
}

/** The zones, sites and faults; the server reads them on every request. */
export class ArmState {
  readonly #zones = new Map<string, ArmZone>();
  readonly #sites = new Map<string, ArmSite>();
  /** Path prefix (normalPath) → fault. */
  readonly #faults = new Map<string, ArmFault>();

  addZone(zone: ArmZone): void {
    this.#zones.set(key(zone.subscriptionId, zone.resourceGroup, zone.name), {
      ...zone,
      nameServers: [...zone.nameServers],
    });
  }

  removeZone(subscriptionId: string, resourceGroup: string, name: string): boolean {
    return this.#zones.delete(key(subscriptionId, resourceGroup, name));
  }

  zone(subscriptionId: string, resourceGroup: string, name: string): ArmZone | undefined {
    return this.#zones.get(key(subscriptionId, resourceGroup, name));
  }

  addSite(site: ArmSite): void {
    this.#sites.set(key(site.subscriptionId, site.resourceGroup, site.name), {
      ...site,
      hostNames: [...site.hostNames],
      slots: (site.slots ?? []).map((s) => ({ name: s.name, hostNames: [...s.hostNames] })),
    });
  }

  removeSite(subscriptionId: string, resourceGroup: string, name: string): boolean {
    return this.#sites.delete(key(subscriptionId, resourceGroup, name));
  }

  site(subscriptionId: string, resourceGroup: string, name: string): ArmSite | undefined {
    return this.#sites.get(key(subscriptionId, resourceGroup, name));
  }

  /** Every site of the subscription, in the order they were added. */
  sitesOf(subscriptionId: string): ArmSite[] {
    const wanted = subscriptionId.toLowerCase();
    return [...this.#sites.values()].filter((s) => s.subscriptionId.toLowerCase() === wanted);
  }

  /**
   * From now on every request whose path starts with `pathPrefix` (a resource id, or any prefix
   * of one: a subscription, a resource group) gets `fault`; undefined removes it.
   */
  setFault(pathPrefix: string, fault: ArmFault | undefined): void {
    const prefix = normalPath(pathPrefix);
    if (fault === undefined) this.#faults.delete(prefix);
    else this.#faults.set(prefix, fault);
  }

  clearFaults(): void {
    this.#faults.clear();
  }

  /** The fault of the longest prefix that covers `path` (whole segments only). */
  faultFor(path: string): ArmFault | undefined {
    const wanted = normalPath(path);
    let best: { length: number; fault: ArmFault } | undefined;
    for (const [prefix, fault] of this.#faults) {
      const covers = wanted === prefix || wanted.startsWith(`${prefix}/`) || prefix === "";
      if (covers && (best === undefined || prefix.length > best.length)) {
        best = { length: prefix.length, fault };
      }
    }
    return best?.fault;
  }
}
