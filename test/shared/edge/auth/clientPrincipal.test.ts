import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { authorize } from "../../../../shared/edge/auth/authorize.js";
import { callerOf, easyAuthEnabled } from "../../../../shared/edge/auth/callerOf.js";
import { parseClientPrincipal } from "../../../../shared/edge/auth/clientPrincipal.js";
import { hasRole, OPERATOR, READER } from "../../../../shared/edge/auth/roles.js";
import { ForbiddenError, ValidationError } from "../../../../shared/lib/errors.js";
import { propertyRuns } from "../../../support/fastCheck.js";
import { httpRequest } from "../../../support/invoke.js";
import {
  EASY_AUTH_ON,
  encodePrincipal,
  invalidUtf8Principal,
  NAME_URI,
  OID,
  principalHeader,
  principalJson,
  ROLE_URI,
} from "../../../support/principals.js";

function request(header?: string) {
  return httpRequest({
    method: "GET",
    path: "certificates/due",
    headers: header === undefined ? {} : { "x-ms-client-principal": header },
  });
}

/** The ValidationError a call throws (fails the test when it throws nothing or anything else). */
function validationErrorOf(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error("expected a ValidationError, got none");
}

/** A valid header whose last character carries bits past the data (Buffer ignores them). */
function nonCanonical(): string {
  // Pad the JSON until its byte length leaves one byte over: "xx==", four unused bits.
  let json = principalJson({ id: "oid-canonical", roles: [OPERATOR] });
  let header = encodePrincipal(json);
  for (let pad = ""; !header.endsWith("=="); pad += " ") {
    json = { ...json, pad };
    header = encodePrincipal(json);
  }
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const last = header.at(-3) as string;
  const stray = alphabet[alphabet.indexOf(last) | 1] as string;
  return `${header.slice(0, -3)}${stray}==`;
}

/** A header with one "=" where its length calls for two ("xx=" instead of "xx=="). */
function unpaddedQuantum(): string {
  let json = principalJson({ id: "oid-quantum", roles: [OPERATOR] });
  let header = encodePrincipal(json);
  for (let pad = ""; !header.endsWith("=="); pad += " ") {
    json = { ...json, pad };
    header = encodePrincipal(json);
  }
  return header.slice(0, -1);
}

