/**
 * The durable rows' checkpoint targets (issue 32, point 4), pure so test/bench tests them: no step's
 * checkpoint reaches Lambda's 256 KB for one operation, and the largest does not grow with the number of
 * projects (steps hold at most a fixed number of findings or changes: functions/shared/durable/steps.ts),
 * so a larger organisation means more steps, never larger ones.
 */
import { CHECKPOINT_LIMIT } from "../../../functions/shared/durable/steps.ts";
import { count } from "../format.ts";
import type { Target } from "../row-kind.ts";
/** How much larger the largest checkpoint of a larger row may be: noise in what a page holds, not growth. */
export const CHECKPOINT_GROWTH = 1.25;

export interface CheckpointRow {
  projects: number;
  executions: { largestStepBytes: number; largestStep: string }[];
}

export const largestCheckpoint = (row: CheckpointRow): number => Math.max(0, ...row.executions.map((e) => e.largestStepBytes));

/** The largest checkpoint's size and its step's name, for a table cell. */
export function largestCheckpointCell(row: CheckpointRow): string {
  const step = row.executions.reduce<CheckpointRow["executions"][number] | undefined>((a, b) => (!a || b.largestStepBytes > a.largestStepBytes ? b : a), undefined);
  return step ? `${kb(step.largestStepBytes)} (${step.largestStep})` : "—";
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function checkpointTargets(rows: CheckpointRow[]): Target[] {
  const measured = rows.filter((r) => r.executions.length);
  if (!measured.length) return [];
  const each = measured.map((r) => `${count(r.projects)}: ${kb(largestCheckpoint(r))}`).join(", ");
  const targets: Target[] = [{ target: `durable execution: every step's checkpoint within Lambda's ${CHECKPOINT_LIMIT / 1024} KB`, met: measured.every((r) => largestCheckpoint(r) <= CHECKPOINT_LIMIT), measured: `largest ${each}` }];
  if (measured.length > 1) {
    const [smallest, largest] = [measured.reduce((a, b) => (b.projects < a.projects ? b : a)), measured.reduce((a, b) => (b.projects > a.projects ? b : a))];
    const growth = largestCheckpoint(largest) / largestCheckpoint(smallest);
    targets.push({
      target: `durable execution: the largest checkpoint does not grow with the number of projects (≤ ${CHECKPOINT_GROWTH}× from ${count(smallest.projects)} to ${count(largest.projects)})`,
      met: growth <= CHECKPOINT_GROWTH,
      measured: `${growth.toFixed(2)}×`,
    });
  }
  return targets;
}
