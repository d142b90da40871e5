import type { VerifyStatus } from "./judge.js";

/**
 * What to do about a status, in one sentence for the person who must act (the CLI's cause
 * lines; docs/verification.md says the same at length). Undefined when nothing is to be done.
 */
export function adviceFor(status: VerifyStatus, critical: boolean): string | undefined {
  switch (status) {
    case "unreachable":
      return "Check DNS, the firewall and that the site listens on this port; CERTSCHED_VERIFY_CONNECT_TO says where to connect instead, CERTSCHED_HTTP_TIMEOUT (or --timeout) how long to wait.";
    case "incomplete-chain":
      return "Serve the intermediate certificates with the certificate (the full chain file, or the PFX with its chain), then verify again: most clients do not fetch a missing intermediate. A private CA that issues directly must be in NODE_EXTRA_CA_CERTS where certsched runs.";
    case "weak":
      return "Replace the certificate with one on an RSA key of at least 2048 bits or an EC key of at least P-256, signed with SHA-256 or better (renew it with certsched renew NAME), and bind it.";
    case "too-long":
      return "Browsers refuse a certificate valid longer than the CA/Browser Forum allows on its issue date (398 days, 200 from 2026-03-15, 100 from 2027-03-15, 47 from 2029-03-15): issue a shorter one and bind it.";
    case "untrusted":
      return "Serve the full chain (the certificate and its intermediates) from a CA browsers trust; a private CA must be in NODE_EXTRA_CA_CERTS where certsched runs. A certificate not valid yet (CERT_NOT_YET_VALID) was issued for a later start: serve one valid now, and check the clocks.";
    case "mismatch":
      return "Bind a certificate that names this host (a SAN entry, or a wildcard one label deep) to this host name.";
    case "expired":
      return "Browsers refuse this site now: renew (certsched renew NAME) and make sure the endpoint serves the new certificate.";
    case "not-landed":
      return "The service renewed, but the endpoint still serves the old certificate: update the binding (App Service TLS/SSL settings) or the Key Vault reference, then verify again.";
    case "not-synced":
      return "The vault holds a newer version than this domain serves: re-sync the App Service certificate from Key Vault (or restart the app), or check that the Application Gateway's / Front Door's identity can read the vault; CERTSCHED_SYNC_WINDOW says how long they may take.";
    case "pending":
      return "A renewal was accepted: certsched looks again; it is not-landed if the old certificate is still served after CERTSCHED_VERIFY_WINDOW.";
    case "expiring":
      return critical
        ? "Less than a week left: renew now (certsched renew NAME) rather than wait for the sweep, and verify again."
        : "Renewal is due soon: the sweep renews certificates the service lists as due (certsched due); verify again after it.";
    default:
      return undefined;
  }
}
