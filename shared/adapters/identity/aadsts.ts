/** What the identity provider's error codes mean for the person who has to fix them. */
const MEANINGS: Readonly<Record<number, string>> = {
  7000222:
    "the client secret has expired: create a new one and update CERTSCHED_CLIENT_SECRET or its Key Vault secret",
  7000215:
    "invalid client secret: check CERTSCHED_CLIENT_SECRET or its Key Vault secret (the value, not the secret id)",
  700016:
    "unknown application: check CERTSCHED_CLIENT_ID and that the app is registered in the tenant",
  90002: "unknown tenant: check CERTSCHED_TENANT_ID",
  7000218: "the request carried no client secret",
  500011: "unknown resource: check CERTSCHED_MANAGEMENT_RESOURCE / CERTSCHED_VAULT_RESOURCE",
};

/** Codes that mean the client secret itself is wrong: worth reading it from Key Vault again. */
export const SECRET_REJECTED_CODES: readonly number[] = [7000215, 7000222];

export function aadstsMeaning(code: number | undefined): string | undefined {
  return code === undefined ? undefined : MEANINGS[code];
}

/** The AADSTS code of an error response: error_codes[0], or the number in error_description. */
export function aadstsCode(body: unknown): number | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { error_codes: codes, error_description: description } = body as Record<string, unknown>;
  if (Array.isArray(codes) && typeof codes[0] === "number") return codes[0];
  if (typeof description === "string") {
    const m = /AADSTS(\d+)/.exec(description);
    if (m) return Number(m[1]);
  }
  return undefined;
}
