/**
 * The words of a comparison of policies (`warden enforce --compare-policy-ref`), which the engine
 * (enforce/compare.ts), the views and renderers (enforce/view.ts, render/) and the merge request note
 * (enforce/mr-note.ts) all speak: a leaf, so that none of them reaches the others to say it. A
 * comparison is two plans' difference, in the plan's own shape (plan.ts), hence its place here.
 */
import type { ShareRemoval } from "./plan.ts";

export const COMPARISON_SECTIONS = ["newlyRemoved", "noLongerRemoved", "exemptionChanged"] as const;
export type ComparisonSection = (typeof COMPARISON_SECTIONS)[number];

/**
 * The report's `comparison`: which policy the run's was compared with, the differing shares, and every
 * setting of the policy that differs (`otherChanges`, such as "gitlab.shares.allow" or "pipelines.allow"),
 * whose effects beyond today's shares no section shows: absent when none does.
 */
export type PolicyComparison = { baseRef: string; baseCommitId: string; otherChanges?: string[] } & Record<ComparisonSection, ShareRemoval[]>;

/** The hidden first line of a merge request note Warden writes: how the next pipeline finds the note to edit. */
export const NOTE_MARKER = "<!-- warden:policy-comparison -->";
