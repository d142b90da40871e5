/**
 * Outside the Functions host, @azure/functions switches to its test mode and says so with
 * console.warn on import ("Failed to detect the Azure Functions runtime") and for every
 * app.http / app.timer call ("Skipping call to register function"): 64 lines of expected noise
 * per `npm test` that bury real warnings. Only these two notices are dropped, only in tests:
 * production code never filters the console, and under the host the library never prints them.
 */
const TEST_MODE_NOTICES = [
  /^WARNING: Failed to detect the Azure Functions runtime\. Switching "@azure\/functions" package to test mode/,
  /^WARNING: Skipping call to register (function|\w+ hook) ".*" because the "@azure\/functions" package is in test mode\./,
  /^WARNING: Skipping call to (register|dispose) \w+ hook because the "@azure\/functions" package is in test mode\./,
];

// biome-ignore lint/suspicious/noConsole: the library writes these notices with console.warn.
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  const first = args[0];
  if (typeof first === "string" && TEST_MODE_NOTICES.some((notice) => notice.test(first))) return;
  warn(...args);
};
