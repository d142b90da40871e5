/** Settings that would change what the bench measures if the caller's shell happens to set them. */
const FOREIGN = /^(CERTSCHED_|APPLICATIONINSIGHTS_|AzureWebJobsStorage$)/;

/** Runs `work` with exactly these certsched settings in process.env, then restores it. */
export async function withEnv<T>(settings: Record<string, string>, work: () => Promise<T>) {
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) if (FOREIGN.test(key)) delete process.env[key];
  Object.assign(process.env, settings);
  try {
    return await work();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

/** A child-process environment: PATH and the given settings, nothing inherited. */
export function childEnv(settings: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "", ...settings };
}

/**
 * Runs `work` with console.warn silenced: outside the Functions host @azure/functions warns
 * once at import and once per registration that it is in "test mode", which is expected here.
 */
export async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return await work();
  } finally {
    console.warn = warn;
  }
}
