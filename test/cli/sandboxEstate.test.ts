import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { palette } from "../../cli/output/color.js";
import { type Sandbox, startSandbox } from "../../cli/sandbox.js";
import {
  renderSandboxEstate,
  SANDBOX_ESTATE_ACCOUNT,
  type SandboxEstatePart,
  sandboxEstate,
} from "../../cli/sandboxEstate.js";
import { SANDBOX_ESTATE_UNBOUND, SANDBOX_ESTATE_UNMANAGED } from "../../sim/index.js";

/**
 * The sandbox's estate, end to end over loopback: the sandbox's Resource Manager answers
 * Resource Graph, contoso's simulated vault lists the team's certificate (its host routed at
 * start), and the real discovery finds the gateway's certificate certsched does not keep.
 */

let sandbox: Sandbox;
let part: SandboxEstatePart;

beforeAll(async () => {
  sandbox = await startSandbox();
  part = await sandboxEstate(sandbox, SANDBOX_ESTATE_ACCOUNT);
}, 60_000);
afterAll(() => sandbox?.close());

describe("the sandbox's estate", () => {
  it("finds the unmanaged certificate expiring in 9 days on an Application Gateway, and the one bound nowhere", () => {
    expect(part.problems).toEqual([]);
    expect(part.passes).toBe(true);
    expect(part.unmanaged).toMatchObject({
      name: SANDBOX_ESTATE_UNMANAGED.certificate,
      kind: "application-gateway",
      gaps: ["unmanaged-expiring"],
      boundTo: [expect.objectContaining({ hostName: SANDBOX_ESTATE_UNMANAGED.hostName })],
    });
    expect(part.boundNowhere.map((b) => b.name)).toEqual([SANDBOX_ESTATE_UNBOUND.name]);
    expect(part.managed).toBeGreaterThan(0);
    expect(part.managed).toBeLessThan(part.certificates);
  });

  it("explains it in words: where, who issued it, what certsched would send, nothing sent", () => {
    const text = renderSandboxEstate(
      part,
      palette({ isTTY: false, write: () => {} } as never, {}),
      200,
    ).join("\n");
    expect(text).toContain(
      `Unmanaged certificate expiring in ${SANDBOX_ESTATE_UNMANAGED.days} days on an Application Gateway: ${SANDBOX_ESTATE_UNMANAGED.certificate}, bound to listener ${SANDBOX_ESTATE_UNMANAGED.hostName}`,
    );
    expect(text).toContain("issued by Unknown");
    expect(text).toContain(`vault ${SANDBOX_ESTATE_UNMANAGED.vault}); you fill in email, password`);
    expect(text).toContain("Nothing was sent");
    // Discovery sends the service nothing, a create least of all.
    const sim = sandbox.account(SANDBOX_ESTATE_ACCOUNT).sim;
    expect(sim.requests.filter((r) => r.operation === "create")).toEqual([]);
  });
});
