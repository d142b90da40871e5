import type { FailReason } from "./preflight.js";

/**
 * What a person does about each reason (README and docs/operations.md say the same): one line,
 * shown by the CLI, the dashboard, the webhook message and a blocked sweep.
 */
export const PREFLIGHT_ADVICE: Readonly<Record<FailReason, string>> = {
  "caa-forbids":
    'add a CAA record allowing the certificate authority (e.g. 0 issue "letsencrypt.org") at the domain or remove the one that forbids it',
  "dns-zone-missing":
    "create the DNS zone in the resource group the certificate names (dnsZoneResourceGroup), or correct the resource group",
  "dns-not-delegated":
    "point the domain's NS records at the registrar to the Azure DNS zone's name servers",
  "app-missing":
    "restore the App Service app (or slot) the certificate was created for, or create the certificate again for the app that serves the domain",
  "hostname-not-bound":
    "add the domain as a custom domain (host name binding) of the App Service app that serves it",
  "http-challenge-unreachable":
    "make the app answer plain HTTP at /.well-known/acme-challenge/ on port 80 (no HTTPS-only redirect to another host, no firewall)",
  "credentials-refused":
    "renew or correct the app registration's client secret (or the managed identity) certsched uses",
  "role-missing":
    "grant the app registration a role on the resource (e.g. DNS Zone Contributor on the zone, Website Contributor on the app)",
};
