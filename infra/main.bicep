// certsched on Azure: a Flex Consumption function app with its storage, Key Vault, identity and
// telemetry, in one resource group. `azd up` deploys it with main.parameters.json; so does
// `az deployment group create` (docs/deploy.md).
targetScope = 'resourceGroup'

// ---- Environment --------------------------------------------------------------------------

@description('Name of the azd environment (AZURE_ENV_NAME); part of every resource name.')
@minLength(1)
@maxLength(40)
param environmentName string

@description('Azure region of every resource; it must offer Flex Consumption.')
param location string = resourceGroup().location

@description('Tags applied to every resource.')
param tags object = {}

@description('Object id of the person or pipeline deploying (azd fills in AZURE_PRINCIPAL_ID). Gets Key Vault Secrets Officer on the vault so it can set the two secrets. Empty: no assignment.')
param deployerPrincipalId string = ''

// ---- Hosting ------------------------------------------------------------------------------

@description('Node.js major version of the Functions worker: 24 (default; generally available on Flex Consumption, supported to 2028-04-30) or 22 (supported to 2027-04-30). Node 20 is no longer supported: its support ended 2026-04-30, and azd\'s preprovision hook refuses it (scripts/checkNodeVersion.sh). CI tests both.')
@allowed([
  '22'
  '24'
])
param nodeVersion string = '24'

// Why 100 (docs/deploy.md, "Many accounts: how many instances, how long"): the queue trigger
// sweeps at most 4 account parts at once per instance (host.json batchSize 2 + newBatchThreshold
// 2), and the platform scales it out by queue length, so 100 instances sweep 400 accounts at once:
// a run of a few hundred accounts is one wave. Each part keeps at most
// CERTSCHED_RENEWAL_CONCURRENCY_MAX renewals in flight, so the app's load on the service is at most
// instances x 4 x that; lower this if the vendor's service (shared by your accounts) cannot take it.
@description('Most instances the app may scale out to. Flex Consumption (FC1) accepts 40 to 1000; Azure\'s default is 100. Each instance sweeps at most 4 accounts at once (host.json), so 100 instances sweep 400 accounts at once; the load on the service is at most instances x 4 x the renewal concurrency.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Memory of each instance in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Accept only Entra-authenticated telemetry in Application Insights. Leave false unless certsched\'s OpenTelemetry exporter is given a credential too.')
param appInsightsDisableLocalAuth bool = false

@description('Turn on Key Vault purge protection (irreversible).')
param keyVaultPurgeProtection bool = false

// ---- The service (CERTSCHED_* settings; README "Settings") --------------------------------

@description('CERTSCHED_BASE_URL: {base_url} of the Certificate Scheduling Service, https. Required unless accounts (or accountsFile) declares the accounts; then it must stay empty (each account has its own).')
param baseUrl string = ''

@description('CERTSCHED_PUBLIC_BASE_URL: {public_base_url}. Empty: {base_url}/public.')
param publicBaseUrl string = ''

@description('CERTSCHED_PUBLIC_AUTH: none (the public operations send no Authorization header, as the vendor\'s client does) or api-key (send the API key as Bearer, for a gateway that wants it).')
@allowed([
  'none'
  'api-key'
])
param publicAuth string = 'none'

@description('CERTSCHED_SUBSCRIPTION: subscription value in the v3 paths (portal: Subscription > Details). Needed by create and renew.')
param subscriptionValue string = ''

@description('CERTSCHED_SUBSCRIPTION_ID: subscription id in the public paths. Empty: CERTSCHED_SUBSCRIPTION.')
param subscriptionIdValue string = ''

@description('CERTSCHED_TENANT_ID: directory (tenant) id of the app registration that obtains the cloud tokens. Required in client-secret mode.')
param tenantId string = ''

@description('CERTSCHED_CLIENT_ID: application (client) id of that app registration. Required in client-secret mode.')
param clientId string = ''

@description('CERTSCHED_CLOUD_CREDENTIAL: client-secret (spec 4.6, the app registration) or managed-identity (this app\'s identity obtains the cloud tokens; grant it access instead).')
@allowed([
  'client-secret'
  'managed-identity'
])
param cloudCredential string = 'client-secret'

@description('CERTSCHED_TOKEN_URL: {token_url} of the identity provider. Empty: https://login.microsoftonline.com.')
param tokenUrl string = ''

@description('CERTSCHED_MANAGEMENT_RESOURCE: resource of the management token. Empty: https://management.core.windows.net/.')
param managementResource string = ''

