/**
 * What every component of our SST stand-in shares with SST 4.17's own (platform/src/components):
 * a Pulumi ComponentResource of type `sst:aws:<Kind>`, and the rules a real deploy enforces that a
 * plain recorder would not — arguments SST's types do not have are refused (SST refuses them at
 * type-check time; here they fail at run time too, so a cast cannot hide one), and top-level
 * component names are unique, compared case-insensitively across every kind (SST's Link.reset).
 */
import * as pulumi from "@pulumi/pulumi";

export class Component extends pulumi.ComponentResource {
  constructor(kind: string, name: string, args: object, known: readonly string[], opts?: pulumi.ComponentResourceOptions) {
    const unknown = Object.keys(args).filter((key) => !known.includes(key));
    if (unknown.length > 0) throw new Error(`sst.aws.${kind} "${name}" has no argument ${unknown.map((k) => `"${k}"`).join(", ")} in SST 4.17`);
    // The arguments are the component's inputs, as SST's are: the tests read them from the mocks.
    super(`sst:aws:${kind}`, name, args as pulumi.Inputs, opts);
  }
}

/** SST's rule, registered once per program as SST's run() does: top-level SST components need unique names, and "App" is reserved. */
export function uniqueComponentNames(): void {
  const names = new Set<string>();
  pulumi.runtime.registerStackTransformation((args) => {
    if (!args.type.startsWith("sst:") || args.opts.parent) return undefined;
    const lower = args.name.toLowerCase();
    if (lower === "app") throw new Error(`Component name "${args.name}" is reserved. Please choose a different name for your "${args.type}" component.`);
    if (names.has(lower)) throw new Error(`Component name ${args.name} is not unique.`);
    names.add(lower);
    return undefined;
  });
}

/** "15 minutes", "24 hours", "14 days" → seconds, as SST's toSeconds reads its Duration strings. */
export function toSeconds(duration: string): number {
  const [count, unit] = duration.split(" ");
  const seconds = { second: 1, minute: 60, hour: 3600, day: 86_400 }[unit!.replace(/s$/, "")];
  if (seconds === undefined || !/^\d+$/.test(count!)) throw new Error(`"${duration}" is not an SST duration`);
  return Number(count) * seconds;
}

export const toDays = (duration: string): number => toSeconds(duration) / 86_400;

/** An IAM policy document, as SST builds one from `permissions` (and links) with getPolicyDocument. */
type Condition = { test: string; variable: string; values: string[] };

export function policyDocument(
  statements: pulumi.Input<{ actions: string[]; resources: pulumi.Input<pulumi.Input<string>[]>; conditions?: pulumi.Input<pulumi.Input<Condition>[]> }[]>,
): pulumi.Output<string> {
  const condition = (list: Condition[]) => {
    const out: Record<string, Record<string, string[]>> = {};
    for (const { test, variable, values } of list) (out[test] ??= {})[variable] = values;
    return out;
  };
  return pulumi.output(statements).apply((list) =>
    JSON.stringify({
      Version: "2012-10-17",
      Statement: list.map((s) => ({ Effect: "Allow", Action: s.actions, Resource: s.resources, ...(s.conditions?.length ? { Condition: condition(s.conditions as Condition[]) } : {}) })),
    }),
  );
}

export function assumeRolePolicy(service: string): string {
  return JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: service }, Action: "sts:AssumeRole" }] });
}
