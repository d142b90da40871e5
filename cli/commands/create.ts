import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { AccountPorts } from "../../shared/app/services.js";
import {
  type CreateCertificateInput,
  createCertificateInput,
} from "../../shared/core/certificate/createRequest.js";
import { rememberCreated } from "../../shared/core/inventory/fromRecords.js";
import {
  ConfigError,
  ensureError,
  InputError,
  OutcomeUnknownError,
  UsageError,
  ValidationError,
} from "../../shared/lib/errors.js";
import { parseOrThrow } from "../../shared/lib/zodProblems.js";
import { createConfirmed } from "../../shared/usecases/createCertificate.js";
import { declaredAccount, withLedgerlessPorts } from "../accountPorts.js";
import { cliLogger } from "../cliLogger.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import { parseJsonFile } from "../jsonLocation.js";
import { oneLine, wrapToWidth } from "../output/text.js";

const HELP = `Usage: certsched create --file request.json [--account NAME] [--json]

Schedules the creation of a certificate (v3 create). The file holds the create
request of the service's spec (2.1) without accessToken and
accessTokenKeyVault: certsched obtains the cloud access tokens itself and adds
them. The file is checked first: every problem is named (JSON errors by line
and column) and nothing is sent when it is invalid.

Three field sets are valid:
  target "Cloud App Service", challengeType "http": certificateName,
    rootDomain, email, password, isSAN, cloudSubscriptionId,
    cloudAppServicePlanName, cloudAppServicePlanResourceGroup,
    cloudAppServiceResourceGroup, cloudAppServiceName,
    cloudAppServiceSlotName ("" for none)
  target "Cloud App Service", challengeType "dns": the same plus
    dnsZoneResourceGroup
  target "Cloud Key Vault + DNS" (challengeType "dns"): certificateName,
    rootDomain, email, password, isSAN, cloudSubscriptionId,
    dnsZoneResourceGroup, keyVaultName

Options:
  -f, --file PATH  The request file (JSON). Required.
  --account NAME   The account to create it in (certsched accounts); required
                   when more than one account is declared.
  --json           Print one JSON document: { "status" ("scheduled" or
                   "unknown"), "certificateName", "target", "message" }.
  -h, --help       Show this help.

The service may take long to answer: certsched waits CERTSCHED_SCHEDULE_TIMEOUT
(default 120s). Without an answer by then, Get Certificate is asked: if it
shows the certificate, the creation was scheduled; if not, the outcome is
unknown: check with "certsched get <name>" in a few minutes.

Exit codes: 0 creation scheduled; 1 the service or the identity provider
refused or failed, or the outcome is unknown; 2 usage, configuration or an
invalid file (nothing sent).
`;

/** Reads and checks the request file; an InputError names the file and every problem. */
export async function readCreateFile(path: string): Promise<CreateCertificateInput> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : ensureError(error).message;
    throw new InputError(`cannot read the request file ${path}: ${reason}`);
  }
  const parsed = parseJsonFile(text);
  if (!parsed.ok) throw new InputError(`the request file ${path} ${parsed.problem}`);
  const document = parsed.value;
  try {
    return parseOrThrow(createCertificateInput, document, "create request");
  } catch (error) {
    if (error instanceof ValidationError) {
      throw new InputError(`the request file ${path} is invalid; nothing was sent`, error.issues);
    }
    throw error;
  }
}

/** A missing API key is a configuration problem, not a failed call: say so before any call. */
export function requireApiKey(runtime: AccountPorts): void {
  if (runtime.secrets.describe().apiKey === "missing") {
    throw new ConfigError([
      {
        name: "CERTSCHED_API_KEY",
        message:
          "is required for create and renew unless CERTSCHED_KEY_VAULT_URL names the vault that holds it",
      },
    ]);
  }
}

export const createCommand: Command = {
  name: "create",
  help: HELP,
  options: { ...JSON_OPTION, file: { type: "string", short: "f" } },
  // One positional, only to say where it goes: "create request.json" is the common slip.
  maxPositionals: 1,
  run: async (args, io) => {
    const given = args.positionals[0];
    if (given !== undefined) {
      throw new UsageError(
        `unexpected argument "${oneLine(given)}": the request file goes after --file, as in: certsched create --file ${oneLine(given)}`,
        "create",
      );
    }
    const file = args.values.file;
    if (typeof file !== "string" || file === "") {
      throw new UsageError(
        "--file is required: the JSON file that holds the create request",
        "create",
      );
    }
    // Checked before the configuration is even read: an invalid file never costs a call.
    const input = await readCreateFile(resolve(io.cwd, file));
    return withLedgerlessPorts(
      io,
      ["subscription", "apiKey"],
      { args, command: "create" },
      async (runtime) => {
        requireApiKey(runtime);
        const { certificateName, target } = input;
        let status: "scheduled" | "unknown" = "scheduled";
        let message: string;
        try {
          message = (await createConfirmed(runtime.client, input, runtime.now)).message;
          await rememberCreated(runtime, cliLogger(io, { verbose: false }), input); // Watched for verification from now.
        } catch (error) {
          // No answer in time and Get Certificate cannot show it: neither done nor failed. Said
          // as a result, with how to find out, never as "try again" (that could order it twice).
          if (!(error instanceof OutcomeUnknownError)) throw error;
          status = "unknown";
          message = error.message;
        }
        if (args.values.json === true) {
          const document = {
            ...declaredAccount(runtime),
            status,
            certificateName,
            target,
            message,
          };
          io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
        } else {
          const outcome = status === "scheduled" ? "scheduled" : "outcome unknown";
          const line = `Creation of ${oneLine(certificateName)} (${target}) ${outcome}: ${oneLine(message.trim())}`;
          io.stdout.write(`${wrapToWidth(line, io.stdout.columns, "", "  ").join("\n")}\n`);
        }
        return status === "scheduled" ? EXIT.ok : EXIT.failed;
      },
    );
  },
};
