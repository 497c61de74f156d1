/**
 * Characters a reader cannot see as they are, beyond C0's controls: DEL and the C1 controls, the line
 * and paragraph separators, and the bidirectional marks, overrides and isolates that reorder a line.
 * As the body of a regular expression's class. Text shown to people escapes them (lib/jobs/escape.ts);
 * text Warden writes for a reviewer (an exemption's reason, lib/policy/rules.ts) refuses them.
 */
export const UNSEEN_BEYOND_C0 = "\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";
