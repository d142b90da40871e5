import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretClientReader } from "../../../../shared/adapters/identity/secretClientReader.js";
import { createSecretStore } from "../../../../shared/adapters/identity/secretStore.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { CertschedError, ConfigError } from "../../../../shared/lib/errors.js";
import {
  REDACTED,
  redactValue,
  SecretRegistry,
  WITHHELD,
} from "../../../../shared/lib/redact/redact.js";
import {
  MIN_HALF_LENGTH,
  MIN_SECRET_LENGTH,
  secretForms,
} from "../../../../shared/lib/redact/secretForms.js";
import {
  type FakeKeyVault,
  startFakeKeyVault,
  stubCredential,
} from "../../../support/fakeKeyVault.js";

/** Every Azure client secret holds `~` (form-encoded %7E); `.`, `_` and `-` pass through. */
const SECRET = "Qx8~Vd.eR_4tYk-9Lm~Zp2wN3sBh7";
/** An API key may be any printable ASCII: quote, backslash, slash, plus, space, percent. */
const API_KEY = `k"ey\\/+ %&=?#<>'~Ab12`;

const b64 = (s: string) => Buffer.from(s).toString("base64");
const b64url = (s: string) => Buffer.from(s).toString("base64url");

function registryWith(...values: string[]): SecretRegistry {
  const registry = new SecretRegistry();
  for (const value of values) registry.register(value);
  return registry;
}

const ENCODINGS: ReadonlyArray<{ name: string; encode(s: string): string }> = [
  { name: "raw", encode: (s) => s },
  { name: "encodeURIComponent", encode: encodeURIComponent },
  {
    name: "form (URLSearchParams)",
    encode: (s) => new URLSearchParams({ x: s }).toString().slice(2),
  },
  {
    name: "form, lower-case escapes",
    encode: (s) =>
      new URLSearchParams({ x: s })
        .toString()
        .slice(2)
        .replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
  },
  { name: "base64", encode: b64 },
  { name: "base64 without padding", encode: (s) => b64(s).replace(/=+$/, "") },
  { name: "base64url", encode: (s) => `${b64url(s)}==`.slice(0, Math.ceil(s.length / 3) * 4) },
  { name: "base64url without padding", encode: b64url },
  { name: "base64 inside a Basic header (client:secret)", encode: (s) => b64(`client-id:${s}`) },
  { name: "base64 at offset 2", encode: (s) => b64(`xy${s}tail`) },
  { name: "JSON string, escaped", encode: (s) => JSON.stringify(s).slice(1, -1) },
  { name: "JSON string, slashes escaped", encode: (s) => JSON.stringify(s).replaceAll("/", "\\/") },
  {
    name: "split across lines",
    encode: (s) => `${s.slice(0, 5)}\n  ${s.slice(5, 17)}\r\n${s.slice(17)}`,
  },
  { name: "wrapped base64 (MIME, 8 columns)", encode: (s) => b64(s).replace(/.{8}/g, "$&\r\n") },
  {
    name: "halves far apart",
    encode: (s) => {
      const half = Math.floor(s.length / 2);
      return `first ${s.slice(0, half)} and later, elsewhere: ${s.slice(half)}.`;
    },
  },
];

describe("redact(): every form of a registered secret", () => {
  const registry = registryWith(SECRET, API_KEY);

  it.for(ENCODINGS.flatMap((e) => [SECRET, API_KEY].map((secret) => ({ ...e, secret }))))(
    "$name of $secret",
    ({ encode, secret }) => {
      const encoded = encode(secret);
      const out = registry.redact(`upstream said: ${encoded} (end)`);
      expect(out).toContain(REDACTED);
      expect(out.startsWith("upstream said: ")).toBe(true);
      expect(out.endsWith(" (end)")).toBe(true);
      // Nothing of the form's middle is left: a few edge characters at most (base64 cores).
      const compact = encoded.replace(/\s/g, "");
      expect(out.replace(/\s/g, "")).not.toContain(compact.slice(3, -3));
    },
  );

  it("keeps ordinary text as it is", () => {
    const text = 'Certificate "www-contoso-com" is scheduled for renewal. Secret ~ 100% sure.';
    expect(registry.redact(text)).toBe(text);
  });

  it("still masks bearer tokens and JWTs nobody registered", () => {
    const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl";
    expect(registry.redact(`Authorization: Bearer abc.def-ghi and ${jwt}`)).toBe(
      `Authorization: Bearer ${REDACTED} and ${REDACTED}`,
    );
  });
});