@description('CERTSCHED_VAULT_RESOURCE: resource of the vault token. Empty: https://vault.azure.net.')
param vaultResource string = ''

@description('CERTSCHED_API_KEY_SECRET_NAME: Key Vault secret holding the service API key.')
param apiKeySecretName string = 'certsched-api-key'

@description('CERTSCHED_CLIENT_SECRET_SECRET_NAME: Key Vault secret holding the client secret.')
param clientSecretSecretName string = 'certsched-client-secret'

@description('Service API key, stored as the secret apiKeySecretName. Leave empty and set it after deployment with `az keyvault secret set` (docs/deploy.md); never an app setting.')
@secure()
param apiKey string = ''

@description('Client secret of the app registration, stored as the secret clientSecretSecretName. Leave empty and set it after deployment with `az keyvault secret set` (docs/deploy.md); never an app setting.')
@secure()
param clientSecret string = ''

@description('CERTSCHED_SECRET_CACHE_TTL: how long a secret read from Key Vault is reused, e.g. 10m. Empty: 10m.')
param secretCacheTtl string = ''

@description('CERTSCHED_RENEWAL_SCHEDULE: six-field NCRONTAB schedule of the renewal timer, UTC. With renewal windows declared it must fire inside each of them, e.g. 0 */15 * * * * (the settings refuse one that never does; docs/renewal-windows.md).')
param renewalSchedule string = '0 0 3 * * *'

@description('CERTSCHED_RENEWAL_WINDOWS: when renewals may run, as a JSON array of windows ({"start":"0 9 * * 2-4","duration":"7h","timeZone":"Europe/Berlin"}; docs/renewal-windows.md). Empty: whenever due.')
param renewalWindows string = ''

@description('CERTSCHED_RENEWAL_FREEZES: dated periods in which nothing is renewed (unless an expiry comes first), as a JSON array of {"from","to","reason"}. Empty: none.')
param renewalFreezes string = ''

@description('CERTSCHED_CERTIFICATE_POLICY: per-certificate policy, as a JSON array of {"certificates":["legacy-*"],"policy":"disabled"}. Empty: every certificate is renewed.')
param certificatePolicy string = ''

@description('CERTSCHED_WINDOW_MARGIN: a due certificate that would expire before the next window opens plus this margin is renewed outside its windows, e.g. 3d. Empty: 3d.')
param windowMargin string = ''

@description('CERTSCHED_WINDOW_JITTER: how far into each opening the accounts spread their start, e.g. 30m. Empty: 30m.')
param windowJitter string = ''

@description('CERTSCHED_VERIFY_SCHEDULE: six-field NCRONTAB schedule of the verification timer, UTC.')
param verifySchedule string = '0 0 * * * *'

@description('CERTSCHED_PREFLIGHT_SCHEDULE: six-field NCRONTAB schedule of the preflight timer (will the renewals near their window succeed?), UTC.')
param preflightSchedule string = '0 30 5 * * *'

@description('CERTSCHED_CT_WATCH: watch Certificate Transparency (Cert Spotter) for issuances for the names certsched keeps, true or false.')
@allowed(['true', 'false'])
param ctWatch string = 'false'

@description('CERTSCHED_CT_SCHEDULE: six-field NCRONTAB schedule of the Certificate Transparency timer, UTC.')
param ctSchedule string = '0 17 */4 * * *'

@description('CERTSCHED_CT_URL: base URL of the Certificate Transparency log watcher. Empty: Cert Spotter\'s, https://api.certspotter.com.')
param ctUrl string = ''

@description('CERTSCHED_CT_TIMEOUT: longest wait for one request to the log watcher, e.g. 20s. Empty: 20s.')
param ctTimeout string = ''

@description('CERTSCHED_CT_API_KEY_SECRET_NAME: name of the Cert Spotter API key secret in the Key Vault.')
param ctApiKeySecretName string = 'certsched-ct-api-key'

@description('CERTSCHED_CT_DOMAINS: names watched besides the inventory\'s, as a JSON array of "example.org" or {"name":"host.example.net","subdomains":false}. Empty: none.')
param ctDomains string = ''

@description('CERTSCHED_CT_HOURLY_ALLOWANCE: requests to Cert Spotter per UTC hour, every account together. Empty: 100.')
param ctHourlyAllowance string = ''

@description('CERTSCHED_CT_COMPLETION_WINDOW: how long after certsched sent a request an issuance for its names counts as certsched\'s, e.g. 2d. Empty: 2d.')
param ctCompletionWindow string = ''

