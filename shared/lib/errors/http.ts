import { CertschedError } from "./family.js";

/** An Entra ID caller without the app role an operation needs (403). */
export class ForbiddenError extends CertschedError {
  /** The app role (shared/edge/auth/roles.ts AppRole) the operation needs. */
  readonly requiredRole: string;

  constructor(requiredRole: string, callerName: string) {
    super(
      "FORBIDDEN",
      `the app role ${requiredRole} is required; ${callerName} does not have it (ask an owner of the certsched app registration to assign it)`,
    );
    this.name = "ForbiddenError";
    this.requiredRole = requiredRole;
  }
}

/** A body too large to read; answered 413 without reading the rest. */
export class BodyTooLargeError extends CertschedError {
  /** `maxBytes`: the largest body the edge reads (shared/edge/readBody.ts MAX_BODY_BYTES). */
  constructor(maxBytes: number) {
    super("PAYLOAD_TOO_LARGE", `request body is larger than ${maxBytes} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/** The request's Content-Type is not JSON, or declares a charset other than UTF-8; answered 415. */
export class UnsupportedMediaTypeError extends CertschedError {
  constructor(readonly contentType: string) {
    super("UNSUPPORTED_MEDIA_TYPE", "request body must be application/json, encoded as UTF-8");
    this.name = "UnsupportedMediaTypeError";
  }
}
