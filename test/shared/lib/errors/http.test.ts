import { describe, expect, it } from "vitest";
import { CertschedError } from "../../../../shared/lib/errors/family.js";
import {
  BodyTooLargeError,
  ForbiddenError,
  UnsupportedMediaTypeError,
} from "../../../../shared/lib/errors/http.js";

describe("ForbiddenError", () => {
  it("names the role, the caller and who can assign it", () => {
    const error = new ForbiddenError("Certificates.Renew", "Ops Bot");
    expect(error).toBeInstanceOf(CertschedError);
    expect(error).toMatchObject({
      name: "ForbiddenError",
      code: "FORBIDDEN",
      fault: "caller",
      retriable: false,
      requiredRole: "Certificates.Renew",
    });
    expect(error.message).toBe(
      "the app role Certificates.Renew is required; Ops Bot does not have it (ask an owner of the certsched app registration to assign it)",
    );
  });
});

describe("BodyTooLargeError", () => {
  it("is PAYLOAD_TOO_LARGE naming the limit", () => {
    expect(new BodyTooLargeError(65536)).toMatchObject({
      name: "BodyTooLargeError",
      code: "PAYLOAD_TOO_LARGE",
      fault: "caller",
      message: "request body is larger than 65536 bytes",
    });
  });
});

describe("UnsupportedMediaTypeError", () => {
  it("is UNSUPPORTED_MEDIA_TYPE, keeping the type it was sent (not in the message)", () => {
    const error = new UnsupportedMediaTypeError("text/plain; charset=latin1");
    expect(error).toMatchObject({
      name: "UnsupportedMediaTypeError",
      code: "UNSUPPORTED_MEDIA_TYPE",
      fault: "caller",
      contentType: "text/plain; charset=latin1",
      message: "request body must be application/json, encoded as UTF-8",
    });
  });
});
