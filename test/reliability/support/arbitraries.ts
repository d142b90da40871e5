import fc from "fast-check";

/*
 * Generators for the fuzz suite: valid create requests (the three field-set cases of spec
 * 2.1, as callers send them to certsched, without tokens) and the ways to spoil them.
 */

export type CreateBody = Record<string, unknown>;

/** Printable text of any script, 1..max graphemes, never containing "/". */
export function text(maxLength = 40): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.string({ unit: "grapheme", minLength: 1, maxLength }),
      fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength }),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,30}$/),
    )
    .map((s) => s.replaceAll("/", "-"));
}

/** An address zod's e-mail rule accepts (the service itself only wants a string). */
export const email = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/))
  .map(([local, domain]) => `${local}@${domain}.com`);

const common = fc.record({
  certificateName: text(),
  rootDomain: text(),
  email,
  password: text(),
  isSAN: fc.boolean(),
  cloudSubscriptionId: text(),
});

/** App Service fields; with a slot the app is named sitename/slotname (spec 2.1). */
const appService = fc
  .record({
    cloudAppServicePlanName: text(),
    cloudAppServicePlanResourceGroup: text(),
    cloudAppServiceResourceGroup: text(),
    site: text(),
    slot: fc.oneof(fc.constant(""), text(20)),
  })
  .map(({ site, slot, ...rest }) => ({
    ...rest,
    cloudAppServiceName: slot === "" ? site : `${site}/${slot}`,
    cloudAppServiceSlotName: slot,
  }));

/** A valid create request of one of the three cases, as a caller of certsched sends it. */
export const validCreate: fc.Arbitrary<CreateBody> = fc.oneof(
  fc
    .tuple(common, appService)
    .map(([c, a]) => ({ ...c, ...a, target: "Cloud App Service", challengeType: "http" })),
  fc.tuple(common, appService, text()).map(([c, a, dns]) => ({
    ...c,
    ...a,
    target: "Cloud App Service",
    challengeType: "dns",
    dnsZoneResourceGroup: dns,
  })),
  fc.tuple(common, text(), text()).map(([c, dns, vault]) => ({
    ...c,
    target: "Cloud Key Vault + DNS",
    challengeType: "dns",
    dnsZoneResourceGroup: dns,
    keyVaultName: vault,
  })),
);

/** JSON values of every type, deep nesting included. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.integer().map((depth) => nested(Math.abs(depth) % 2_000)),
);

/** `[[[...]]]` as text, `depth` deep: deeper than JSON.stringify itself could write. */
export function nestedText(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

/** `[[[...]]]` `depth` deep, or `{"a":{"a":...}}`. */
export function nested(depth: number): unknown {
  let value: unknown = depth % 2 === 0 ? [] : {};
  for (let i = 0; i < depth; i++) value = i % 3 === 0 ? [value] : { a: value };
  return value;
}

/** A value of the wrong type for a field (strings for isSAN, anything but strings elsewhere). */
export function wrongTypeFor(field: string): fc.Arbitrary<unknown> {
  const nonString = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.constant(null),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    fc.integer({ min: 0, max: 400 }).map(nested),
  );
  return field === "isSAN"
    ? fc.oneof(nonString, fc.string(), fc.constantFrom("true", "false", "1", "0"))
    : fc.oneof(nonString, fc.boolean());
}

/** Keys no case allows: prototype-polluting names, the injected tokens, other cases' fields. */
export const foreignKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "hasOwnProperty",
    "accessToken",
    "accessTokenKeyVault",
    "keyVaultName",
    "cloudAppServiceName",
    "dnsZoneResourceGroup",
    "",
  ),
  fc.string({ unit: "grapheme", maxLength: 30 }),
);

