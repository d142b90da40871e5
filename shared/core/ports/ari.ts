import type { RenewalInfo } from "../ari/renewalInfo.js";

/**
 * The CA's renewal information (RFC 9773) for a served certificate (adapters/ari/ariClient.ts).
 * Asking never throws: ARI never blocks anything.
 */

/** A served certificate as ARI needs it: its CertID and its issuer's name. */
export interface AriQuestion {
  /** core/ari/certId.ts: base64url(AKI keyIdentifier) "." base64url(serial). */
  readonly certId: string;
  /** The leaf's issuer, "C=US, O=Let's Encrypt, CN=R10" (matched by core/ari/ariSettings.ts). */
  readonly issuer: string;
}

/** Why the CA's word could not be had (adapters/ari/ariResponses.ts). */
export interface AriProblem {
  readonly reason: "unreachable" | "refused" | "bad-answer" | "not-offered";
  readonly detail: string;
}

/**
 * What asking the CA about one certificate gave. The adapter narrows why a CertID is missing and
 * what a failure carries (`Reason`, `Failure`); callers of the port see the wide shape.
 */
export type AriAnswer<Reason extends string = string, Failure extends AriProblem = AriProblem> =
  /** No configured CA issued it: nothing was asked. */
  | { readonly kind: "not-configured" }
  /** The certificate has no CertID (no Authority Key Identifier, or unreadable). */
  | { readonly kind: "no-cert-id"; readonly reason: Reason }
  | {
      readonly kind: "window";
      readonly certId: string;
      readonly directoryUrl: string;
      readonly window: RenewalInfo;
      /** When to ask again (Retry-After, clamped); persist it to honour it across processes. */
      readonly nextAskAt: Date;
      /** True when this is the answer kept from before nextAskAt: nothing was sent. */
      readonly cached: boolean;
    }
  | {
      readonly kind: "failed";
      readonly certId: string;
      readonly directoryUrl: string;
      readonly failure: Failure;
      readonly nextAskAt: Date;
      /** True when the CA's earlier failure still holds: nothing was sent. */
      readonly cached: boolean;
    };

export interface Ari {
  ask(question: AriQuestion): Promise<AriAnswer>;
}
