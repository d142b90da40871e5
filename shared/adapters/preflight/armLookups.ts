import type { AccessToken, GetTokenOptions, TokenCredential } from "@azure/identity";
import type { ArmAnswer, ArmLookups, SiteRef } from "../../core/ports/preflightProbes.js";
import { untilAborted } from "../../lib/abort.js";
import {
  type BoundedAnswerPolicy,
  boundedAnswerPolicy,
} from "../../lib/http/boundedAnswerPolicy.js";
import { armFailure } from "./armFailure.js";
import {
  type Lookup,
  MAX_PAGES,
  readHostNameBindings,
  readNameServers,
  readSites,
  type SignalPolicy,
} from "./armReads.js";

export { MAX_PAGES };

/**
 * Azure Resource Manager for preflight, through Azure's own SDKs: `@azure/arm-dns`
 * for a DNS zone's name servers, `@azure/arm-appservice` for host-name bindings and the list of
 * sites. Both are loaded on the first lookup (a function that never runs preflight does not pay
 * for them at cold start). Every lookup is bounded in time (each request by `timeoutMs`, the
 * list of sites by LIST_TIMEOUTS of them, no SDK retries), in size (each answer's body by
 * MAX_ARM_ANSWER_BYTES) and in what it keeps, and never throws.
 */

export interface ArmLookupsOptions {
  /** CERTSCHED_ARM_URL, e.g. https://management.azure.com (https: the SDKs send tokens over TLS only). */
  readonly armUrl: string;
  /** certsched's management token as a TokenCredential (adapters/identity/tokenCredential.ts). */
  readonly credential: TokenCredential;
  /** CERTSCHED_PREFLIGHT_TIMEOUT: each request to ARM. */
  readonly timeoutMs: number;
  /**
   * The resource `credential` gives tokens for (settings.managementResource, e.g.
   * https://management.core.windows.net/); the SDKs ask for its `/.default` scope. Default armUrl.
   */
  readonly resource?: string | undefined;
  /** Extra trust for a local ARM in a process started without NODE_EXTRA_CA_CERTS (the sandbox). */
  readonly tlsOptions?: { readonly ca?: string | readonly string[] } | undefined;
  /** Longest body read of one ARM answer (default MAX_ARM_ANSWER_BYTES). */
  readonly maxAnswerBytes?: number | undefined;
}

/**
 * Longest body read of one ARM answer, a page of a list included. A page of the list of sites
 * is the largest: ARM pages it itself, and a site's JSON is a few KiB, so 16 MiB holds thousands
 * of sites; a body longer than that is no answer preflight can use (`unknown`).
 */
export const MAX_ARM_ANSWER_BYTES = 16 * 1024 * 1024;

/** The list of sites, every page, within this many `timeoutMs`. */
export const LIST_TIMEOUTS = 4;

function scopeOf(resource: string): string {
  return `${resource.replace(/\/+$/, "")}/.default`;
}

export function armLookups(options: ArmLookupsOptions): ArmLookups {
  return new SdkArmLookups(options);
}

/** What one lookup reads, what is missing when ARM has no such thing, and its time in all. */
interface About {
  readonly what: string;
  readonly absent: string;
  readonly budgetMs: number;
}

/** What one lookup's requests leave for its failure: the tokens given, a token failure, a timer. */
interface Trace {
  readonly tokens: string[];
  tokenFailure: unknown;
  /** The timer of the request sent last: a timeout, when it ran out. */
  lastTimer: AbortSignal | undefined;
}

/**
 * The lookups through the SDKs. The methods are fields, so that they can be passed around and
 * the object spread like the object of functions it was.
 */
class SdkArmLookups implements ArmLookups {
  readonly #options: ArmLookupsOptions;
  readonly #endpoint: string;
  readonly #scope: string;
  readonly #bounded: BoundedAnswerPolicy;

  constructor(options: ArmLookupsOptions) {
    this.#options = options;
    this.#endpoint = options.armUrl.replace(/\/+$/, "");
    this.#scope = scopeOf(options.resource ?? this.#endpoint);
    // Below the SDKs' parsing ("perRetry"): each body is cut at the bound before it is read whole.
    this.#bounded = boundedAnswerPolicy(options.maxAnswerBytes ?? MAX_ARM_ANSWER_BYTES);
  }

