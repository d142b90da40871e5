import type { Metafile } from "esbuild";

/** Modules resolved from node_modules at run time, never bundled. */
export declare const EXTERNAL: readonly string[];
/** Gives the ES module output a real `require` for bundled CommonJS. */
export declare const BANNER: string;

export interface BundleResult {
  /** Absolute path of the entry file (dist/bundle/index.js by default). */
  readonly entry: string;
  /** The functions/*.ts files it registers, sorted. */
  readonly functions: readonly string[];
  readonly metafile: Metafile;
}

/** Bundles the function app for deployment (see scripts/bundle.mjs). */
export declare function bundleFunctionApp(options?: {
  root?: string;
  outdir?: string;
}): Promise<BundleResult>;

/** What the CLI bundle leaves to node_modules. */
export declare const CLI_EXTERNAL: readonly string[];

/** Bundles the CLI from dist/cli/main.js into dist/bin/certsched.js (see scripts/bundle.mjs). */
export declare function bundleCli(options?: {
  root?: string;
  outdir?: string;
}): Promise<{ readonly entry: string; readonly metafile: Metafile }>;
