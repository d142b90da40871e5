/**
 * Types of the undici files shared/lib/http/undiciCore.ts loads by path (undici ships types for
 * its index only). Each is the CommonJS module.exports of the same object the index exports.
 */
declare module "undici/lib/dispatcher/agent.js" {
  const Agent: typeof import("undici").Agent;
  export default Agent;
}
declare module "undici/lib/core/connect.js" {
  const buildConnector: typeof import("undici").buildConnector;
  export default buildConnector;
}
declare module "undici/lib/core/errors.js" {
  const errors: typeof import("undici").errors;
  export default errors;
}
declare module "undici/lib/api/api-request.js" {
  const request: unknown;
  export default request;
}