@description('CERTSCHED_ACCOUNTS: many accounts in one deployment, as a JSON array of account objects (docs/accounts.md). Empty: one account from the single-account parameters.')
param accounts string = ''

@description('CERTSCHED_ACCOUNTS_FILE: the same JSON in a file deployed with the app (path relative to the app root). Empty: not used.')
param accountsFile string = ''

@description('CERTSCHED_ACCOUNT_CONCURRENCY: accounts one process sweeps at once when runs are not fanned out on the queue, 1..64.')
param accountConcurrency string = '4'

@description('CERTSCHED_DEAD_ACCOUNT_DAYS: days in a row an account\'s credentials are refused before its part of a run says "dead", 1..365.')
param deadAccountDays string = '3'

@description('CERTSCHED_RENEWAL_CONCURRENCY: renewals in flight at once, 1..64.')
param renewalConcurrency string = '8'

@description('CERTSCHED_RENEWAL_CONCURRENCY_MAX: the most adaptive concurrency grows to while the service is healthy, 1..256. Empty: CERTSCHED_RENEWAL_CONCURRENCY.')
param renewalConcurrencyMax string = ''

@description('CERTSCHED_RENEWAL_GRACE: a certificate whose renewal was requested this recently is skipped, e.g. 2h.')
param renewalGrace string = '2h'

@description('CERTSCHED_DRY_RUN: list and decide, renew nothing.')
@allowed([
  'true'
  'false'
])
param dryRun string = 'false'

@description('CERTSCHED_HTTP_TIMEOUT: timeout of each outbound HTTP attempt, e.g. 30s. Empty: 30s.')
param httpTimeout string = ''

@description('CERTSCHED_SCHEDULE_TIMEOUT: timeout of each attempt of a v3 create or renew, 0.1s..200s, e.g. 120s (under the 230 s front end of the HTTP functions). Empty: 120s.')
param scheduleTimeout string = ''

@description('CERTSCHED_SERVICE_QUOTA: the service\'s request budget, <requests>/<window> such as 100/7d; sweeps renew the most urgent within it and defer the rest. Empty: none enforced (requests are still counted).')
param serviceQuota string = ''

@description('CERTSCHED_SWEEP_DEADLINE: how long a sweep may start renewals, from its start, e.g. 9m. Keep it under host.json functionTimeout (10 min). Empty: 9m.')
param sweepDeadline string = ''

@description('CERTSCHED_FUNCTION_TIMEOUT: the timer\'s and the queued runs\' whole run, bookkeeping included, fits in this from the invocation\'s start, e.g. 10m. Keep it equal to host.json functionTimeout. Empty: 10m.')
param functionTimeout string = ''

@description('CERTSCHED_CLAIM_LEASE: how long a sweep\'s claim not yet sent keeps other sweeps away from a certificate, 1s..1h, e.g. 1m. Empty: 1m.')
param claimLease string = ''

@description('CERTSCHED_HISTORY_RETENTION: how long run history rows are kept, e.g. 400d. Empty: 400d.')
param historyRetention string = ''

@description('CERTSCHED_VERIFY_CONNECT_TO: where verification connects instead of DNS, e.g. www.contoso.com=10.0.0.4 (docs/verification.md). Empty: DNS.')
param verifyConnectTo string = ''

@description('CERTSCHED_VERIFY_WARN_DAYS: a served certificate with fewer whole days left is expiring, 1..365. Empty: 14.')
param verifyWarnDays string = ''

@description('CERTSCHED_VERIFY_WINDOW: how long an accepted renewal may take to land before it counts as not landed, e.g. 2h. Empty: 2h.')
param verifyWindow string = ''

@description('CERTSCHED_VERIFY_UNREACHABLE_AFTER: how long an endpoint may stay unreachable before it is an error, e.g. 24h. Empty: 24h.')
param verifyUnreachableAfter string = ''

@description('CERTSCHED_SYNC_WINDOW: how long a Key Vault certificate\'s consumers (App Service, Application Gateway, Front Door) may take to serve its new version before a domain counts as not synced, e.g. 24h. Empty: 24h.')
param syncWindow string = ''

@description('CERTSCHED_EVENT_RECHECK_FIRST: after a Key Vault event announces a new certificate version, how long after the first check its consumers are checked again, 1s..1h, e.g. 1m; each next recheck waits twice as long, at most 1 h, until the sync window ends.')
param eventRecheckFirst string = '1m'

@description('CERTSCHED_ARM_URL: Azure Resource Manager preflight asks about DNS zones and App Service apps (https only). Empty: https://management.azure.com.')
param armUrl string = ''

