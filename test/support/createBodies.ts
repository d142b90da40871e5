/**
 * Valid create requests for each field-set case of spec 2.1, as a caller of certsched sends
 * them (no tokens: certsched injects those). One fixture for every suite, so a rule change is
 * made once. The password is long enough to be scanned for as a secret.
 */
export const CERTIFICATE_PASSWORD = "pfx-password-0001";

const common = {
  rootDomain: "contoso.com",
  email: "admin@contoso.com",
  password: CERTIFICATE_PASSWORD,
  isSAN: false,
  cloudSubscriptionId: "00000000-0000-4000-8000-000000000001",
};

const appService = {
  ...common,
  target: "Cloud App Service",
  cloudAppServicePlanName: "plan",
  cloudAppServicePlanResourceGroup: "rg-plan",
  cloudAppServiceResourceGroup: "rg-app",
  cloudAppServiceName: "contoso-web",
  cloudAppServiceSlotName: "",
};

export function validCreateInputs() {
  return {
    appServiceHttp: { ...appService, certificateName: "app-http", challengeType: "http" },
    appServiceDns: {
      ...appService,
      certificateName: "app-dns",
      challengeType: "dns",
      dnsZoneResourceGroup: "rg-dns",
    },
    appServiceSlot: {
      ...appService,
      certificateName: "app-slot",
      challengeType: "http",
      cloudAppServiceName: "contoso-web/staging",
      cloudAppServiceSlotName: "staging",
    },
    keyVault: {
      ...common,
      certificateName: "kv-dns",
      target: "Cloud Key Vault + DNS",
      challengeType: "dns",
      dnsZoneResourceGroup: "rg-dns",
      keyVaultName: "kv-contoso",
    },
  };
}

export type CreateCase = keyof ReturnType<typeof validCreateInputs>;

/** Valid create bodies for each case of spec 2.1 as sent to the simulator, given the two tokens. */
export function createBodies(management: string, vault: string) {
  const inputs = validCreateInputs();
  return {
    appServiceHttp: { ...inputs.appServiceHttp, accessToken: management },
    appServiceDns: { ...inputs.appServiceDns, accessToken: management },
    appServiceSlot: { ...inputs.appServiceSlot, accessToken: management },
    keyVault: { ...inputs.keyVault, accessToken: management, accessTokenKeyVault: vault },
  };
}

export type CreateBodies = ReturnType<typeof createBodies>;
