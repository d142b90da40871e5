/**
 * The app roles of certsched's Entra ID app registration (docs/deploy.md creates them). Each
 * operation needs one; an Operator may do everything a Reader may.
 */
export type AppRole = "certsched.Reader" | "certsched.Operator";

export const READER: AppRole = "certsched.Reader";
export const OPERATOR: AppRole = "certsched.Operator";

/** The roles that satisfy each role: Operator includes Reader. */
const SATISFIED_BY: Readonly<Record<AppRole, readonly AppRole[]>> = {
  "certsched.Reader": ["certsched.Reader", "certsched.Operator"],
  "certsched.Operator": ["certsched.Operator"],
};

/** Whether a caller holding `roles` (as the token lists them) may do what `required` allows. */
export function hasRole(roles: readonly string[], required: AppRole): boolean {
  return SATISFIED_BY[required].some((role) => roles.includes(role));
}
