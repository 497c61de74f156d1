/**
 * What a restore's report tells of the invited group (the restore12 review). restore reads the invited group
 * by the id the input gives, with the administrator's token, and names it in the report (and in its
 * policy reason) as GitLab calls it; where the input called it otherwise and the share is not to be
 * created, it is named by its id (the restore12 review), whatever the input called it (a share kept only by an
 * exemption of all its subject's shares too, and a right guess of its path told as a wrong one is: the today10
 * review). The subject (project or sharing
 * group) is treated as a secret when it is out of scope (out-of-scope-names.test.ts), and the invited
 * group so too: else whoever may hand restore an input (a console invoker, anyone who edits a
 * CI artifact or an audit log a dry run reads) learns the full path of any group on the instance, a
 * private one they cannot see in GitLab included, by a dry run that changes nothing.
 */
import { describe, expect, it } from "vitest";
import { parseRestoreText, restore } from "../../../lib/jobs/index.ts";
import { renderMarkdown, renderSlack, renderText } from "../../../lib/jobs/render/index.ts";
import { validated } from "../../support/report.ts";
import { client, onlyGets, setup, sim, standard } from "../../support/restore-world.ts";

describe("restore: the invited group's path", () => {
  it("a dry run naming a private outside group by id only does not tell that group's path", async () => {
    await setup();
    // A private group outside the scope, which a developer of acme cannot see in GitLab.
    const secret = sim.dataset.groups.find((g) => g.full_path === "partners/agency-y")!;
    expect(secret.visibility).toBe("private");
    // An acme project (in scope) not shared with it: the input names the secret group's id only, under a made-up name.
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/") && !p.shared_with_groups.some((s) => s.group_id === secret.id))!;
    const input = JSON.stringify({
      job: "enforce",
      dryRun: false,
      actions: [{ type: "remove-share", kind: "project", projectId: project.id, project: project.path_with_namespace, groupId: secret.id, group: "acme/guess", accessLevel: 10, expiresAt: null, reason: "stray", status: "done" }],
    });
    sim.resetCounters();
    const out = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(input) }));
    expect(onlyGets()).toBe(true);
    const outputs = {
      json: JSON.stringify(out),
      text: renderText(out, { color: false, width: 200 }),
      markdown: renderMarkdown(out),
      slack: JSON.stringify(renderSlack(out)),
    };
    for (const [name, text] of Object.entries(outputs)) {
      expect(text, `the ${name} output names the private group #${secret.id} the input only gave an id for`).not.toContain(secret.full_path);
    }
  });
});

function input(projectId: number, project: string, groupId: number, group: string) {
  return JSON.stringify({
    job: "enforce",
    dryRun: false,
    actions: [{ type: "remove-share", kind: "project", projectId, project, groupId, group, accessLevel: 10, expiresAt: null, reason: "stray", status: "done" }],
  });
}

function outputs(out: Parameters<typeof renderText>[0]) {
  return {
    json: JSON.stringify(out),
    text: renderText(out, { color: false, width: 200 }),
    markdown: renderMarkdown(out),
    slack: JSON.stringify(renderSlack(out as never)),
  };
}

describe("restore: a skipped share's invited group, named by its id whatever the input said", () => {
  it("a share on a project exempt as a whole (acme/legacy/**, no sharedWith), skipped, does not tell a private group's path the input gave only an id of", async () => {
    await setup();
    const secret = sim.dataset.groups.find((g) => g.full_path === "partners/agency-y")!;
    expect(secret.visibility).toBe("private");
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/legacy/") && !p.shared_with_groups.some((s) => s.group_id === secret.id))!;
    expect(project).toBeDefined();
    sim.resetCounters();
    const out = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(input(project.id, project.path_with_namespace, secret.id, "acme/guess")) }));
    expect(onlyGets()).toBe(true);
    expect(out.actions[0]).toMatchObject({ status: "skipped" });
    for (const [name, text] of Object.entries(outputs(out))) {
      expect(text, `the ${name} output of a skipped share names the private group #${secret.id} the input only gave an id for`).not.toContain(secret.full_path);
    }
  });

  it("whether a guessed path is right does not show: a right guess and a wrong one are reported alike", async () => {
    await setup();
    const secret = sim.dataset.groups.find((g) => g.full_path === "partners/agency-y")!;
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/") && !p.shared_with_groups.some((s) => s.group_id === secret.id))!;
    const judged = async (guess: string) => {
      const out = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(input(project.id, project.path_with_namespace, secret.id, guess)) }));
      expect(out.actions[0]).toMatchObject({ status: "skipped" });
      return out.actions[0]!.group;
    };
    const wrong = await judged("partners/agency-z");
    const right = await judged("PARTNERS/AGENCY-Y");
    // The same answer either way: otherwise each action of an input is one guess confirmed or refused (and the case of the real path told).
    expect({ right }).toEqual({ right: wrong });
  });
});
