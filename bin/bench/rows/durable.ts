/**
 * The durable row: dry run + apply + dry run, each a Lambda durable execution of the Enforce function
 * (durable-run.ts), under GitLab.com's budgets, at a size one invocation cannot finish. The function gets
 * the deployed environment (sst.config.ts) with the bench's policy, pointed at loopback stand-ins for AWS,
 * and the slice a real invocation works, scaled like the budgets' windows.
 */
import { DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY } from "../../../lib/jobs/index.ts";
import { startAwsStandIns } from "../aws-stand-ins.ts";
import { budgetsFor } from "../budgets.ts";
import type { Bench } from "../context.ts";
import type { DurableRunResult, Execution } from "../durable-run.ts";
import { sliceSeconds } from "../durable-slices.ts";
import { count, outcomeCell, ratio, rssCell, s } from "../format.ts";
import { table, type RowKind } from "../row-kind.ts";
import { checkpointTargets, largestCheckpointCell } from "./checkpoint-targets.ts";
import type { RunResult } from "../run-result.ts";
import { floorMs, lowerBound, type Work } from "../schedule.ts";
import { startSimHost } from "../sim-host.ts";

/** The row's executions, in order. */
const RUNS = ["dry", "apply", "dry"] as const;

export interface DurableRow extends Partial<RunResult> {
  projects: number;
  groups: number;
  strays: number;
  limits: "gitlab.com";
  /** The Lambda invocation timeout the row stands for (s), and the slice each invocation worked (WARDEN_SLICE_SECONDS). */
  invocationS: number;
  sliceS: number;
  /** Invocations of the three executions together; `executions` has each one's. */
  invocations: number;
  executions: Execution[];
  /** Wall time spent between invocations (the runner's real one-second waits): counted in wallMs. */
  pausedMs: number;
  requests: number;
  /** The three runs' lower bounds together (the re-reads Warden made included). */
  lowerBound: number;
  rateLimited: number;
  /** GET /projects/:id sent: plan-age re-reads (a plan older than 60 s), 429'd ones sent again included. */
  rechecks: number;
  /** Projects with a stray share: the lower bound and the floor count a re-read for each (at most `rechecks`). */
  subjects: number;
  /** The three runs' floors together, under the budgets, with the function's default concurrency. */
  floorMs: number;
  converged: boolean;
}

async function measureOne(bench: Bench, projects: number): Promise<DurableRow> {
  const { settings } = bench;
  const rules = budgetsFor("gitlab.com", settings.timeScale);
  const invocationS = settings.durableInvocationS;
  const sliceS = sliceSeconds(invocationS, settings.timeScale);
  const sim = await startSimHost({ projects, latencyMs: settings.latencyMs, rateLimits: rules });
  const aws = await startAwsStandIns(sim.token);
  try {
    const env = {
      ...aws.env,
      GITLAB_URL: sim.url,
      WARDEN_POLICY: bench.policy,
      WARDEN_REPORT_ONLY: "false",
      WARDEN_STAGE: "bench",
      WARDEN_SLICE_SECONDS: String(sliceS),
      AWS_LAMBDA_FUNCTION_NAME: "warden-bench-EnforceFunction",
    };
    // The floor gives each run fresh budgets: so does the wait between runs, a window of the per-minute
    // budgets (the 10-minute one counts GET /projects, which the job does not send). --timeout-s is for each
    // execution of up to 300,000 projects, and grows with a larger row's (--durable-projects).
    const result = await bench.run<DurableRunResult>("durable", [RUNS.join(","), String(60_000 / settings.timeScale)], { env, timeoutS: settings.timeoutS * RUNS.length * Math.max(1, projects / 300_000) });
    const counters = await sim.counters();
    const executions = result.executions ?? [];
    const [first, apply, last] = [executions[0], executions.find((e) => e.run === "apply"), executions.at(-1)];
    const rechecks = counters.byRoute["GET /projects/:id"] ?? 0;
    // One re-read per subject is the most the plan needs: a 429'd re-read sent again is Warden's excess, as every 429 is.
    const work: Work = { projects: sim.inScope, listings: sim.listings, groups: sim.groups, strays: sim.strays, rechecks: Math.min(rechecks, sim.strayProjects), auditPages: sim.auditPages, auditRounds: sim.auditRounds, authors: sim.authors };
    // After the apply, a run finds no stray, so attributes nothing.
    const runs = RUNS.map((run, i) => {
      const w = RUNS.indexOf("apply") < i ? { ...work, strays: 0 } : work;
      return { bound: lowerBound(w, run === "apply").requests, floor: floorMs(w, DEFAULT_LIST_CONCURRENCY, settings.latencyMs, rules, run === "apply", DEFAULT_REMOVAL_CONCURRENCY) };
    });
    return {
      projects: sim.inScope,
      groups: sim.groups,
      strays: sim.strays,
      limits: "gitlab.com",
      invocationS,
      sliceS,
      ...result,
      invocations: executions.reduce((n, e) => n + e.invocations, 0),
      executions,
      pausedMs: executions.reduce((n, e) => n + e.pausedMs, 0),
      requests: counters.requests,
      lowerBound: runs.reduce((n, r) => n + r.bound, 0),
      rateLimited: counters.status["429"] ?? 0,
      rechecks,
      subjects: sim.strayProjects,
      floorMs: runs.reduce((n, r) => n + r.floor, 0),
      // The first dry run planned exactly the strays, the apply removed that many, none is left, and the last dry run plans nothing.
      converged:
        !result.error &&
        executions.length === RUNS.length &&
        first?.strays === sim.strays &&
        apply?.removed === sim.strays &&
        (await sim.remainingStrays()) === 0 &&
        last?.strays === 0,
    };
  } finally {
    await aws.close();
    sim.stop();
  }
}

