import { reconcileWorkflows, count } from "../../lib/jobs/index.ts";
import { auditTrail, n8nFrom, policyFrom, printReport, progressLine } from "./io.ts";
import { type CliIO, type Command, COMMON_OPTIONS_HELP, FORMAT_HELP } from "./command.ts";

export const workflowsCommand: Command = {
  name: "workflows",
  summary: "switch n8n workflows on or off as the policy says (dry run unless --apply)",
  usage: `Usage: warden workflows [--apply] [--audit-log FILE] [--policy FILE] [--format text|markdown|json] [--debug]

Lists every n8n workflow and compares which are active with the policy's n8n.workflows: an active
workflow no keepActive selector matches is deactivated, an inactive one a selector matches is
activated. Only activation changes, by workflow id; an archived workflow is never activated, and one
that is active (n8n 1.x runs it all the same) is kept only by an id: selector. Nothing
changes without --apply; with it, the plan is applied unless it exceeds n8n.guard.maxChanges.

Where the policy says "report" (unlisted: report, listedInactive: report) the finding is listed
with status "reported" and never changed. Reported findings do not affect the exit code. Where n8n
keeps versions (2.x), activating publishes the latest saved version, which any editor may have
written: listedInactive: activate reports it, listedInactive: publish publishes it.

Options:
  --apply          make the planned changes
  --audit-log FILE append one JSON line per change to FILE as it happens (a record: warden restore
                   brings back shares, not workflows)
  --policy FILE    policy file (default: $WARDEN_POLICY, else warden.yaml)
${FORMAT_HELP}
${COMMON_OPTIONS_HELP}

Environment:
  N8N_URL          address of the n8n instance (scheme, host, port, optional path), without /api/v1
  N8N_API_KEY      an n8n API key of the instance owner or an admin (another user's
                   lists only its own projects' workflows: the rest go unseen); on
                   n8n 2.x it needs the scopes workflow:list, workflow:read,
                   workflow:activate and workflow:deactivate

Works with n8n 1.x (activate/deactivate) and 2.x (publish/unpublish), learned from the first change.

Exit codes: 0 in policy (reported findings aside) or all applied, 1 error or a change that failed,
2 dry run found changes, 3 guard tripped (nothing changed).`,
  options: { apply: { type: "boolean" }, "audit-log": { type: "string" } },
  async run(args, io: CliIO) {
    const { values } = args;
    const [policy, n8n] = [await policyFrom(args, io), n8nFrom(io)];
    const progress = progressLine(io);
    const trail = auditTrail(io, args);
    const report = await reconcileWorkflows({
      n8n,
      policy,
      apply: values["apply"] === true,
      signal: trail.signal,
      audit: trail.sink,
      onProgress: ({ workflows, changes }) => progress.update(() => `listed ${count(workflows, "workflow")}, ${count(changes, "change")}`),
    }).finally(() => {
      progress.done();
      trail.close();
    });
    return trail.exitCode(printReport(io, report, args));
  },
};