@description('CERTSCHED_DNS_SERVERS: DNS servers preflight asks for CAA and NS records, host or host:port comma-separated (IPv6 in brackets). Empty: the system\'s resolvers.')
param dnsServers string = ''

@description('CERTSCHED_CA_IDENTIFIERS: CA identifiers a CAA record must allow, comma-separated. Empty: letsencrypt.org.')
param caIdentifiers string = ''

@description('CERTSCHED_PREFLIGHT_DAYS: the preflight timer checks certificates within this many days of the 20-day renewal window, and those in it. Empty: 30.')
param preflightDays string = ''

@description('CERTSCHED_PREFLIGHT_TIMEOUT: the bound of each DNS query, HTTP request and ARM call of preflight, e.g. 5s. Empty: 5s.')
param preflightTimeout string = ''

@description('CERTSCHED_ARI_DIRECTORIES: ACME directories asked for renewal information (RFC 9773), `Issuer Name=https://…/directory` separated by `;`, or none. Empty: Let\'s Encrypt\'s production directory for its certificates.')
param ariDirectories string = ''

@description('CERTSCHED_ARI_TIMEOUT: the bound of each request to a CA\'s ACME directory or renewalInfo, e.g. 10s. Empty: 10s.')
param ariTimeout string = ''

@description('CERTSCHED_WATCH: extra endpoints verification watches that the service does not list, host[:port] comma-separated; vault/certificate=host[:port];host... maps a Key Vault certificate to the domains that serve it. Empty: none.')
param watch string = ''

@description('CERTSCHED_WATCH_CERTIFICATES: certificate names to watch although not due, comma-separated (filled in with Get Certificate). Empty: none.')
param watchCertificates string = ''

@description('CERTSCHED_WEBHOOK_URL: where sweep notifications are posted (Teams workflow, Slack or JSON). Secure: the URL carries its signature. Empty: no notifications.')
@secure()
param webhookUrl string = ''

@description('CERTSCHED_WEBHOOK_FORMAT: auto (from the URL), teams, slack or json.')
@allowed([
  'auto'
  'teams'
  'slack'
  'json'
])
param webhookFormat string = 'auto'

@description('CERTSCHED_NOTIFY_SUCCESS: also notify after sweeps that went well.')
@allowed([
  'true'
  'false'
])
param notifySuccess string = 'false'

// ---- Estate discovery (docs/estate.md) ----------------------------------------------------------

@description('CERTSCHED_ESTATE: the discoverEstate timer finds every certificate the app\'s identity can see (Resource Graph, each readable vault) and reports the ones certsched does not keep, true or false.')
@allowed(['true', 'false'])
param estate string = 'true'

@description('CERTSCHED_ESTATE_SCHEDULE: six-field NCRONTAB schedule of the estate timer, UTC.')
param estateSchedule string = '0 40 5 * * *'

@description('CERTSCHED_ESTATE_EXPIRING_DAYS: an unmanaged certificate expiring within this many days is a gap and alerts once, 1..365. Empty: 30.')
param estateExpiringDays string = ''

@description('CERTSCHED_ESTATE_TIMEOUT: longest wait for one Resource Graph request or one vault\'s listing, e.g. 30s. Empty: 30s.')
param estateTimeout string = ''

@description('Subscription ids the app\'s identity may read for estate discovery (built-in Reader on each, at subscription scope), as a JSON array. Empty: it sees only what its other roles allow.')
param estateSubscriptions array = []

@description('Key Vaults whose certificates estate discovery lists (built-in Key Vault Reader on each: certificate metadata and policies, never a secret), as a JSON array of {"name":"kv-team","resourceGroup":"rg-team"} (same subscription). Empty: none.')
param estateVaults array = []

// ---- Key Vault events (infra/README.md "Key Vault events") -----------------------------------

@description('Key Vaults whose certificate events (new version, near expiry, expired) reach the keyVaultEvents function, as a JSON array of {"name":"kv-certs","resourceGroup":"rg-certs"} (same subscription), with "topicName" when the vault already has an Event Grid system topic (Azure allows one per vault). Empty: none, and nothing is created.')
param eventVaults array = []

@description('true once the app\'s code (with its keyVaultEvents function) is deployed: Event Grid refuses a subscription to a function that does not exist yet. false: the system topics and roles are created, the subscriptions wait; run `azd provision` again after `azd deploy`.')
param keyVaultEventsDeployed bool = false

