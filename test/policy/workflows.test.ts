import { describe, expect, it } from "vitest";
import { decideWorkflow, maxWorkflowChanges, parsePolicy } from "../../lib/policy/index.ts";
import type { WorkflowDecision, WorkflowInput } from "../../lib/policy/index.ts";

const selectors = `["tag:production", "name:Nightly backup", "id:7hG2kq"]`;

function policyWith(workflows: string) {
  return parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ${selectors}\n${workflows}`, "n8n.yaml");
}

const acting = policyWith("    unlisted: deactivate\n    listedInactive: activate\n");
const reporting = policyWith(""); // both default to report

const wf = (over: Partial<WorkflowInput>): WorkflowInput => ({
  id: "aaaa1111",
  name: "Some workflow",
  tags: [],
  active: false,
  archived: false,
  versioned: false,
  ...over,
});

const UNLISTED = "active but no keepActive selector matches it";
const NOT_PUBLISHED =
  "not published: n8n would make its latest saved version live, which any editor of it may have written (publish it in n8n, or set n8n.workflows.listedInactive: publish to have Warden publish it)";
const ARCHIVED_UNLISTED = "active and archived, but no keepActive id: selector names it (only its id keeps an archived workflow active)";

describe("decideWorkflow", () => {
  it.each<[string, WorkflowInput, WorkflowDecision, WorkflowDecision]>([
    // [case, workflow, decision when the policy acts, decision when it reports]
    ["active and tagged production", wf({ active: true, tags: ["billing", "production"] }), { kind: "keep" }, { kind: "keep" }],
    ["active with the listed name", wf({ active: true, name: "Nightly backup" }), { kind: "keep" }, { kind: "keep" }],
    ["active with the listed id", wf({ active: true, id: "7hG2kq" }), { kind: "keep" }, { kind: "keep" }],
    ["inactive and unlisted", wf({ active: false }), { kind: "keep" }, { kind: "keep" }],
    ["active and unlisted", wf({ active: true }),
      { kind: "deactivate", reason: UNLISTED, apply: true }, { kind: "deactivate", reason: UNLISTED, apply: false }],
    ["active with a name differing in case", wf({ active: true, name: "nightly backup" }),
      { kind: "deactivate", reason: UNLISTED, apply: true }, { kind: "deactivate", reason: UNLISTED, apply: false }],
    ["active with an id differing in case", wf({ active: true, id: "7HG2KQ" }),
      { kind: "deactivate", reason: UNLISTED, apply: true }, { kind: "deactivate", reason: UNLISTED, apply: false }],
    ["active with a tag only containing the listed one", wf({ active: true, tags: ["production-eu"] }),
      { kind: "deactivate", reason: UNLISTED, apply: true }, { kind: "deactivate", reason: UNLISTED, apply: false }],
    ["inactive and tagged production", wf({ tags: ["production"] }),
      { kind: "activate", reason: 'inactive but keepActive selector "tag:production" matches it', apply: true },
      { kind: "activate", reason: 'inactive but keepActive selector "tag:production" matches it', apply: false }],
    ["inactive with the listed id", wf({ id: "7hG2kq" }),
      { kind: "activate", reason: 'inactive but keepActive selector "id:7hG2kq" matches it', apply: true },
      { kind: "activate", reason: 'inactive but keepActive selector "id:7hG2kq" matches it', apply: false }],
    // n8n 1.x activates an archived workflow, whose triggers then run: judged as any active one.
    ["archived, active and unlisted", wf({ archived: true, active: true }),
      { kind: "deactivate", reason: ARCHIVED_UNLISTED, apply: true }, { kind: "deactivate", reason: ARCHIVED_UNLISTED, apply: false }],
    // And only an id: selector keeps it: a name or a tag is anyone's to give to a retired copy.
    ["archived, active and tagged production", wf({ archived: true, active: true, tags: ["production"] }),
      { kind: "deactivate", reason: ARCHIVED_UNLISTED, apply: true }, { kind: "deactivate", reason: ARCHIVED_UNLISTED, apply: false }],
    ["archived, active with the listed name", wf({ archived: true, active: true, name: "Nightly backup" }),
      { kind: "deactivate", reason: ARCHIVED_UNLISTED, apply: true }, { kind: "deactivate", reason: ARCHIVED_UNLISTED, apply: false }],
    ["archived, active with the listed id", wf({ archived: true, active: true, id: "7hG2kq" }), { kind: "keep" }, { kind: "keep" }],
    ["archived, inactive and listed", wf({ archived: true, tags: ["production"] }), { kind: "keep" }, { kind: "keep" }],
    // Where n8n keeps versions (2.x), activating publishes the latest saved one, which any editor may have written: reported only.
    ["inactive, listed, with versions", wf({ tags: ["production"], versioned: true }),
      { kind: "activate", reason: `inactive but keepActive selector "tag:production" matches it; ${NOT_PUBLISHED}`, apply: false },
      { kind: "activate", reason: 'inactive but keepActive selector "tag:production" matches it', apply: false }],
    ["active and unlisted, with versions", wf({ active: true, versioned: true }),
      { kind: "deactivate", reason: UNLISTED, apply: true }, { kind: "deactivate", reason: UNLISTED, apply: false }],
  ])("%s", (_, workflow, whenActing, whenReporting) => {
    expect(decideWorkflow(acting, workflow)).toEqual(whenActing);
    expect(decideWorkflow(reporting, workflow)).toEqual(whenReporting);
  });

  it("publish activates where n8n keeps versions too, and where it does not, as activate does", () => {
    const publishing = policyWith("    unlisted: deactivate\n    listedInactive: publish\n");
    const reason = 'inactive but keepActive selector "tag:production" matches it';
    for (const versioned of [true, false]) expect(decideWorkflow(publishing, wf({ tags: ["production"], versioned }))).toEqual({ kind: "activate", reason, apply: true });
  });

  it("acts on each setting independently", () => {
    const mixed = policyWith("    unlisted: report\n    listedInactive: activate\n");
    expect(decideWorkflow(mixed, wf({ active: true }))).toMatchObject({ kind: "deactivate", apply: false });
    expect(decideWorkflow(mixed, wf({ tags: ["production"] }))).toMatchObject({ kind: "activate", apply: true });
  });

  it("touches nothing when the policy has no n8n section", () => {
    const none = parsePolicy("version: 1\n", "none.yaml");
    expect(decideWorkflow(none, wf({ active: true }))).toEqual({ kind: "keep" });
  });

  it("keeps every workflow inactive when keepActive is empty", () => {
    const empty = parsePolicy("version: 1\nn8n:\n  workflows:\n    keepActive: []\n    unlisted: deactivate\n", "n8n.yaml");
    expect(decideWorkflow(empty, wf({ active: true, tags: ["production"] }))).toMatchObject({ kind: "deactivate", apply: true });
  });
});

describe("maxWorkflowChanges", () => {
  it("reads the guard, 10 by default", () => {
    expect(maxWorkflowChanges(parsePolicy(`version: 1\nn8n:\n  workflows: { keepActive: [] }\n  guard: { maxChanges: 3 }\n`, "a"))).toBe(3);
    expect(maxWorkflowChanges(reporting)).toBe(10);
    expect(maxWorkflowChanges(parsePolicy("version: 1\n", "b"))).toBe(10);
  });
});
