import type { TokenCredential } from "@azure/identity";
import type { z } from "zod";
import type { EstateCertificate, EstateProblem } from "../../core/estate/estate.js";
import type { GraphFindings, ResourceGraph, VaultRef } from "../../core/ports/estate.js";
import { registerSecret } from "../../lib/redact/redact.js";
import { frontDoorSecretRow, frontDoorSecrets, withFrontDoorSecret } from "./frontDoorSecrets.js";
import {
  frontDoorCertificate,
  frontDoorRow,
  gatewayCertificates,
  gatewayRow,
} from "./gatewayRows.js";
import {
  type GraphPagesOptions,
  MAX_ROWS_PER_RUN,
  queryAllPages,
  type RowBudget,
} from "./graphPages.js";
import {
  APP_SERVICE_CERTIFICATES,
  APPLICATION_GATEWAYS,
  FRONT_DOOR_DOMAINS,
  FRONT_DOOR_SECRETS,
  KEY_VAULTS,
  SITE_BINDINGS,
} from "./graphQueries.js";
import {
  appServiceCertificate,
  bindingRow,
  bindingsByThumbprint,
  certificateRow,
  vaultOf,
  vaultRow,
} from "./graphRows.js";

export interface ResourceGraphClientOptions extends Omit<GraphPagesOptions, "token"> {
  /** The account's management token (adapters/identity/tokenCredential.ts). */
  readonly credential: TokenCredential;
  /** The resource its tokens are for (e.g. https://management.core.windows.net/); default armUrl. */
  readonly resource?: string | undefined;
  readonly maxRows?: number | undefined;
}

/** Resource Graph across every subscription the account's identity may read. */
export function createResourceGraphClient(options: ResourceGraphClientOptions): ResourceGraph {
  const scope = `${(options.resource ?? options.armUrl).replace(/\/+$/, "")}/.default`;
  const pages: GraphPagesOptions = {
    ...options,
    token: async () => {
      const token = await options.credential.getToken(scope);
      if (!token) throw new Error("no management token was given");
      // Registered on every use: an upstream that echoes it back is cleaned of it (redact).
      registerSecret(token.token);
      return token.token;
    },
  };
  return { findings: (signal) => findings(pages, options.maxRows ?? MAX_ROWS_PER_RUN, signal) };
}

async function findings(
  options: GraphPagesOptions,
  maxRows: number,
  signal: AbortSignal | undefined,
): Promise<GraphFindings> {
  const budget: RowBudget = { left: maxRows };
  const problems: EstateProblem[] = [];
  let truncated = 0;
  const read = async <T>(label: string, query: string, schema: z.ZodType<T>): Promise<T[]> => {
    const answer = await queryAllPages(label, query, budget, options, signal);
    problems.push(...answer.problems);
    truncated += answer.truncated;
    return answer.rows.flatMap((row) => {
      const parsed = schema.safeParse(row);
      if (parsed.success) return [parsed.data];
      truncated++;
      return [];
    });
  };
  // One at a time: the per-user quota is shared by them all.
  const vaults: VaultRef[] = (await read("Key Vaults", KEY_VAULTS, vaultRow)).map(vaultOf);
  const sites = await read("site bindings", SITE_BINDINGS, bindingRow);
  const bindings = bindingsByThumbprint(sites);
  const domains = await read("Front Door domains", FRONT_DOOR_DOMAINS, frontDoorRow);
  // Only when a domain brings its own certificate: most estates have none, and each query counts.
  const secrets = frontDoorSecrets(
    domains.some((d) => d.secretId)
      ? await read("Front Door secrets", FRONT_DOOR_SECRETS, frontDoorSecretRow)
      : [],
  );
  const certificates: EstateCertificate[] = [
    ...(await read("App Service certificates", APP_SERVICE_CERTIFICATES, certificateRow)).map((r) =>
      appServiceCertificate(r, bindings),
    ),
    ...(await read("Application Gateways", APPLICATION_GATEWAYS, gatewayRow)).flatMap(
      gatewayCertificates,
    ),
    ...domains.map((d) => withFrontDoorSecret(frontDoorCertificate(d), d.secretId, secrets)),
  ];
  return { certificates, vaults, problems, truncated };
}
