import {
  APP_SERVICE_TARGET,
  type CertificateTarget,
  type ChallengeType,
  KEY_VAULT_TARGET,
} from "./certificate.js";

/** A create request (spec 2.1) that passed validation. */
export interface CreateRequest {
  certificateName: string;
  rootDomain: string;
  challengeType: ChallengeType;
  email: string;
  password: string;
  target: CertificateTarget;
  isSAN: boolean;
  cloudSubscriptionId: string;
  accessToken: string;
  dnsZoneResourceGroup?: string;
  cloudAppServicePlanName?: string;
  cloudAppServicePlanResourceGroup?: string;
  cloudAppServiceResourceGroup?: string;
  cloudAppServiceName?: string;
  cloudAppServiceSlotName?: string;
  accessTokenKeyVault?: string;
  keyVaultName?: string;
}

export type CreateValidation =
  | { ok: true; request: CreateRequest }
  | { ok: false; message: string };

/** Spec 7 rule 2: the service's wording when the name is missing. */
export const NAME_NOT_DEFINED = "Certificate name is not defined";

const COMMON_STRINGS = [
  "rootDomain",
  "email",
  "password",
  "cloudSubscriptionId",
  "accessToken",
] as const;
const APP_SERVICE_FIELDS = [
  "cloudAppServicePlanName",
  "cloudAppServicePlanResourceGroup",
  "cloudAppServiceResourceGroup",
  "cloudAppServiceName",
] as const;
const SLOT_FIELD = "cloudAppServiceSlotName";
const KEY_VAULT_FIELDS = ["accessTokenKeyVault", "keyVaultName"] as const;

/**
 * Checks a create body against the field sets of spec 2.1, written from the spec text alone so it
 * can catch a client that shares a misreading with our own request builder. Unknown extra fields
 * are ignored. The first violation is reported, naming its field.
 */
export function validateCreateRequest(body: Record<string, unknown>): CreateValidation {
  const name = body.certificateName;
  if (typeof name !== "string" || name === "") return fail(NAME_NOT_DEFINED);
  for (const field of COMMON_STRINGS) {
    const problem = requireString(body, field);
    if (problem) return fail(problem);
  }
  const { challengeType, target, isSAN } = body;
  if (challengeType !== "http" && challengeType !== "dns") {
    return fail("challengeType must be 'http' or 'dns'");
  }
  if (target !== APP_SERVICE_TARGET && target !== KEY_VAULT_TARGET) {
    return fail(`target must be '${APP_SERVICE_TARGET}' or '${KEY_VAULT_TARGET}'`);
  }
  if (typeof isSAN !== "boolean") return fail("isSAN must be a boolean");

  const problem =
    target === APP_SERVICE_TARGET
      ? checkAppService(body, challengeType)
      : checkKeyVault(body, challengeType);
  if (problem) return fail(problem);
  return { ok: true, request: body as unknown as CreateRequest };
}

function checkAppService(body: Record<string, unknown>, challenge: ChallengeType) {
  for (const field of [
    ...APP_SERVICE_FIELDS,
    ...(challenge === "dns" ? ["dnsZoneResourceGroup"] : []),
  ]) {
    const problem = requireString(body, field);
    if (problem) return problem;
  }
  const slot = body[SLOT_FIELD];
  if (typeof slot !== "string")
    return `${SLOT_FIELD} is required (empty string when there is no slot)`;
  if (challenge === "http" && body.dnsZoneResourceGroup !== undefined) {
    return `dnsZoneResourceGroup is not allowed for target '${APP_SERVICE_TARGET}' with challengeType 'http'`;
  }
  for (const field of [...KEY_VAULT_FIELDS]) {
    if (body[field] !== undefined)
      return `${field} is not allowed for target '${APP_SERVICE_TARGET}'`;
  }
  return checkSlotNaming(String(body.cloudAppServiceName), slot);
}

// Spec 2.1: an app in a slot is named "sitename/slotname"; without a slot there is no "/".
function checkSlotNaming(appName: string, slot: string): string | undefined {
  if (slot === "") {
    return appName.includes("/")
      ? `cloudAppServiceName must not contain '/' when ${SLOT_FIELD} is empty`
      : undefined;
  }
  const parts = appName.split("/");
  if (parts.length !== 2 || parts[0] === "" || parts[1] !== slot) {
    return `cloudAppServiceName must be 'sitename/${slot}' when ${SLOT_FIELD} is '${slot}'`;
  }
  return undefined;
}

function checkKeyVault(body: Record<string, unknown>, challenge: ChallengeType) {
  if (challenge !== "dns") return `challengeType must be 'dns' for target '${KEY_VAULT_TARGET}'`;
  for (const field of ["dnsZoneResourceGroup", ...KEY_VAULT_FIELDS]) {
    const problem = requireString(body, field);
    if (problem) return problem;
  }
  for (const field of [...APP_SERVICE_FIELDS, SLOT_FIELD]) {
    if (body[field] !== undefined)
      return `${field} is not allowed for target '${KEY_VAULT_TARGET}'`;
  }
  return undefined;
}

function requireString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return `${field} is required`;
  if (typeof value !== "string") return `${field} must be a string`;
  if (value === "") return `${field} must not be empty`;
  return undefined;
}

function fail(message: string): CreateValidation {
  return { ok: false, message };
}
