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

export type AriAnswer =
  /** No configured CA issued it: nothing was asked. */
  | { readonly kind: "not-configured" }
  | { readonly kind: "no-cert-id"; readonly reason: string }
  | {
      readonly kind: "window";
      readonly certId: string;
      readonly directoryUrl: string;
      readonly window: RenewalInfo;
      readonly nextAskAt: Date;
      readonly cached: boolean;
    }
  | {
      readonly kind: "failed";
      readonly certId: string;
      readonly directoryUrl: string;
      readonly failure: AriProblem;
      readonly nextAskAt: Date;
      readonly cached: boolean;
    };

export interface Ari {
  ask(question: AriQuestion): Promise<AriAnswer>;
}
