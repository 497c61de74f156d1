import { createRandom } from "../shared/random.ts";
import { byId } from "./state.ts";
import type { SimWorkflow } from "./types.ts";

const ID_ALPHABET = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"];
const STAGE_TAGS = [
  { id: "2tUt1wbLX592XDdX", name: "production" },
  { id: "Kd8s0QmZpW3rT1xE", name: "staging" },
  { id: "bN4vYc7LqA9eH2gU", name: "development" },
];
const TEAM_TAGS = [
  { id: "Rm5tJx1oPz8KwC6d", name: "finance" },
  { id: "fG2hV9sLn4QyB7aT", name: "marketing" },
  { id: "Xp3cW6eKj0UdM8rZ", name: "ops" },
];
const SUBJECTS = ["Invoice", "Lead", "Ticket", "Order", "Report", "Backup", "Alert", "Payroll"];
const ACTIONS = ["sync", "digest", "import", "cleanup", "notifier", "export"];
const START = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;

/**
 * Deterministic workflows for a seed, sorted by id (random ids, so id order is not creation order).
 * Fixed index patterns guarantee a few archived, trigger-less and webhook-conflicting workflows
 * from 20 workflows up; those are inactive, since n8n would not have let them be active.
 */
export function generateWorkflows(opts: { count: number; seed?: number }): SimWorkflow[] {
  const { next: random, pick } = createRandom(opts.seed ?? 1);
  return Array.from({ length: opts.count }, (_, i): SimWorkflow => {
    const isArchived = i % 16 === 7;
    const hasTrigger = i % 12 !== 5;
    const webhookConflict = i % 20 === 3;
    const createdAt = START + Math.floor(random() * 500 * DAY);
    const stage = random() < 0.9 ? [pick(STAGE_TAGS)] : [];
    const team = random() < 0.3 ? [pick(TEAM_TAGS)] : [];
    return {
      id: Array.from({ length: 16 }, () => pick(ID_ALPHABET)).join(""),
      name: `${pick(SUBJECTS)} ${pick(ACTIONS)} #${i + 1}`,
      active: !isArchived && hasTrigger && !webhookConflict && random() < 0.55,
      isArchived,
      createdAt: new Date(createdAt).toISOString(),
      updatedAt: new Date(createdAt + Math.floor(random() * 30 * DAY)).toISOString(),
      tags: [...stage, ...team],
      hasTrigger,
      webhookConflict,
    };
  }).sort(byId);
}