describe("the halves rule: each half of a long secret is a secret", () => {
  // 16 characters: two halves of exactly MIN_HALF_LENGTH (8).
  const EVEN = "ABCDEFGH12345678";
  // 15 characters: halves of 7 and 8, one too short, so neither is redacted alone.
  const ODD = "abcdefg87654321";

  it("pins the boundary at halves of 8 characters", () => {
    expect(MIN_HALF_LENGTH).toBe(8);
    expect(EVEN.length / 2).toBe(MIN_HALF_LENGTH);
  });

  it("redacts a half of 8 characters standing alone", () => {
    const registry = registryWith(EVEN);
    expect(registry.redact("part one ABCDEFGH only")).toBe(`part one ${REDACTED} only`);
    expect(registry.redact("part two 12345678 only")).toBe(`part two ${REDACTED} only`);
  });

  it("leaves 7 or 8 characters of a secret whose halves are 7 and 8 characters", () => {
    const registry = registryWith(ODD);
    expect(registry.redact("part abcdefg only")).toBe("part abcdefg only");
    expect(registry.redact("part 87654321 only")).toBe("part 87654321 only");
    // The whole secret, and the whole split in two by a line break, still are.
    expect(registry.redact(`x ${ODD} y`)).toBe(`x ${REDACTED} y`);
    expect(registry.redact("x abcdefg\n87654321 y")).toBe(`x ${REDACTED} y`);
  });

  it("counts halves without whitespace", () => {
    expect(secretForms("ABCD EFGH 1234 5678")).toContain("ABCDEFGH");
  });
});

describe("the length policy: secrets shorter than 8 characters are refused, not redacted", () => {
  it("pins the minimum at 8", () => expect(MIN_SECRET_LENGTH).toBe(8));

  it("does not register 7 characters (they would mask ordinary words)", () => {
    const registry = registryWith("sevench");
    expect(registry.size("configured")).toBe(0);
    expect(registry.redact("a sevench word")).toBe("a sevench word");
  });

  it("registers 8 characters", () => {
    const registry = registryWith("eightchr");
    expect(registry.redact("an eightchr word")).toBe(`an ${REDACTED} word`);
  });

  it("does not count whitespace towards the minimum", () => {
    expect(registryWith("a b c d e f g").size("configured")).toBe(0);
    expect(registryWith("a b c d e f g h").size("configured")).toBe(1);
  });

  it("withholds a whole text holding a caller's value too short to cut out", () => {
    expect(redactValue("password Pw1234! refused", "Pw1234!")).toBe(WITHHELD);
    expect(redactValue("nothing here", "Pw1234!")).toBe("nothing here");
    // A confirmation may hold a short value by chance ("Certificate a is scheduled"): kept.
    expect(redactValue("password Pw1234! accepted", "Pw1234!", "keep")).toBe(
      "password Pw1234! accepted",
    );
    expect(redactValue("password Pw12345! refused", "Pw12345!")).toBe(
      `password ${REDACTED} refused`,
    );
  });

  it("redacts a caller's value in every form without registering it", () => {
    const password = "P@ss w0rd~/é";
    const text = `got ${encodeURIComponent(password)} and ${b64(password)}`;
    expect(redactValue(text, password)).toBe(`got ${REDACTED} and ${REDACTED}`);
    expect(new SecretRegistry().redact(text)).toBe(text);
  });

  it("finds a value JSON-escaped beyond ASCII, in either case", () => {
    const password = "Pässwörd-2026";
    for (const escaped of ["P\\u00e4ssw\\u00f6rd-2026", "P\\u00E4ssw\\u00F6rd-2026"]) {
      expect(redactValue(`{"password":"${escaped}"}`, password)).toBe(`{"password":"${REDACTED}"}`);
    }
  });
});