export const durableRows: RowKind<DurableRow> = {
  title: "Durable: the Enforce function as a Lambda durable execution",
  key: "durableRows",

  async measure(bench) {
    const rows: DurableRow[] = [];
    for (const projects of durableSizes(bench.settings)) {
      bench.progress(`${projects} projects, limits gitlab.com: Warden as a durable execution (dry run + apply + dry run)…`);
      rows.push(await measureOne(bench, projects));
    }
    return rows;
  },

  about(settings) {
    const sliceS = sliceSeconds(settings.durableInvocationS, settings.timeScale);
    return `Dry run + apply + dry run, each a durable execution of the Enforce function itself \
([functions/enforce.ts](../functions/enforce.ts), bundled) run by AWS's local durable runner (\`LocalDurableTestRunner\` from \
\`@aws/durable-execution-sdk-js-testing\`: checkpoints, replays and re-invocations as Lambda makes them) in a process of its own \
([bin/bench/durable-run.ts](../bin/bench/durable-run.ts)), with the deployed function's environment pointed at loopback stand-ins for \
Secrets Manager, S3 and the lease's DynamoDB ([bin/bench/aws-stand-ins.ts](../bin/bench/aws-stand-ins.ts)), each started as a console \
run starts one (\`{}\`, then \`{ "dryRun": false }\`). ${durableSizes(settings).map(count).join(" and ")} projects at ${settings.latencyMs} ms a request under \
GitLab.com's budgets (windows ÷ ${settings.timeScale}), with the function's defaults (${DEFAULT_LIST_CONCURRENCY} examination requests, \
${DEFAULT_REMOVAL_CONCURRENCY} removals in flight). The invocation is scaled like the windows: a ${settings.durableInvocationS / 60}-minute \
invocation works ${(sliceS * settings.timeScale) / 60} minutes before it pauses (the handler keeps 5 for what is in flight), so each \
invocation here works \`WARDEN_SLICE_SECONDS=${sliceS}\` and stays within Lambda's limit if it ends within \
${settings.durableInvocationS / settings.timeScale} s. The row is meant to be too large for one invocation (a target checks it): at \
300,000 projects the examination alone needs about 16 of GitLab.com's minutes (6,000 \`GET /groups/:id\` at 400 a minute). \
\`--durable-projects N\` (opt-in: 1,000,000 for issue 32's row) adds a row of N projects beside the default run's.`;
  },

  table(rows) {
    return table(
      ["projects", "groups", "strays", "limits", "slice", "invocations", "steps", "longest invocation", "wall", "paused", "floor", "wall ÷ floor", "requests", "lower bound", "× bound", "429s", "re-reads (subjects)", "largest checkpoint", "peak RSS", "converged"],
      "|---:|---:|---:|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
      rows.map((r) => [
        count(r.projects),
        String(r.groups),
        String(r.strays),
        r.limits,
        `${r.sliceS} s`,
        r.executions.map((e) => e.invocations).join(" + ") || "—",
        r.executions.map((e) => e.steps).join(" + ") || "—",
        r.executions.length ? s(Math.max(...r.executions.map((e) => e.longestInvocationMs))) : "—",
        s(r.wallMs),
        s(r.pausedMs),
        s(r.floorMs),
        ratio(r.wallMs!, r.floorMs),
        String(r.requests),
        String(r.lowerBound),
        (r.requests / r.lowerBound).toFixed(3),
        String(r.rateLimited),
        `${r.rechecks} (${r.subjects})`,
        largestCheckpointCell(r),
        rssCell(r),
        outcomeCell(r.converged, r.error),
      ]),
    );
  },

  legend: (_rows, settings) => `- *invocations*, *steps*: each execution's (dry run + apply + dry run), as Lambda made them and as the report's \
\`stats\` counts them (the runner checks that the two agree); \`--json\`'s \`durableRows\` has each execution's details. *longest invocation*: \
on the budgets' clock.
- *wall*: the three executions end to end, the local runner's real one-second waits between invocations included (*paused*); on the \
budgets' clock each such second stands for ${settings.timeScale}, so that part is overstated. Between executions the bench waits out the \
budgets' one-minute window (not counted), as runs started apart find their budgets fresh and as the floor assumes.
- *lower bound* and *floor*: the three runs' together, the apply's with one re-read per project with a stray (*subjects*): a plan older \
than 60 s is read again before removal. 429'd re-reads sent again count in *re-reads* and *requests*, not in the bound.
- *converged*: the first dry run planned exactly the simulator's strays, the apply removed exactly that many, none is left, and the last \
dry run plans nothing; no execution failed.
- *largest checkpoint*: the largest result one step checkpointed (its serialized text), of the three executions, and that step's \
name; Lambda keeps at \
most 256 KB of one. Steps hold a bounded part of the work, so a larger organisation makes more steps, not larger ones.
- *peak RSS*: the process holds the function, the local runner and its checkpoint server with the execution's history (which grows \
with the steps: Lambda keeps it outside the function): an upper bound on the function's own, not comparable \
with the CLI's rows.`,

  targets(all, settings) {
    if (!all.length) return [];
    const each = (f: (r: DurableRow) => string) => all.map((r) => `${count(r.projects)}: ${f(r)}`).join(", ");
    const invocations = (r: DurableRow) => r.executions.map((e) => `${e.run} ${e.invocations}`).join(", ");
    const longest = (r: DurableRow) => Math.max(...r.executions.map((e) => e.longestInvocationMs));
    return [
      { target: "durable execution: every execution needed more than one invocation", met: all.every((r) => r.executions.length > 0 && r.executions.every((e) => e.invocations > 1)), measured: each(invocations) },
      {
        target: "durable execution: every invocation within its time-scaled Lambda timeout",
        met: all.every((r) => r.executions.length > 0 && longest(r) <= (r.invocationS * 1000) / settings.timeScale),
        measured: each((r) => `longest ${(longest(r) / 1000).toFixed(1)} s of ${r.invocationS / settings.timeScale} s`),
      },
      { target: "durable execution under GitLab.com budgets: requests ≤ 1.02 × lower bound", met: all.every((r) => !r.error && r.requests <= 1.02 * r.lowerBound), measured: each((r) => ratio(r.requests, r.lowerBound, 3)) },
      ...checkpointTargets(all),
      { target: "durable execution: converged (the strays planned, exactly they removed, the last dry run plans nothing, no error)", met: all.every((r) => r.converged), measured: each((r) => (r.converged ? "converged" : (r.error ?? "not converged"))) },
    ];
  },
};

/** The default run's row (--durable), and the opt-in one (--durable-projects) when asked for and not the same size. */
function durableSizes(settings: { durable: number; durableProjects: number }): number[] {
  return [...new Set([settings.durable, settings.durableProjects])].filter((n) => n > 0);
}