@description('Delivery attempts of one Key Vault event before Event Grid dead-letters it, 1..30.')
@minValue(1)
@maxValue(30)
param eventMaxDeliveryAttempts int = 30

@description('Minutes Event Grid keeps retrying one Key Vault event before it dead-letters it, 1..1440.')
@minValue(1)
@maxValue(1440)
param eventTimeToLiveInMinutes int = 1440

// ---- Alerts (docs/operations.md "Alerts") -----------------------------------------------------

@description('E-mail address the alerts are sent to. Empty (and no alertWebhookUrl): no action group; the alert rules are deployed but notify nobody, as the output AZURE_ALERTS says.')
param alertEmail string = ''

@description('https URL the alerts are posted to, in the Azure Monitor common alert schema (a Logic App, an incident tool). Secure: such URLs carry their signature. Empty: no webhook receiver.')
@secure()
param alertWebhookUrl string = ''

// ---- Entra ID on the HTTP API (docs/deploy.md "Entra ID"; optional, off by default) ----------

@description('Application (client) id of the Entra ID app registration with the app roles certsched.Reader and certsched.Operator. Empty: App Service Authentication stays off; function keys alone guard the API.')
param entraClientId string = ''

@description('Directory (tenant) id of that app registration. Empty: the tenant of this deployment.')
param entraTenantId string = ''

@description('Comma-separated paths left to function keys alone when Entra ID is on, for service callers that cannot obtain a token, e.g. /api/renewals. Empty: every path needs a token.')
param entraKeyOnlyPaths string = ''

// ---- Names --------------------------------------------------------------------------------

var resourceToken = toLower(uniqueString(subscription().id, resourceGroup().id, environmentName))
var allTags = union(tags, { 'azd-env-name': environmentName })
var serviceName = 'certsched'
// Must match LEDGER_TABLE in shared/adapters/storage/tableLedger.ts (test/infra checks it).
var ledgerTableName = 'certschedrenewals'
// Must match RUN_QUEUE in shared/core/runs/run.ts and the trigger in functions/runQueuedRenewals.ts.
var runQueueName = 'certsched-runs'
var deploymentContainerName = 'app-package'
// Must match RECHECK_QUEUE in shared/core/ports/vaultEvents.ts and functions/recheckVaultConsumers.ts.
var recheckQueueName = 'certsched-vault-rechecks'
// Where Event Grid dead-letters the Key Vault events it could not deliver.
var deadLetterContainerName = 'eventgrid-deadletter'
// The Event Grid trigger, as functions/keyVaultEvents.ts registers it.
var keyVaultEventsFunction = 'keyVaultEvents'

// ---- Resources ----------------------------------------------------------------------------

module identity 'modules/identity.bicep' = {
  name: 'identity'
  params: {
    name: 'id-certsched-${resourceToken}'
    location: location
    tags: allTags
  }
}

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  params: {
    logAnalyticsName: 'log-certsched-${resourceToken}'
    appInsightsName: 'appi-certsched-${resourceToken}'
    location: location
    tags: allTags
    disableLocalAuth: appInsightsDisableLocalAuth
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  params: {
    name: 'stcert${resourceToken}'
    location: location
    tags: allTags
    deploymentContainerName: deploymentContainerName
    ledgerTableName: ledgerTableName
    runQueueName: runQueueName
    recheckQueueName: recheckQueueName
    deadLetterContainerName: deadLetterContainerName
  }
}

module keyVault 'modules/keyVault.bicep' = {
  name: 'keyVault'
  params: {
    name: 'kv-cert-${resourceToken}'
    location: location
    tags: allTags
    enablePurgeProtection: keyVaultPurgeProtection
    apiKeySecretName: apiKeySecretName
    clientSecretSecretName: clientSecretSecretName
    apiKey: apiKey
    clientSecret: clientSecret
  }
}

module access 'modules/access.bicep' = {
  name: 'access'
  params: {
    principalId: identity.outputs.principalId
    keyVaultName: keyVault.outputs.name
    storageAccountName: storage.outputs.name
    appInsightsName: monitoring.outputs.appInsightsName
    deployerPrincipalId: deployerPrincipalId
  }
}

