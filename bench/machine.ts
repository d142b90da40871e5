import { execFileSync } from "node:child_process";
import os from "node:os";

/** Where and when the numbers were taken: they mean little without it. */
export interface Machine {
  readonly date: string;
  readonly node: string;
  readonly platform: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  /** 1-minute load average when the bench started: how busy the machine was. */
  readonly loadAtStart: number;
  readonly commit: string;
}

function gitCommit(root: string): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root })
      .toString()
      .trim();
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: root }).toString().trim();
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return "unknown (not a git checkout)";
  }
}

export function describeMachine(root: string, now = new Date()): Machine {
  const cpus = os.cpus();
  return {
    date: now.toISOString(),
    node: process.version,
    platform: `${os.type()} ${os.release()} (${process.arch})`,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    loadAtStart: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    commit: gitCommit(root),
  };
}
