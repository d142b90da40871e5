/**
 * The floor plan, checked (docs/design/floor-plan.md). Each rule names the layer it protects;
 * a violation fails `npm run lint:deps` and so CI.
 * dependency-cruiser 16: it runs on Node 20 (18 needs Node 22).
 */
const TOP = "^(functions|cli)/";
const NOT_BELOW = (layers) => `^(shared/(${layers})|functions|cli|sim)/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "No import cycles, type-only imports included: a type import of Runtime closed a nine-file knot.",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-imports-nothing-of-ours",
      severity: "error",
      comment:
        "lib/ is the floor: errors, log, redaction, text, time, pool, URL rules, HTTP transport.",
      from: { path: "^shared/lib/" },
      to: { path: NOT_BELOW("core|adapters|usecases|app|edge") },
    },
    {
      name: "core-imports-lib-only",
      severity: "error",
      comment: "core/ holds pure rules, shared types and ports: it may import lib/ and itself.",
      from: { path: "^shared/core/" },
      to: { path: NOT_BELOW("adapters|usecases|app|edge") },
    },
    {
      name: "core-does-no-io",
      severity: "error",
      comment:
        "core/ never opens a socket, file or SDK client: only zod, croner (cron arithmetic, its timers unused) and pure node: modules.",
      from: { path: "^shared/core/" },
      to: {
        dependencyTypes: ["core", "npm"],
        pathNot: [
          "^(node:)?(crypto|async_hooks|net|url|util)$",
          "(^|/)node_modules/zod/",
          "(^|/)node_modules/croner/",
        ],
      },
    },
    {
      name: "use-cases-take-ports",
      severity: "error",
      comment:
        "A use case gets the ports it needs from its caller: never an adapter, the composition or the HTTP edge.",
      from: { path: "^shared/usecases/" },
      to: { path: NOT_BELOW("adapters|app|edge") },
    },
    {
      name: "use-cases-use-no-sdk",
      severity: "error",
      comment: "SDKs and sockets belong to adapters.",
      from: { path: "^shared/usecases/" },
      to: {
        dependencyTypes: ["core", "npm"],
        pathNot: ["^(node:)?(crypto|async_hooks|timers/promises|util)$", "(^|/)node_modules/zod/"],
      },
    },
    {
      name: "adapters-implement-ports",
      severity: "error",
      comment:
        "An adapter implements a port of core/; it never calls a use case or the composition.",
      from: { path: "^shared/adapters/" },
      to: { path: NOT_BELOW("usecases|app|edge") },
    },
    {
      name: "adapter-areas-apart",
      severity: "error",
      comment:
        "Areas meet through ports, wired by the composition root; storage/ (the table helper) is the one shared base.",
      from: { path: "^shared/adapters/([^/]+)/" },
      to: {
        path: "^shared/adapters/",
        pathNot: ["^shared/adapters/$1/", "^shared/adapters/storage/"],
      },
    },
    {
      name: "edge-maps-only",
      severity: "error",
      comment:
        "The HTTP edge parses requests and maps results: it knows core types, not how they are made.",
      from: { path: "^shared/edge/" },
      to: { path: NOT_BELOW("adapters|usecases|app") },
    },
    {
      name: "composition-is-not-http",
      severity: "error",
      comment: "The composition root builds services; the HTTP edge is the entry points' business.",
      from: { path: "^shared/app/" },
      to: { path: "^(shared/edge|functions|cli|sim)/" },
    },
    {
      name: "entry-points-apart",
      severity: "error",
      comment: "functions/ and cli/ share shared/, never each other.",
      from: { path: "^(functions|cli)/" },
      to: { path: TOP, pathNot: "^$1/" },
    },
    {
      name: "handlers-load-lazily",
      severity: "error",
      comment: "A registration loads its handler on first call (cold start): import() only.",
      from: { path: "^functions/[^/]+\\.ts$" },
      to: { path: "^functions/handlers/", dependencyTypesNot: ["dynamic-import"] },
    },
    {
      name: "functions-sdk-at-the-edge",
      severity: "error",
      comment: "@azure/functions types and values stay in functions/ and shared/edge/.",
      from: { pathNot: "^(functions|shared/edge)/" },
      to: { path: "(^|/)node_modules/@azure/functions/" },
    },
    {
      name: "simulator-only-in-the-sandbox",
      severity: "error",
      comment: "sim/ is a test and sandbox tool; the app never loads it.",
      from: { path: "^(shared|functions|cli)/", pathNot: "^cli/sandbox" },
      to: { path: "^sim/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports are dependencies too (they are how the nine-file knot closed).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
