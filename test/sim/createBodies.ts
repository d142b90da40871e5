/** Valid create bodies for each case of spec 2.1, given the two tokens. */
export function createBodies(management: string, vault: string) {
  const common = {
    rootDomain: "contoso.com",
    email: "admin@contoso.com",
    password: "pfx-password",
    isSAN: false,
    cloudSubscriptionId: "00000000-0000-4000-8000-000000000001",
    accessToken: management,
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
      accessTokenKeyVault: vault,
      keyVaultName: "kv-contoso",
    },
  };
}

export type CreateBodies = ReturnType<typeof createBodies>;
