import type { TokenCredential } from "@azure/identity";
import type { ArmAnswer, SiteRef } from "../../core/ports/preflightProbes.js";
import { untilAborted } from "../../lib/abort.js";
import type { BoundedAnswerPolicy } from "../../lib/http/boundedAnswerPolicy.js";
import { armDetail } from "./armFailure.js";
import { hostName, MAX_HOST_NAMES, MAX_NAME, MAX_NAME_SERVERS, names } from "./armNames.js";

/**
 * What each ARM lookup (armLookups.ts) reads through the SDKs, once its client options, its
 * credential and its signal are set: a DNS zone's name servers, a site's host-name bindings, the
 * sites of a subscription, every page of a list up to MAX_PAGES.
 */

/** Most pages of the list of sites read; more is `unknown` (the host name may be on a later one). */
export const MAX_PAGES = 50;

/** A pipeline policy, as both SDK generations take it (their types come from two packages). */
export interface SignalPolicy {
  readonly name: string;
  sendRequest(
    request: { abortSignal?: AbortSignal | undefined },
    next: (request: { abortSignal?: AbortSignal | undefined }) => Promise<unknown>,
  ): Promise<unknown>;
}

/** What one lookup hands the SDK code: its credential and its per-request signal. */
export interface Lookup {
  readonly credential: TokenCredential;
  readonly signal: AbortSignal;
  readonly clientOptions: {
    readonly endpoint: string;
    readonly retryOptions: { readonly maxRetries: number };
    readonly redirectOptions: { readonly maxRetries: number };
    readonly tlsOptions?: { readonly ca?: string | readonly string[] };
    readonly additionalPolicies: readonly (
      | { readonly policy: SignalPolicy; readonly position: "perCall" }
      | { readonly policy: BoundedAnswerPolicy; readonly position: "perRetry" }
    )[];
  };
  readonly scope: string;
}

/** The sites API of `@azure/arm-appservice` for one lookup (both of its reads use it). */
function webAppsOf(
  { WebSiteManagementClient }: typeof import("@azure/arm-appservice"),
  subscriptionId: string,
  l: Lookup,
) {
  const options = { ...l.clientOptions, credentials: { scopes: [l.scope] } };
  return new WebSiteManagementClient(l.credential, subscriptionId, options as never).webApps;
}

/** Every page of an SDK pager, each awaited within the lookup; undefined past MAX_PAGES. */
async function allPages<P>(
  pages: AsyncIterableIterator<P[]>,
  signal: AbortSignal,
): Promise<P[] | undefined> {
  const items: P[] = [];
  for (let n = 0; ; n++) {
    const page = await untilAborted(pages.next(), signal);
    if (page.done) return items;
    if (n >= MAX_PAGES) return undefined;
    items.push(...page.value);
  }
}

/** The name servers of DNS zone `zone`. */
export async function readNameServers(
  { DnsManagementClient }: typeof import("@azure/arm-dns"),
  l: Lookup,
  subscriptionId: string,
  resourceGroup: string,
  zone: string,
): Promise<ArmAnswer<{ readonly nameServers: readonly string[] }>> {
  const client = new DnsManagementClient(l.credential, subscriptionId, {
    ...l.clientOptions,
    credentialScopes: [l.scope],
  } as never);
  const found = await client.zones.get(resourceGroup, zone, { abortSignal: l.signal });
  const nameServers = names(found.nameServers, MAX_NAME_SERVERS);
  if (nameServers.length === 0) {
    return {
      kind: "unknown",
      detail: armDetail(`Azure Resource Manager lists no name servers for DNS zone ${zone}`),
    };
  }
  return { kind: "found", value: { nameServers } };
}

/** The host names bound to `site` (named `which` in what is said), every page. */
export async function readHostNameBindings(
  sdk: typeof import("@azure/arm-appservice"),
  l: Lookup,
  site: SiteRef,
  which: string,
): Promise<ArmAnswer<readonly string[]>> {
  const webApps = webAppsOf(sdk, site.subscriptionId, l);
  const paged =
    site.slot === undefined
      ? webApps.listHostNameBindings(site.resourceGroup, site.site, {
          abortSignal: l.signal,
        })
      : webApps.listHostNameBindingsSlot(site.resourceGroup, site.site, site.slot, {
          abortSignal: l.signal,
        });
  const bindings = await allPages(paged.byPage(), l.signal);
  if (bindings === undefined) {
    return {
      kind: "unknown",
      detail: armDetail(
        `Azure Resource Manager listed more than ${MAX_PAGES} pages of host-name bindings for app ${which}`,
      ),
    };
  }
  // A binding is named `site/host` (`site/slot/host` for a slot): the host is the last part.
  const hosts = names(
    bindings.map((b) => (typeof b.name === "string" ? b.name.split("/").at(-1) : "")),
    MAX_HOST_NAMES,
  ).map(hostName);
  return { kind: "found", value: hosts };
}

/** The apps of subscription `subscriptionId`, every page: each one's name and host names. */
export async function readSites(
  sdk: typeof import("@azure/arm-appservice"),
  l: Lookup,
  subscriptionId: string,
): Promise<ArmAnswer<readonly { readonly name: string; readonly hostNames: readonly string[] }[]>> {
  const webApps = webAppsOf(sdk, subscriptionId, l);
  const sites = await allPages(webApps.list({ abortSignal: l.signal }).byPage(), l.signal);
  if (sites === undefined) {
    return {
      kind: "unknown",
      detail: armDetail(
        `Azure Resource Manager listed more than ${MAX_PAGES} pages of apps in subscription ${subscriptionId}; certsched reads at most ${MAX_PAGES}`,
      ),
    };
  }
  return {
    kind: "found",
    value: sites.map((s) => ({
      name: typeof s.name === "string" ? s.name.slice(0, MAX_NAME) : "",
      hostNames: names(s.hostNames, MAX_HOST_NAMES).map(hostName),
    })),
  };
}
