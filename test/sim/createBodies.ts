import { validCreateInputs } from "../support/createBodies.js";

/** Valid create bodies for each case of spec 2.1, given the two tokens. */
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