// Every setting shared/app/config/settings.ts reads, plus the timer schedule the host reads. Blank values
// count as unset there, so an empty parameter means "the code's default". Left out on purpose:
// CERTSCHED_API_KEY and CERTSCHED_CLIENT_SECRET (read from Key Vault, never plain settings) and
// the plain AzureWebJobsStorage connection string (identity-based form in functionApp.bicep).
// The single-account service settings (docs/accounts.md): set only when no accounts are declared,
// since the code refuses them beside declared accounts (never a silent merge).
var singleAccountSettings = [
  { name: 'CERTSCHED_BASE_URL', value: baseUrl }
  { name: 'CERTSCHED_PUBLIC_BASE_URL', value: publicBaseUrl }
  { name: 'CERTSCHED_SUBSCRIPTION', value: subscriptionValue }
  { name: 'CERTSCHED_SUBSCRIPTION_ID', value: subscriptionIdValue }
  { name: 'CERTSCHED_TENANT_ID', value: tenantId }
  { name: 'CERTSCHED_CLIENT_ID', value: clientId }
  { name: 'CERTSCHED_TOKEN_URL', value: tokenUrl }
  { name: 'CERTSCHED_MANAGEMENT_RESOURCE', value: managementResource }
  { name: 'CERTSCHED_VAULT_RESOURCE', value: vaultResource }
]

var commonSettings = [
  { name: 'CERTSCHED_PUBLIC_AUTH', value: publicAuth }
  { name: 'CERTSCHED_CLOUD_CREDENTIAL', value: cloudCredential }
  { name: 'CERTSCHED_KEY_VAULT_URL', value: keyVault.outputs.uri }
  { name: 'CERTSCHED_API_KEY_SECRET_NAME', value: apiKeySecretName }
  { name: 'CERTSCHED_CLIENT_SECRET_SECRET_NAME', value: clientSecretSecretName }
  { name: 'CERTSCHED_SECRET_CACHE_TTL', value: secretCacheTtl }
  { name: 'CERTSCHED_RENEWAL_SCHEDULE', value: renewalSchedule }
  { name: 'CERTSCHED_RENEWAL_WINDOWS', value: renewalWindows }
  { name: 'CERTSCHED_RENEWAL_FREEZES', value: renewalFreezes }
  { name: 'CERTSCHED_CERTIFICATE_POLICY', value: certificatePolicy }
  { name: 'CERTSCHED_WINDOW_MARGIN', value: windowMargin }
  { name: 'CERTSCHED_WINDOW_JITTER', value: windowJitter }
  { name: 'CERTSCHED_VERIFY_SCHEDULE', value: verifySchedule }
  { name: 'CERTSCHED_PREFLIGHT_SCHEDULE', value: preflightSchedule }
  { name: 'CERTSCHED_RENEWAL_CONCURRENCY', value: renewalConcurrency }
  { name: 'CERTSCHED_RENEWAL_CONCURRENCY_MAX', value: renewalConcurrencyMax }
  { name: 'CERTSCHED_ACCOUNTS', value: accounts }
  { name: 'CERTSCHED_ACCOUNTS_FILE', value: accountsFile }
  { name: 'CERTSCHED_ACCOUNT_CONCURRENCY', value: accountConcurrency }
  { name: 'CERTSCHED_DEAD_ACCOUNT_DAYS', value: deadAccountDays }
  { name: 'CERTSCHED_RENEWAL_GRACE', value: renewalGrace }
  { name: 'CERTSCHED_DRY_RUN', value: dryRun }
  { name: 'CERTSCHED_HTTP_TIMEOUT', value: httpTimeout }
  { name: 'CERTSCHED_SCHEDULE_TIMEOUT', value: scheduleTimeout }
  { name: 'CERTSCHED_SERVICE_QUOTA', value: serviceQuota }
  { name: 'CERTSCHED_SWEEP_DEADLINE', value: sweepDeadline }
  { name: 'CERTSCHED_FUNCTION_TIMEOUT', value: functionTimeout }
  { name: 'CERTSCHED_CLAIM_LEASE', value: claimLease }
  { name: 'CERTSCHED_HISTORY_RETENTION', value: historyRetention }
  { name: 'CERTSCHED_WEBHOOK_FORMAT', value: webhookFormat }
  { name: 'CERTSCHED_NOTIFY_SUCCESS', value: notifySuccess }
  { name: 'CERTSCHED_VERIFY_CONNECT_TO', value: verifyConnectTo }
  { name: 'CERTSCHED_VERIFY_WARN_DAYS', value: verifyWarnDays }
  { name: 'CERTSCHED_VERIFY_WINDOW', value: verifyWindow }
  { name: 'CERTSCHED_VERIFY_UNREACHABLE_AFTER', value: verifyUnreachableAfter }
  { name: 'CERTSCHED_SYNC_WINDOW', value: syncWindow }
  { name: 'CERTSCHED_EVENT_RECHECK_FIRST', value: eventRecheckFirst }
  { name: 'CERTSCHED_WATCH', value: watch }
  { name: 'CERTSCHED_WATCH_CERTIFICATES', value: watchCertificates }
  { name: 'CERTSCHED_ARM_URL', value: armUrl }
  { name: 'CERTSCHED_DNS_SERVERS', value: dnsServers }
  { name: 'CERTSCHED_CA_IDENTIFIERS', value: caIdentifiers }
  { name: 'CERTSCHED_PREFLIGHT_DAYS', value: preflightDays }
  { name: 'CERTSCHED_PREFLIGHT_TIMEOUT', value: preflightTimeout }
  { name: 'CERTSCHED_ARI_DIRECTORIES', value: ariDirectories }
  { name: 'CERTSCHED_ARI_TIMEOUT', value: ariTimeout }
  { name: 'CERTSCHED_CT_WATCH', value: ctWatch }
  { name: 'CERTSCHED_CT_SCHEDULE', value: ctSchedule }
  { name: 'CERTSCHED_CT_URL', value: ctUrl }
  { name: 'CERTSCHED_CT_TIMEOUT', value: ctTimeout }
  { name: 'CERTSCHED_CT_API_KEY_SECRET_NAME', value: ctApiKeySecretName }
  { name: 'CERTSCHED_CT_DOMAINS', value: ctDomains }
  { name: 'CERTSCHED_CT_HOURLY_ALLOWANCE', value: ctHourlyAllowance }
  { name: 'CERTSCHED_CT_COMPLETION_WINDOW', value: ctCompletionWindow }
  { name: 'CERTSCHED_ESTATE', value: estate }
  { name: 'CERTSCHED_ESTATE_SCHEDULE', value: estateSchedule }
  { name: 'CERTSCHED_ESTATE_EXPIRING_DAYS', value: estateExpiringDays }
  { name: 'CERTSCHED_ESTATE_TIMEOUT', value: estateTimeout }
  // The ledger table through the identity (the plain AzureWebJobsStorage connection string is
  // not set: shared keys are off on the account).
  { name: 'CERTSCHED_LEDGER_TABLE_URI', value: storage.outputs.tableEndpoint }
  // The run queue through the identity: POST /api/renewals sends its runs there (docs/runs.md).
  { name: 'CERTSCHED_QUEUE_URI', value: storage.outputs.queueEndpoint }
]