/** Sets an own, enumerable property (so "__proto__" becomes a key, not the prototype). */
export function withKey(body: CreateBody, key: string, value: unknown): CreateBody {
  const copy: CreateBody = { ...body };
  Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** How a create request gets spoiled, and the field the 400 must then name. */
export type Mutation =
  | { kind: "none" }
  | { kind: "delete"; field: string }
  | { kind: "wrongType"; field: string; value: unknown }
  | { kind: "huge"; field: string; length: number }
  | { kind: "extra"; field: string; value: unknown }
  | { kind: "unicode"; field: string; value: string };

export const STRING_FIELDS = [
  "certificateName",
  "rootDomain",
  "email",
  "password",
  "cloudSubscriptionId",
  "target",
  "challengeType",
  "cloudAppServicePlanName",
  "cloudAppServicePlanResourceGroup",
  "cloudAppServiceResourceGroup",
  "cloudAppServiceName",
  "cloudAppServiceSlotName",
  "dnsZoneResourceGroup",
  "keyVaultName",
];

/** A valid request and one mutation of it. */
export const mutatedCreate: fc.Arbitrary<{ body: CreateBody; mutation: Mutation }> =
  validCreate.chain((body) => {
    const fields = Object.keys(body);
    const strings = fields.filter((f) => STRING_FIELDS.includes(f));
    const field = fc.constantFrom(...fields);
    const stringField = fc.constantFrom(...strings);
    return fc.record({
      body: fc.constant(body),
      mutation: fc.oneof(
        fc.constant<Mutation>({ kind: "none" }),
        field.map((f): Mutation => ({ kind: "delete", field: f })),
        field.chain((f) =>
          wrongTypeFor(f).map((value): Mutation => ({ kind: "wrongType", field: f, value })),
        ),
        fc
          .tuple(stringField, fc.integer({ min: 1_025, max: 80_000 }))
          .map(([f, length]): Mutation => ({ kind: "huge", field: f, length })),
        fc
          .tuple(
            foreignKey.filter((k) => !fields.includes(k)),
            fc.jsonValue({ maxDepth: 3 }),
          )
          .map(([f, value]): Mutation => ({ kind: "extra", field: f, value })),
        fc
          .tuple(stringField, fc.string({ unit: "binary", minLength: 1, maxLength: 60 }))
          .map(([f, value]): Mutation => ({ kind: "unicode", field: f, value })),
      ),
    });
  });

export function applyMutation(body: CreateBody, m: Mutation): CreateBody {
  switch (m.kind) {
    case "none":
      return body;
    case "delete": {
      const { [m.field]: _dropped, ...rest } = body;
      return rest;
    }
    case "wrongType":
    case "extra":
      return withKey(body, m.field, m.value);
    case "huge":
      return withKey(body, m.field, "x".repeat(m.length));
    case "unicode":
      return withKey(body, m.field, m.value);
  }
}

/** Content types a caller might send, right and wrong. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constantFrom(
    undefined,
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "application/problem+json",
    "application/merge-patch+json",
    "text/plain",
    "text/json",
    "application/xml",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/jsonx",
    "application/json5",
    "json",
    "*/*",
  ),
  fc.stringMatching(/^[a-z]{1,12}\/[a-z0-9.+-]{1,20}(; ?[a-z]+=[a-z0-9-]+)?$/),
);

/** Header names and values the host would pass on (valid HTTP tokens, no CR/LF). */
export const headers: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,24}$/),
  fc.stringMatching(/^[\x20-\x7e]{0,60}$/).map((v) => v.trim()),
  { maxKeys: 6 },
);

/** Methods the host could hand over (fetch's Request refuses CONNECT, TRACE and TRACK itself). */
export const method: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"),
    fc.stringMatching(/^[A-Za-z]{1,10}$/),
  )
  .filter((m) => !["CONNECT", "TRACE", "TRACK"].includes(m.toUpperCase()));

/** Whether a request with this method may carry a body. */
export function takesBody(verb: string): boolean {
  return !["GET", "HEAD"].includes(verb.toUpperCase());
}

/** Query strings as they arrive: well-formed, odd, or broken. */
export const rawQuery: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom("dryRun", "code", "x", "dryrun", ""),
          fc.string({ maxLength: 10 }),
        ),
        fc.oneof(
          fc.constantFrom("true", "false", "TRUE", "1", "", "yes", "true ", "null"),
          fc.string({ unit: "grapheme", maxLength: 20 }),
        ),
      ),
      { maxLength: 5 },
    )
    .map((pairs) => new URLSearchParams(pairs).toString()),
  fc.constantFrom("%", "%%%", "dryRun", "dryRun=", "&&&", "=", "dryRun=%ZZ", "a=1&a=2", "?", "#"),
  fc.string({ unit: "binary-ascii", maxLength: 40 }),
);
