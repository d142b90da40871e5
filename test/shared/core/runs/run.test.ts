import { describe, expect, it } from "vitest";
import {
  advances,
  isFinished,
  RUN_STATES,
  type RunState,
} from "../../../../shared/core/runs/run.js";

describe("a run only moves forward", () => {
  it("knows which states are finished", () => {
    expect(RUN_STATES.filter(isFinished)).toEqual(["succeeded", "failed"]);
  });

  it.each<[RunState, RunState, boolean]>([
    ["queued", "queued", true],
    ["queued", "running", true],
    ["queued", "succeeded", true],
    ["queued", "failed", true],
    ["running", "running", true],
    ["running", "succeeded", true],
    ["running", "failed", true],
    ["running", "queued", false],
    ["succeeded", "failed", false],
    ["succeeded", "running", false],
    ["succeeded", "succeeded", false],
    ["failed", "succeeded", false],
    ["failed", "queued", false],
  ])("stored %s, written %s: %s", (from, to, allowed) => {
    expect(advances(from, to)).toBe(allowed);
  });

  it.each([undefined, null, "", "done", 3])(
    "a stored state that is not one (%j) may be overwritten",
    (from) => {
      expect(advances(from, "queued")).toBe(true);
    },
  );
});