var accountsDeclared = !empty(accounts) || !empty(accountsFile)
var certschedSettings = concat(accountsDeclared ? [] : singleAccountSettings, commonSettings)

module functionApp 'modules/functionApp.bicep' = {
  name: 'functionApp'
  params: {
    name: 'func-certsched-${resourceToken}'
    planName: 'plan-certsched-${resourceToken}'
    location: location
    tags: allTags
    serviceName: serviceName
    nodeVersion: nodeVersion
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerName: storage.outputs.deploymentContainerName
    appInsightsName: monitoring.outputs.appInsightsName
    appSettings: certschedSettings
    webhookUrl: webhookUrl
    entraClientId: entraClientId
    entraTenantId: entraTenantId
    // Event Grid cannot obtain an Entra token: its trigger's path stays on its system key
    // (eventgrid_extension) when vaults are watched.
    entraKeyOnlyPaths: concat(
      map(filter(split(entraKeyOnlyPaths, ','), p => !empty(trim(p))), p => trim(p)),
      empty(eventVaults) ? [] : ['/runtime/webhooks/eventgrid']
    )
  }
  // The app starts reading its storage and vault at once: let the roles land first.
  dependsOn: [
    access
  ]
}

module alerts 'modules/alerts.bicep' = {
  name: 'alerts'
  params: {
    appInsightsName: monitoring.outputs.appInsightsName
    location: location
    tags: allTags
    nameSuffix: 'certsched-${resourceToken}'
    alertEmail: alertEmail
    alertWebhookUrl: alertWebhookUrl
  }
}

// Key Vault events: per watched vault, in its resource group, the system topic (and the app's
// right to read its certificates); in this group, the topic's right to dead-letter; then the
// subscription to the function once the code is deployed.
var grantCertificateRead = cloudCredential == 'managed-identity' || accountsDeclared

module vaultEventTopics 'modules/vaultEventTopic.bicep' = [
  for v in eventVaults: {
    name: 'vaultEventTopic-${v.name}-${resourceToken}'
    scope: resourceGroup(v.resourceGroup)
    params: {
      vaultName: v.name
      topicName: contains(v, 'topicName') ? v.topicName : 'evgt-certsched-${v.name}'
      tags: allTags
      principalId: identity.outputs.principalId
      grantCertificateRead: grantCertificateRead
    }
  }
]