  readonly dnsZone: ArmLookups["dnsZone"] = (subscriptionId, resourceGroup, zone, signal) =>
    this.#lookup(
      {
        what: `DNS zone ${zone} in resource group ${resourceGroup}`,
        absent: `DNS zone ${zone} in resource group ${resourceGroup}`,
        budgetMs: this.#options.timeoutMs,
      },
      signal,
      // Loaded on first use: cold start of the functions without preflight stays as it was.
      () => import("@azure/arm-dns"),
      (sdk, l) => readNameServers(sdk, l, subscriptionId, resourceGroup, zone),
    );

  readonly hostNameBindings: ArmLookups["hostNameBindings"] = (site: SiteRef, signal) => {
    const which = site.slot === undefined ? site.site : `${site.site}/${site.slot}`;
    return this.#lookup(
      {
        what: `the host-name bindings of app ${which} in resource group ${site.resourceGroup}`,
        absent: `app ${which} in resource group ${site.resourceGroup}`,
        budgetMs: this.#options.timeoutMs * LIST_TIMEOUTS,
      },
      signal,
      () => import("@azure/arm-appservice"),
      (sdk, l) => readHostNameBindings(sdk, l, site, which),
    );
  };

  readonly sites: ArmLookups["sites"] = (subscriptionId, signal) =>
    this.#lookup(
      {
        what: `the apps of subscription ${subscriptionId}`,
        absent: `subscription ${subscriptionId}`,
        budgetMs: this.#options.timeoutMs * LIST_TIMEOUTS,
      },
      signal,
      () => import("@azure/arm-appservice"),
      (sdk, l) => readSites(sdk, l, subscriptionId),
    );

  /** Runs `work` as one lookup: its deadline, its credential, its failures mapped. */
  async #lookup<M, T>(
    about: About,
    outer: AbortSignal | undefined,
    load: () => Promise<M>,
    work: (sdk: M, l: Lookup) => Promise<ArmAnswer<T>>,
  ): Promise<ArmAnswer<T>> {
    const { what, absent, budgetMs } = about;
    // The SDK is loaded before the clock starts: its first load is not ARM's answer time.
    let sdk: M;
    try {
      sdk = await load();
    } catch (error) {
      return armFailure(error, {
        what,
        absent,
        timeoutMs: this.#options.timeoutMs,
        timedOut: false,
        cancelled: false,
        tokenFailure: undefined,
        tokens: [],
      });
    }
    const deadline = AbortSignal.timeout(budgetMs);
    const whole = outer ? AbortSignal.any([outer, deadline]) : deadline;
    const trace: Trace = { tokens: [], tokenFailure: undefined, lastTimer: undefined };
    const l = this.#lookupOf(whole, trace);
    try {
      return await untilAborted(work(sdk, l), whole);
    } catch (error) {
      return armFailure(error, {
        what,
        absent,
        timeoutMs: this.#options.timeoutMs,
        timedOut: deadline.aborted || trace.lastTimer?.aborted === true,
        cancelled: outer?.aborted === true,
        tokenFailure: trace.tokenFailure,
        tokens: trace.tokens,
      });
    }
  }

  /** What one lookup with the signal `whole` hands the SDK code; its requests leave `trace`. */
  #lookupOf(whole: AbortSignal, trace: Trace): Lookup {
    const credential = tracedCredential(this.#options.credential, whole, trace);
    const policy = deadlinePolicy(whole, this.#options.timeoutMs, trace);
    return {
      credential,
      signal: whole,
      scope: this.#scope,
      clientOptions: {
        endpoint: this.#endpoint,
        // One try: preflight runs daily, and a 5xx is `unknown` today, not a wait.
        retryOptions: { maxRetries: 0 },
        // ARM does not redirect these reads; whatever does would get the token along.
        redirectOptions: { maxRetries: 0 },
        additionalPolicies: [
          { policy, position: "perCall" },
          { policy: this.#bounded, position: "perRetry" },
        ],
        ...(this.#options.tlsOptions ? { tlsOptions: this.#options.tlsOptions } : {}),
      },
    };
  }
}

/**
 * `credential`, keeping each token it gives (a failure's detail must not show them) and its
 * failure, unless the lookup or the request was out of time by then.
 */
function tracedCredential(
  credential: TokenCredential,
  whole: AbortSignal,
  trace: Trace,
): TokenCredential {
  return {
    async getToken(scopes: string | string[], getOptions?: GetTokenOptions) {
      try {
        const token: AccessToken | null = await credential.getToken(scopes, getOptions);
        if (token) trace.tokens.push(token.token);
        return token;
      } catch (error) {
        if (!whole.aborted && !trace.lastTimer?.aborted) trace.tokenFailure = error;
        throw error;
      }
    },
  };
}

/**
 * Each request (the SDKs' later pages take no signal of their own) gets the lookup's signal
 * and its own timer, so a silent ARM is given up on, its socket closed.
 */
function deadlinePolicy(whole: AbortSignal, timeoutMs: number, trace: Trace): SignalPolicy {
  return {
    name: "certschedPreflightDeadline",
    sendRequest: (request, next) => {
      trace.lastTimer = AbortSignal.timeout(timeoutMs);
      request.abortSignal = AbortSignal.any([whole, trace.lastTimer]);
      return next(request);
    },
  };
}
