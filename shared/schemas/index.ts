export * from "./createRequest.js";
export * from "./fields.js";
export * from "./problems.js";
export * from "./records.js";