module vaultEventDeadLetters 'modules/vaultEventDeadLetter.bicep' = [
  for (v, i) in eventVaults: {
    name: 'vaultEventDeadLetter-${v.name}-${resourceToken}'
    params: {
      topicPrincipalId: vaultEventTopics[i].outputs.topicPrincipalId
      vaultId: resourceId(v.resourceGroup, 'Microsoft.KeyVault/vaults', v.name)
      storageAccountName: storage.outputs.name
      deadLetterContainerName: storage.outputs.deadLetterContainerName
    }
  }
]

module vaultEventSubscriptions 'modules/vaultEventSubscription.bicep' = [
  for (v, i) in eventVaults: if (keyVaultEventsDeployed) {
    name: 'vaultEventSubscription-${v.name}-${resourceToken}'
    scope: resourceGroup(v.resourceGroup)
    params: {
      topicName: vaultEventTopics[i].outputs.topicName
      subscriptionName: 'certsched-${resourceToken}'
      functionAppId: functionApp.outputs.id
      functionName: keyVaultEventsFunction
      storageAccountId: resourceId('Microsoft.Storage/storageAccounts', storage.outputs.name)
      deadLetterContainerName: storage.outputs.deadLetterContainerName
      maxDeliveryAttempts: eventMaxDeliveryAttempts
      eventTimeToLiveInMinutes: eventTimeToLiveInMinutes
    }
    dependsOn: [
      vaultEventDeadLetters
    ]
  }
]

// Estate discovery: Reader on each named subscription (Resource Graph sees what its caller may
// read), Key Vault Reader on each named vault (its certificates' metadata and policies). In
// client-secret mode the app registration reads instead: grant it the same roles (docs/deploy.md).
module estateReaders 'modules/estateReader.bicep' = [
  for s in estateSubscriptions: {
    name: 'estateReader-${take(s, 8)}-${resourceToken}'
    scope: subscription(s)
    params: {
      principalId: identity.outputs.principalId
    }
  }
]

module estateVaultReaders 'modules/estateVaultReader.bicep' = [
  for v in estateVaults: {
    name: 'estateVaultReader-${v.name}-${resourceToken}'
    scope: resourceGroup(v.resourceGroup)
    params: {
      vaultName: v.name
      principalId: identity.outputs.principalId
    }
  }
]

// azd stores these in the environment (.azure/<env>/.env); docs/deploy.md uses them.
output AZURE_FUNCTION_APP_NAME string = functionApp.outputs.name
output AZURE_FUNCTION_APP_URL string = 'https://${functionApp.outputs.defaultHostName}'
output AZURE_KEY_VAULT_NAME string = keyVault.outputs.name
output AZURE_KEY_VAULT_ENDPOINT string = keyVault.outputs.uri
output AZURE_STORAGE_ACCOUNT_NAME string = storage.outputs.name
output APPLICATIONINSIGHTS_NAME string = monitoring.outputs.appInsightsName
output AZURE_FUNCTION_APP_IDENTITY_CLIENT_ID string = identity.outputs.clientId
output AZURE_FUNCTION_APP_IDENTITY_PRINCIPAL_ID string = identity.outputs.principalId
// Said plainly, so a deployment without receivers does not pass for one that pages someone.
output AZURE_ALERTS string = alerts.outputs.notice
output AZURE_ENTRA_AUTH string = empty(entraClientId)
  ? 'off: function keys alone guard the HTTP API (set AZURE_ENTRA_CLIENT_ID to turn Entra ID on; docs/deploy.md)'
  : 'on: the HTTP API requires an Entra ID token for api://${entraClientId} with an app role, plus a function key${empty(entraKeyOnlyPaths) ? '' : '; key alone on ${entraKeyOnlyPaths}'}'
output AZURE_VAULT_EVENTS string = empty(eventVaults)
  ? 'off: no vault is watched through Event Grid (set AZURE_EVENT_VAULTS; infra/README.md "Key Vault events")'
  : keyVaultEventsDeployed
      ? 'on: ${length(eventVaults)} vault(s) send their certificate events to ${keyVaultEventsFunction}'
      : 'WAITING: ${length(eventVaults)} system topic(s) created; the subscriptions are created by the next `azd provision` after `azd deploy` (AZURE_KEY_VAULT_EVENTS_DEPLOYED=true)'
