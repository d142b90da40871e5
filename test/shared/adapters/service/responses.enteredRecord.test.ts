import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { certificateFound } from "../../../../shared/adapters/service/getCertificate.js";
import { dueList } from "../../../../shared/adapters/service/responses.js";
import { UpstreamError } from "../../../../shared/lib/errors.js";
import { REDACTED, registerSecret } from "../../../../shared/lib/redact/redact.js";

/*
 * Secrets quoted back, at the entry: a JSON success that quotes a secret certsched holds (one
 * registered, not shaped like a token: the redaction must come from the registry) is redacted
 * before it is parsed; a record whose certificateName quotes it is refused, by its id.
 */

const secret = `held-secret-${randomBytes(12).toString("hex")}`;
registerSecret(secret);

const record = (fields: Record<string, unknown>) => ({
  certificateName: "www-contoso-com",
  id: 41,
  subscriptionId: 1001,
  target: "Cloud App Service",
  renewal: "Auto",
  expiryDate: "2026-12-01T10:00:00.0000000",
  rootDomain: "contoso.com",
  keyVaultName: null,
  keyVaultCertificateName: null,
  ...fields,
});
const ok = (body: unknown) => ({
  status: 200,
  contentType: "application/json",
  text: JSON.stringify(body),
});

describe("dueList: records that quote a held secret", () => {
  it("redacts it in every field and every key, before the record is parsed", () => {
    const due = dueList(
      ok([
        record({
          rootDomain: `contoso.com ${secret}`,
          target: `Cloud App Service ${secret}`,
          keyVaultName: secret,
          [`extra-${secret}`]: { nested: [secret] },
        }),
      ]),
    );
    expect(due.rejected).toEqual([]);
    const [cert] = due.certificates;
    expect(cert?.rootDomain).toBe(`contoso.com ${REDACTED}`);
    expect(cert?.target).toBe(`Cloud App Service ${REDACTED}`);
    expect(cert?.keyVaultName).toBe(REDACTED);
    expect(JSON.stringify(cert)).not.toContain(secret);
    expect(cert).toHaveProperty([`extra-${REDACTED}`], { nested: [REDACTED] });
  });

  it("refuses a record whose certificateName quotes it, named by its id, and keeps the others", () => {
    const due = dueList(
      ok([
        record({ certificateName: `www ${secret}`, id: 42 }),
        record({ id: 43, certificateName: "ok" }),
      ]),
    );
    expect(due.certificates.map((c) => c.certificateName)).toEqual(["ok"]);
    expect(due.rejected).toEqual([
      {
        index: 0,
        certificateName: undefined,
        id: 42,
        problems: [
          {
            name: "certificateName",
            message:
              "holds a secret certsched sent (an access token or key, quoted back); the record with id 42 is not renewed, not stored",
          },
        ],
      },
    ]);
    expect(JSON.stringify(due)).not.toContain(secret);
  });

  it("a record refused for another reason quotes nothing of it either", () => {
    const due = dueList(ok([record({ id: `id ${secret}`, certificateName: "named" })]));
    expect(due.rejected).toHaveLength(1);
    expect(JSON.stringify(due)).not.toContain(secret);
  });
});

describe("certificateFound: Get Certificate's record", () => {
  it("is redacted the same way", () => {
    const found = certificateFound(
      "www-contoso-com",
      ok(record({ rootDomain: `${secret}.contoso.com` })),
    );
    expect(found.rootDomain).toBe(`${REDACTED}.contoso.com`);
  });

  it("is refused, by its id, when its certificateName quotes the secret", () => {
    let thrown: unknown;
    try {
      certificateFound(
        "www-contoso-com",
        ok(record({ certificateName: `www-contoso-com${secret}`, id: 9 })),
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamError);
    expect((thrown as UpstreamError).code).toBe("UPSTREAM_BAD_RESPONSE");
    expect((thrown as Error).message).toContain("a record (id 9) whose certificateName holds");
    expect((thrown as Error).message).not.toContain(secret);
  });
});
