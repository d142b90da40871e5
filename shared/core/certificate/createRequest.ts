import { z } from "zod";
import {
  APP_SERVICE,
  KEY_VAULT,
  requiredBoolean,
  requiredMaybeEmptyText,
  requiredText,
} from "./fields.js";

/*
 * The create request (spec 2.1) as callers send it to certsched: without accessToken and
 * accessTokenKeyVault, which certsched obtains itself. Three field sets are valid, one schema
 * each, strict so a field from another case is named and refused rather than forwarded:
 *   App Service + http: common + the five cloudAppService* fields
 *   App Service + dns:  as above + dnsZoneResourceGroup
 *   Key Vault + DNS:    common (challengeType dns) + dnsZoneResourceGroup + keyVaultName
 */

const common = {
  certificateName: requiredText(),
  rootDomain: requiredText(),
  email: requiredText().pipe(z.email({ error: "must be an e-mail address" })),
  password: requiredText(),
  isSAN: requiredBoolean(),
  cloudSubscriptionId: requiredText(),
};

const appServiceFields = {
  target: z.literal(APP_SERVICE),
  cloudAppServicePlanName: requiredText(),
  cloudAppServicePlanResourceGroup: requiredText(),
  cloudAppServiceResourceGroup: requiredText(),
  cloudAppServiceName: requiredText(),
  cloudAppServiceSlotName: requiredMaybeEmptyText(),
};

/** An app in a slot is named sitename/slotname; without a slot the name has no "/" (spec 2.1). */
function slotMatchesName(
  value: { cloudAppServiceName: string; cloudAppServiceSlotName: string },
  ctx: z.RefinementCtx,
): void {
  const { cloudAppServiceName: name, cloudAppServiceSlotName: slot } = value;
  if (slot === "") {
    if (name.includes("/")) {
      ctx.addIssue({
        code: "custom",
        path: ["cloudAppServiceName"],
        message: 'must not contain "/" when cloudAppServiceSlotName is "" (no slot)',
      });
    }
    return;
  }
  const parts = name.split("/");
  if (parts.length !== 2 || parts[0] === "" || parts[1] !== slot) {
    ctx.addIssue({
      code: "custom",
      path: ["cloudAppServiceName"],
      message: `must be "sitename/${slot}" for an app in slot "${slot}"`,
    });
  }
}

export const appServiceHttpInput = z
  .strictObject({ ...common, ...appServiceFields, challengeType: z.literal("http") })
  .superRefine(slotMatchesName);

export const appServiceDnsInput = z
  .strictObject({
    ...common,
    ...appServiceFields,
    challengeType: z.literal("dns"),
    dnsZoneResourceGroup: requiredText(),
  })
  .superRefine(slotMatchesName);

export const keyVaultInput = z.strictObject({
  ...common,
  target: z.literal(KEY_VAULT),
  challengeType: z.literal("dns", {
    error: `must be "dns": target "${KEY_VAULT}" proves ownership through DNS only`,
  }),
  dnsZoneResourceGroup: requiredText(),
  keyVaultName: requiredText(),
});

const appServiceInput = z.discriminatedUnion(
  "challengeType",
  [appServiceHttpInput, appServiceDnsInput],
  { error: 'must be "http" or "dns"' },
);

/** A create request as a caller of certsched sends it: the three field-set cases of 2.1. */
export const createCertificateInput = z.discriminatedUnion(
  "target",
  [appServiceInput, keyVaultInput],
  { error: `must be "${APP_SERVICE}" or "${KEY_VAULT}"` },
);
export type CreateCertificateInput = z.infer<typeof createCertificateInput>;

/** The create request as it goes on the wire: the input plus the tokens (spec 2.1). */
export type CreateCertificateRequest =
  | (Extract<CreateCertificateInput, { target: typeof APP_SERVICE }> & { accessToken: string })
  | (Extract<CreateCertificateInput, { target: typeof KEY_VAULT }> & {
      accessToken: string;
      accessTokenKeyVault: string;
    });