describe("the registry is bounded", () => {
  // Distinct halves too: each token shares no 8 characters with another.
  const token = (n: number) => `${String(n).repeat(9)}-${"abcdefghij"[n]?.repeat(9)}`;

  it("evicts the oldest tokens first and keeps the configured secrets", () => {
    const registry = new SecretRegistry({ configured: 2, issued: 3 });
    registry.register("configured-api-key", "configured");
    for (let n = 1; n <= 5; n++) registry.register(token(n), "issued");
    expect(registry.size("issued")).toBe(3);
    expect(registry.redact(token(2))).toBe(token(2));
    expect(registry.redact(token(3))).toBe(REDACTED);
    expect(registry.redact(token(5))).toBe(REDACTED);
    expect(registry.redact("configured-api-key")).toBe(REDACTED);
  });

  it("makes a re-registered value the newest again", () => {
    const registry = new SecretRegistry({ configured: 2, issued: 1 });
    registry.register("first-value");
    registry.register("second-value");
    registry.register("first-value"); // used again: newest
    registry.register("third-value");
    expect(registry.size("configured")).toBe(2);
    expect(registry.redact("first-value")).toBe(REDACTED);
    expect(registry.redact("second-value")).toBe("second-value");
  });
});

describe("texts of any size", () => {
  it("finds a secret at the end of 8 MiB of whitespace and words", () => {
    const registry = registryWith(SECRET);
    const filler = "word \n\t".repeat((8 * 1024 * 1024) / 7);
    const out = registry.redact(`${filler}${SECRET.slice(0, 9)}\n${SECRET.slice(9)}!`);
    expect(out.endsWith(`${REDACTED}!`)).toBe(true);
    expect(out.length).toBe(filler.length + REDACTED.length + 1);
  });
});

describe("the length policy at start-up: settings and Key Vault refuse short secrets", () => {
  const BASE = {
    CERTSCHED_BASE_URL: "https://certs.example.com",
    CERTSCHED_SUBSCRIPTION: "sub",
    CERTSCHED_TENANT_ID: "tenant",
    CERTSCHED_CLIENT_ID: "client",
  };
  const settingsError = (env: Record<string, string>): ConfigError => {
    try {
      loadSettings({ ...BASE, ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error("loadSettings accepted the settings");
  };

  it.for(["CERTSCHED_API_KEY", "CERTSCHED_CLIENT_SECRET"])(
    "%s of 7 characters is refused, naming the setting and not the value",
    (name) => {
      const other = name === "CERTSCHED_API_KEY" ? "CERTSCHED_CLIENT_SECRET" : "CERTSCHED_API_KEY";
      const error = settingsError({ [name]: "Sh0rt~7", [other]: "long-enough-value" });
      expect(error.problems.map((p) => p.name)).toEqual([name]);
      expect(error.problems[0]?.message).toMatch(/at least 8 characters/);
      expect(`${error.message} ${JSON.stringify(error.problems)}`).not.toContain("Sh0rt~7");
    },
  );

  it("accepts 8 characters, and does not count spaces", () => {
    const settings = loadSettings({
      ...BASE,
      CERTSCHED_API_KEY: "Eight~8c",
      CERTSCHED_CLIENT_SECRET: "also-8ch",
    });
    expect(settings.apiKey).toBe("Eight~8c");
    const error = settingsError({
      CERTSCHED_API_KEY: " a b c d e f g ",
      CERTSCHED_CLIENT_SECRET: "also-8ch",
    });
    expect(error.problems.map((p) => p.name)).toEqual(["CERTSCHED_API_KEY"]);
  });

  describe("a secret read from Key Vault", () => {
    let vault: FakeKeyVault;
    beforeAll(async () => {
      vault = await startFakeKeyVault({
        secrets: { "certsched-api-key": "Sh0rt~7", "certsched-client-secret": "Eight~8c" },
      });
    });
    afterAll(() => vault.close());

    const store = () =>
      createSecretStore({
        vaultUrl: vault.url,
        apiKeySecretName: "certsched-api-key",
        clientSecretSecretName: "certsched-client-secret",
        direct: {},
        ttlMs: 0,
        now: () => new Date(),
        createReader: (url) => createSecretClientReader(url, stubCredential, vault.clientOptions),
      });

    it("of 7 characters is SECRET_UNAVAILABLE naming the secret, never its value", async () => {
      const error = await store()
        .apiKey()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(CertschedError);
      const e = error as CertschedError;
      expect(e.code).toBe("SECRET_UNAVAILABLE");
      expect(e.message).toMatch(/Secret "certsched-api-key" .* shorter than 8 characters/);
      expect(`${e.message} ${e.stack}`).not.toContain("Sh0rt~7");
      expect(vault.reads("certsched-api-key")).toBeGreaterThan(0);
    });

    it("of 8 characters is used", async () => {
      expect(await store().clientSecret()).toBe("Eight~8c");
    });
  });
});
