/**
 * Contract simulator of the Certificate Scheduling Service (docs/service-interface.md) and of the
 * identity provider's token endpoint, for tests, the benchmark and the operator sandbox.
 */

export {
  type AcmeFault,
  type AcmeFaultTarget,
  type AcmeOptions,
  type AcmeRequest,
  type AcmeSimulator,
  type AcmeWindow,
  startAcme,
} from "./acme/acmeServer.js";
export {
  appServiceCertificateRow,
  frontDoorRows,
  GRAPH_TYPES,
  type GraphFault,
  type GraphRow,
  gatewayRow,
  type SeedAppServiceCertificate,
  type SeedFrontDoorDomain,
  type SeedGateway,
  type SeedSite,
  type SeedSslBinding,
  type SeedVault,
  siteRow,
  vaultRow,
} from "./arm/armEstate.js";
export {
  type ArmEstate,
  GRAPH_PATH,
  type GraphAnswer,
  queriedTypes,
  quotaSpan,
} from "./arm/armGraph.js";
export {
  HOSTILE_DATES,
  HOSTILE_NAME,
  HOSTILE_THUMBPRINT,
  HOSTILE_THUMBPRINTS,
  hostileEstateRows,
  hugeRow,
  manyCertificateRows,
} from "./arm/armHostile.js";
export {
  type ArmOptions,
  type ArmRequest,
  type ArmSimulator,
  startArm,
} from "./arm/armServer.js";
export {
  ARM_FAULTS,
  type ArmFault,
  type ArmSite,
  type ArmSlot,
  type ArmZone,
  siteId,
  sitesListPath,
  zoneId,
} from "./arm/armState.js";
export type {
  CertificateTarget,
  ChallengeType,
  DownloadUrl,
  RecordTarget,
  Renewal,
  SeedCertificate,
  SimCertificate,
} from "./certificate.js";
export {
  type SimDnsQuery,
  type SimDnsServer,
  type SimDnsServerOptions,
  startDnsServer,
} from "./dns/dnsServer.js";
export {
  MAX_CNAME_CHAIN,
  type SimDnsMode,
  type SimDnsRecord,
  type SimDnsType,
} from "./dns/dnsZone.js";
export type { Fault, RandomFaults } from "./faults.js";
export { type CertificateRecord, formatServiceDate, toCertificateRecord } from "./format.js";
export {
  CHALLENGE_BEHAVIOURS,
  CHALLENGE_OTHER_HOST,
  type ChallengeAnswerSpec,
  type ChallengeBehaviour,
  type ChallengeBehaviourName,
  type ChallengeRequest,
  type HostingChallenge,
  TLS_ALERT,
} from "./hosting/challengeServer.js";
export type {
  Hosting,
  HostingOptions,
  HostingVault,
  HostingVaultVersion,
  VaultRequest,
} from "./hosting/hosting.js";
export { HOSTING_CA_NAME } from "./hosting/hostingCa.js";
export { HOSTING_FAULTS, type HostingFault, WRONG_NAME } from "./hosting/hostingFaults.js";
export {
  SIM_EVENT_RESOURCE_GROUP,
  SIM_EVENT_SUBSCRIPTION,
  type VaultEventDelivery,
  type VaultEventsOptions,
} from "./hosting/vaultEvents.js";
export type { ForeignCertificate, VaultEstate } from "./hosting/vaultList.js";
export type { SimOperation } from "./operation.js";
export type { ResolvedSimulatorOptions, SimulatorOptions } from "./options.js";
export { meanInFlight, type RateLimitOptions, type RateLimitStats } from "./rateLimit.js";
export {
  SAMPLE_CAA_FORBIDDEN,
  SAMPLE_MISSING_ZONE_GROUP,
  SAMPLE_NOT_LANDED,
  SAMPLE_REFUSAL,
  sampleCertificates,
} from "./sampleCertificates.js";
export { SANDBOX_CREDENTIALS, sandboxSettings } from "./sandbox.js";
export {
  SANDBOX_ESTATE_SUBSCRIPTION,
  SANDBOX_ESTATE_UNBOUND,
  SANDBOX_ESTATE_UNMANAGED,
  type SandboxEstateOptions,
  seedSandboxEstate,
  standInThumbprint,
} from "./sandboxEstate.js";
export {
  SANDBOX_NAME_SERVERS,
  SANDBOX_OTHER_CA,
  type SandboxPreflight,
  startSandboxPreflight,
} from "./sandboxPreflight.js";
export { startSimulator } from "./server.js";
export type { RecordedRequest, Simulator } from "./simulator.js";
export type { CertificateRenewed, RenewedListener } from "./state.js";
export {
  type CertSpotterFault,
  type CertSpotterFaultKind,
  HOSTILE_ISSUER,
  HOSTILE_NAMES,
} from "./transparency/certSpotterFaults.js";
export {
  type CertSpotterOptions,
  type CertSpotterRequest,
  type CertSpotterSimulator,
  startCertSpotter,
} from "./transparency/certSpotterServer.js";
export {
  asPrecertificate,
  type CertSpotterIssuer,
  type IssuanceSeed,
  issuanceFromCertificate,
  precertificateDer,
  pubkeySha256,
  type StoredIssuance,
  tbsSha256,
} from "./transparency/issuances.js";
export {
  readServedCertificate,
  SANDBOX_CT_RENEWED,
  SANDBOX_CT_STRAY,
  type SandboxIssuances,
  type SandboxIssuancesInput,
  sandboxIssuances,
} from "./transparency/sandboxIssuances.js";
export { type CreateValidation, validateCreateRequest } from "./validateCreate.js";
