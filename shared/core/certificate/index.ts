export * from "../../lib/zodProblems.js";
export * from "./createRequest.js";
export * from "./fields.js";
export * from "./records.js";
