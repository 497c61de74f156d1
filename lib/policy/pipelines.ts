import type { PipelineRule, Policy } from "./policy.ts";

export interface PipelineRequest {
  projectPath: string;
  ref: string;
  variables: { key: string; value: string }[];
}

/** `unprotected`: the rule allows a ref GitLab does not protect (the job checks protection, not this pure judge). */
export type PipelineVerdict = { allowed: true; rule: string; unprotected: boolean } | { allowed: false; reason: string };

/**
 * A request is allowed when one rule allows its project, its ref and every variable
 * it sets. A refusal names the first of these that no rule satisfies.
 */
export function evaluatePipeline(policy: Policy, req: PipelineRequest): PipelineVerdict {
  if (policy.pipelines === undefined) return refuse("pipelines are not enabled (the policy has no pipelines section)");
  const { projectPath, ref } = req;
  const forProject = [...policy.pipelines.allow.entries()].filter(([, rule]) => rule.project.matches(projectPath));
  if (forProject.length === 0) return refuse(`no pipelines.allow rule matches project ${projectPath}`);

  const forRef = forProject.filter(([, rule]) => rule.refs.some((glob) => glob.matches(ref)));
  if (forRef.length === 0) {
    const refs = new Set(forProject.flatMap(([, rule]) => rule.refs.map((glob) => glob.pattern)));
    return refuse(`ref ${ref} is not allowed for project ${projectPath} (allowed: ${[...refs].join(", ")})`);
  }

  const keys = [...new Set(req.variables.map((variable) => variable.key))];
  const candidates = forRef.map(([i, rule]) => ({ i, rule, refused: refusedVariables(rule, keys) }));
  // One rule allowing the request is enough: of those, one that allows unprotected refs if any does.
  const allowing = candidates.filter((c) => c.refused.length === 0).sort((a, b) => Number(b.rule.unprotected) - Number(a.rule.unprotected))[0];
  if (allowing) return { allowed: true, rule: `allow[${allowing.i}] ${allowing.rule.project.pattern}`, unprotected: allowing.rule.unprotected };
  // Explain the refusal against the rule that came closest.
  const best = candidates.reduce((a, b) => (b.refused.length < a.refused.length ? b : a));
  const allowed = best.rule.variables.length === 0 ? "none" : best.rule.variables.join(", ");
  const noun = best.refused.length === 1 ? "variable" : "variables";
  return refuse(
    `${noun} ${best.refused.join(", ")} not allowed for project ${projectPath} on ${ref} (allow[${best.i}] allows: ${allowed})`,
  );
}

function refusedVariables(rule: PipelineRule, keys: readonly string[]): string[] {
  return keys.filter((key) => !rule.variables.includes(key));
}

function refuse(reason: string): PipelineVerdict {
  return { allowed: false, reason };
}
