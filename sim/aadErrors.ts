import { randomUUID } from "node:crypto";
import { json, type SimResponse } from "./response.js";

/**
 * Errors of the identity provider's token endpoint, shaped as Entra ID sends them
 * (as its token endpoint answers a bad request): JSON with an AADSTS code in error_description and error_codes.
 */
export type AadError =
  | { code: 90002; tenant: string }
  | { code: 900144; parameter: string }
  | { code: 70003; grantType: string }
  | { code: 700016; clientId: string; tenant: string }
  | { code: 7000218 }
  | { code: 7000215; clientId: string }
  | { code: 7000222; clientId: string }
  | { code: 500011; resource: string; tenant: string };

function describe(error: AadError): { status: number; error: string; text: string } {
  switch (error.code) {
    case 90002:
      return {
        status: 400,
        error: "invalid_request",
        text: `Tenant '${error.tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
      };
    case 900144:
      return {
        status: 400,
        error: "invalid_request",
        text: `The request body must contain the following parameter: '${error.parameter}'.`,
      };
    case 70003:
      return {
        status: 400,
        error: "unsupported_grant_type",
        text: `The app requested an unsupported grant type '${error.grantType}'.`,
      };
    case 700016:
      return {
        status: 400,
        error: "unauthorized_client",
        text: `Application with identifier '${error.clientId}' was not found in the directory '${error.tenant}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.`,
      };
    case 7000218:
      return {
        status: 401,
        error: "invalid_client",
        text: "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
      };
    case 7000215:
      return {
        status: 401,
        error: "invalid_client",
        text: `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${error.clientId}'.`,
      };
    case 7000222:
      return {
        status: 401,
        error: "invalid_client",
        text: `The provided client secret keys for app '${error.clientId}' are expired. Visit the Azure portal to create new keys for your app: https://aka.ms/NewClientSecret, or consider using certificate credentials for added security: https://aka.ms/certCreds`,
      };
    case 500011:
      return {
        status: 400,
        error: "invalid_resource",
        text: `The resource principal named ${error.resource} was not found in the tenant named ${error.tenant}. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant.`,
      };
  }
}

export function aadErrorResponse(error: AadError, now: Date): SimResponse {
  const { status, error: kind, text } = describe(error);
  const traceId = randomUUID();
  const correlationId = randomUUID();
  // Entra's timestamp style: "2024-01-09 12:34:56Z".
  const timestamp = `${now.toISOString().slice(0, 19).replace("T", " ")}Z`;
  return json(status, {
    error: kind,
    error_description: `AADSTS${error.code}: ${text}\r\nTrace ID: ${traceId}\r\nCorrelation ID: ${correlationId}\r\nTimestamp: ${timestamp}`,
    error_codes: [error.code],
    timestamp,
    trace_id: traceId,
    correlation_id: correlationId,
    error_uri: `https://login.microsoftonline.com/error?code=${error.code}`,
  });
}