describe("parseClientPrincipal", () => {
  it("reads the object id, the name of name_typ and every role of role_typ", () => {
    const principal = parseClientPrincipal(
      principalHeader({ id: "oid-1", name: "ada@contoso.com", roles: [READER, OPERATOR] }),
    );
    expect(principal).toEqual({
      authType: "aad",
      id: "oid-1",
      name: "ada@contoso.com",
      roles: [READER, OPERATOR],
    });
  });

  it("reads roles under the URI claim type and the short oid, without role_typ", () => {
    const principal = parseClientPrincipal(
      encodePrincipal({
        auth_typ: "aad",
        claims: [
          { typ: "oid", val: "oid-2" },
          { typ: ROLE_URI, val: OPERATOR },
          { typ: "appid", val: "11111111-2222-3333-4444-555555555555" },
        ],
      }),
    );
    // A service principal (client credentials) has no name claim: its application id names it.
    expect(principal).toEqual({
      authType: "aad",
      id: "oid-2",
      name: "11111111-2222-3333-4444-555555555555",
      roles: [OPERATOR],
    });
  });

  it("lists a role carried twice once, and falls back to the object id for a name", () => {
    const json = principalJson({ id: "oid-3", roles: [READER, READER] });
    expect(parseClientPrincipal(encodePrincipal(json))).toEqual({
      authType: "aad",
      id: "oid-3",
      name: "oid-3",
      roles: [READER],
    });
  });

  it("prefers the claim type the platform names in name_typ", () => {
    const json = {
      auth_typ: "aad",
      claims: [
        { typ: OID, val: "oid-4" },
        { typ: "name", val: "Display Name" },
        { typ: NAME_URI, val: "upn@contoso.com" },
      ],
      name_typ: NAME_URI,
    };
    expect(parseClientPrincipal(encodePrincipal(json)).name).toBe("upn@contoso.com");
  });

  it.each([
    ["empty", "", "must be base64"],
    ["not base64", "not base64!", "must be base64"],
    [
      "two headers joined by the host",
      `${principalHeader()}, ${principalHeader()}`,
      "must be base64",
    ],
    ["base64 of text", Buffer.from("hello").toString("base64"), "must be base64-encoded JSON"],
    ["base64 of a JSON string", encodePrincipal("aad"), "must be a JSON object with auth_typ"],
    ["no claims", encodePrincipal({ auth_typ: "aad" }), "must be a JSON object with auth_typ"],
    [
      "a claim without val",
      encodePrincipal({ auth_typ: "aad", claims: [{ typ: OID }] }),
      "must be a JSON object with auth_typ",
    ],
    [
      "no object id",
      encodePrincipal({ auth_typ: "aad", claims: [{ typ: "roles", val: OPERATOR }] }),
      "must carry an object id claim (oid)",
    ],
    ["far too long", "A".repeat(64 * 1024 + 4), "must be at most 65536 characters"],
    [
      "invalid UTF-8 (a lone 0xFF byte in a claim)",
      invalidUtf8Principal(),
      "must be base64-encoded UTF-8 JSON",
    ],
    [
      "invalid UTF-8 (a truncated sequence)",
      invalidUtf8Principal([0xe2, 0x82]),
      "must be base64-encoded UTF-8 JSON",
    ],
    [
      "an encoded surrogate (CESU-8)",
      invalidUtf8Principal([0xed, 0xa0, 0x80]),
      "must be base64-encoded UTF-8 JSON",
    ],
    ["base64 with stray bits in its last character", nonCanonical(), "must be base64"],
    ["padding where no padding belongs", `${principalHeader()}=`, "must be base64"],
    ["padding short of a whole quantum", unpaddedQuantum(), "must be base64"],
  ])("refuses %s with a ValidationError naming the header and the rule", (_, header, rule) => {
    const error = validationErrorOf(() => parseClientPrincipal(header));
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.issues).toEqual([
      { name: "x-ms-client-principal", message: expect.stringContaining(rule) },
    ]);
  });

  it("accepts non-ASCII bytes in a claim exactly when they are UTF-8, and reads them as sent", () => {
    fc.assert(
      fc.property(fc.uint8Array({ min: 0x80, max: 0xff, maxLength: 12 }), (bytes) => {
        const header = invalidUtf8Principal([...bytes]);
        // Valid UTF-8 is what survives a round trip: Buffer writes U+FFFD for anything else.
        const text = Buffer.from(bytes).toString("utf8");
        if (Buffer.from(text, "utf8").equals(Buffer.from(bytes))) {
          expect(parseClientPrincipal(header).name).toBe(`ada${text}`);
        } else {
          expect(validationErrorOf(() => parseClientPrincipal(header)).issues).toEqual([
            { name: "x-ms-client-principal", message: "must be base64-encoded UTF-8 JSON" },
          ]);
        }
      }),
      { numRuns: propertyRuns(1000) },
    );
  });

  it("never quotes the header in its error", () => {
    const forged = encodePrincipal({ auth_typ: "aad", claims: [{ typ: "roles", val: "s3cr3t" }] });
    const error = validationErrorOf(() => parseClientPrincipal(forged));
    expect(error.message).not.toContain(forged);
    expect(error.message).not.toContain("s3cr3t");
  });

  it("answers any header with a principal or a ValidationError, never another failure", () => {
    const header = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.base64String(),
      fc.json().map((text) => Buffer.from(text).toString("base64")),
      fc
        .record({
          auth_typ: fc.oneof(fc.string(), fc.integer()),
          claims: fc.array(
            fc.record({ typ: fc.constantFrom(OID, "oid", "roles", "name"), val: fc.string() }),
          ),
        })
        .map(encodePrincipal),
    );
    fc.assert(
      fc.property(header, (value) => {
        try {
          const principal = parseClientPrincipal(value);
          expect(principal.id.trim()).not.toBe("");
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe("hasRole", () => {
  it.each([
    [[], READER, false],
    [[], OPERATOR, false],
    [[READER], READER, true],
    [[READER], OPERATOR, false],
    [[OPERATOR], READER, true],
    [[OPERATOR], OPERATOR, true],
    // Role values are case-sensitive in tokens, and other apps' roles grant nothing here.
    [["certsched.reader"], READER, false],
    [["Reader", "Operator"], READER, false],
  ] as const)("%j may do what %s allows: %s", (roles, required, allowed) => {
    expect(hasRole(roles, required)).toBe(allowed);
  });
});

describe("callerOf", () => {
  it.each([
    ["True", true],
    ["true", true],
    [" TRUE ", true],
    ["False", false],
    ["", false],
    ["1", false],
    [undefined, false],
  ])("treats WEBSITE_AUTH_ENABLED=%j as Easy Auth on: %s", (value, on) => {
    expect(easyAuthEnabled({ WEBSITE_AUTH_ENABLED: value })).toBe(on);
  });

  it("ignores the header when Easy Auth is off: only the platform may set it", () => {
    const forged = principalHeader({ id: "attacker", roles: [OPERATOR] });
    expect(callerOf(request(forged), {})).toEqual({ kind: "function-key" });
    // Not even parsed: a malformed one is ignored too.
    expect(callerOf(request("not base64!"), {})).toEqual({ kind: "function-key" });
  });

  it("identifies a request without a principal behind Easy Auth as a function-key caller", () => {
    expect(callerOf(request(), EASY_AUTH_ON)).toEqual({ kind: "function-key" });
  });

  it("identifies the platform's principal behind Easy Auth", () => {
    const header = principalHeader({ id: "oid-9", name: "ops@contoso.com", roles: [READER] });
    expect(callerOf(request(header), EASY_AUTH_ON)).toEqual({
      kind: "entra",
      id: "oid-9",
      name: "ops@contoso.com",
      roles: [READER],
    });
  });
});

describe("authorize", () => {
  it("lets function-key callers do everything, as before Entra ID", () => {
    expect(authorize(request(), OPERATOR, EASY_AUTH_ON)).toEqual({ kind: "function-key" });
    expect(authorize(request(), OPERATOR, {})).toEqual({ kind: "function-key" });
  });

  it("refuses an Entra ID caller without the role, naming the role and the caller", () => {
    const header = principalHeader({ name: "ada@contoso.com", roles: [READER] });
    let thrown: unknown;
    try {
      authorize(request(header), OPERATOR, EASY_AUTH_ON);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ForbiddenError);
    const error = thrown as ForbiddenError;
    expect(error.code).toBe("FORBIDDEN");
    expect(error.requiredRole).toBe(OPERATOR);
    expect(error.message).toContain("certsched.Operator");
    expect(error.message).toContain("ada@contoso.com");
  });

  it("returns the Entra ID caller that has the role", () => {
    const header = principalHeader({ id: "oid-5", name: "ops", roles: [OPERATOR] });
    expect(authorize(request(header), READER, EASY_AUTH_ON)).toEqual({
      kind: "entra",
      id: "oid-5",
      name: "ops",
      roles: [OPERATOR],
    });
  });
});
