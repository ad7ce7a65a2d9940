/**
 * The stacks of one environment as the operator commands use them: which holds the management
 * cluster and which each workload cluster, the Terraform names of their outputs, and where each
 * keeps its state. Read from what the app synthesized (the records its cluster constructs wrote,
 * so any stack ids work); for an environment the app did not record (never synthesized, or
 * synthesized before the constructs wrote records), derived from its file and the ready-made app's
 * naming (`<env>-management`, `<env>-<cluster>`).
 */
import * as path from 'path';
import { EnvironmentConfig } from '../../config/resolve';
import { stateLocation } from '../../config/state-backend';
import { MANAGEMENT_OUTPUTS, WORKLOAD_OUTPUTS } from '../../config/stack-records';
import { CdktfProject } from './cdktf-project';
import { CliError } from './errors';
import { displayPath } from './io';
import { StackBackend } from './synthesized-app';

export interface OperatorStack {
  readonly id: string;
  readonly role: 'management' | 'workload';
  /** The workload cluster's name. */
  readonly cluster?: string;
  /** Construct path of the cluster in the app (recorded stacks only). */
  readonly path?: string;
  /** Where Terraform runs for it. */
  readonly dir: string;
  /** Terraform output names by what they hold (`kubeconfig`, `kubeconfig_secret`, …). */
  readonly outputs: Readonly<Record<string, string>>;
  readonly backend: StackBackend;
}

export interface EnvironmentStacks {
  readonly environment: string;
  /** `app`: recorded by the synthesized app; `naming`: derived from the environment file. */
  readonly from: 'app' | 'naming';
  /** Where they came from, for messages: the output directory, or the environment file. */
  readonly where: string;
  /** Management first, then the workload clusters by name. */
  readonly stacks: readonly OperatorStack[];
}

const identity = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, n]));

/** The stacks the synthesized app recorded for environment `name`, or undefined when it recorded none. */
export function recordedStacks(project: CdktfProject, cwd: string, name: string): EnvironmentStacks | undefined {
  const recorded = (project.synthesized()?.stacks ?? []).flatMap((stack) =>
    (stack.records?.clusters ?? [])
      .filter((c) => c.environment === name)
      .map((c): OperatorStack => ({ id: stack.id, role: c.role, cluster: c.role === 'workload' ? c.cluster : undefined, path: c.path, dir: stack.dir, outputs: c.outputs, backend: stack.backend })),
  );
  if (recorded.length === 0) return undefined;
  const order = (s: OperatorStack) => (s.role === 'management' ? '' : `~${s.cluster}`);
  return { environment: name, from: 'app', where: `the app synthesized at ${displayPath(cwd, project.outDir)}`, stacks: [...recorded].sort((a, b) => order(a).localeCompare(order(b)) || a.id.localeCompare(b.id)) };
}

/** The stacks the ready-made app gives an environment: `<env>-management` (unless it brings its own) and `<env>-<cluster>`. */
export function namedStacks(project: CdktfProject, env: EnvironmentConfig, shown: string): EnvironmentStacks {
  const backend = (id: string): StackBackend => {
    const location = stateLocation(env, id);
    return location ? { kind: 's3', location, lockfile: true } : { kind: 'local' };
  };
  const dir = (id: string) => path.join(project.outDir, 'stacks', id);
  const management: OperatorStack[] = env.spec.existingManagementCluster
    ? []
    : [{ id: env.managementStackName, role: 'management', dir: dir(env.managementStackName), outputs: identity(MANAGEMENT_OUTPUTS), backend: backend(env.managementStackName) }];
  const workloads = env.clusters.map((c): OperatorStack => ({ id: c.stackName, role: 'workload', cluster: c.name, dir: dir(c.stackName), outputs: identity(WORKLOAD_OUTPUTS), backend: backend(c.stackName) }));
  return { environment: env.name, from: 'naming', where: shown, stacks: [...management, ...workloads] };
}

/**
 * The environment's stacks: as the app recorded them, else by the ready-made app's naming.
 * @param environment loads it (file or record); called only when the app did not record it
 */
export function environmentStacks(project: CdktfProject, cwd: string, name: string, environment: () => { config: EnvironmentConfig; shown: string }): EnvironmentStacks {
  const recorded = recordedStacks(project, cwd, name);
  if (recorded) return recorded;
  const { config, shown } = environment();
  return namedStacks(project, config, shown);
}

const list = (stacks: readonly OperatorStack[]) => stacks.map((s) => (s.path ? `${s.id} (${s.path})` : s.id)).join(', ');

/** The stack of the environment's management cluster; `override` (a stack id) wins, with its recorded output names when it has them. */
export function managementStack(view: EnvironmentStacks, project: CdktfProject, override?: string): OperatorStack {
  if (override) return chosen(view, project, override, 'management');
  const found = view.stacks.filter((s) => s.role === 'management');
  if (found.length === 0) {
    throw new CliError(`environment ${view.environment} has no management cluster in ${view.where} (its stacks: ${list(view.stacks) || 'none'}); name the stack with --management-stack`);
  }
  if (found.length > 1) throw new CliError(`environment ${view.environment} has ${found.length} management clusters in ${view.where}: ${list(found)}; name one with --management-stack`);
  return found[0];
}

/** The stack of one workload cluster; `override` (a stack id) wins. */
export function workloadStack(view: EnvironmentStacks, project: CdktfProject, cluster: string, override?: string): OperatorStack {
  if (override) return chosen(view, project, override, 'workload', cluster);
  const found = view.stacks.filter((s) => s.role === 'workload' && s.cluster === cluster);
  if (found.length === 0) {
    const names = view.stacks.filter((s) => s.role === 'workload').map((s) => s.cluster);
    const hint = view.from === 'app' ? '; after changing the environment, run `cdktf synth` again' : '';
    throw new CliError(`environment ${view.environment} has no cluster "${cluster}" in ${view.where} (clusters: ${names.join(', ') || 'none'})${hint}`);
  }
  if (found.length > 1) throw new CliError(`cluster "${cluster}" of environment ${view.environment} is in ${found.length} stacks of ${view.where}: ${list(found)}; name one with --stack`);
  return found[0];
}

/**
 * A stack named on the command line: the output names its record gives (the record of this
 * environment and cluster first, else its only record of that role), else the ready-made app's.
 */
function chosen(view: EnvironmentStacks, project: CdktfProject, id: string, role: 'management' | 'workload', cluster?: string): OperatorStack {
  const synthesized = project.synthesized()?.stacks.find((s) => s.id === id);
  const ofRole = (synthesized?.records?.clusters ?? []).filter((c) => c.role === role);
  const exact = ofRole.filter((c) => c.environment === view.environment && (c.role === 'management' || c.cluster === cluster));
  const candidates = exact.length > 0 ? exact : ofRole;
  if (candidates.length > 1) {
    throw new CliError(`stack ${id} holds ${candidates.length} ${role} clusters (${candidates.map((r) => r.path).join(', ')}), with outputs of different names: name the cluster that is yours, or read them with terraform output`);
  }
  const record = candidates[0];
  return {
    id,
    role,
    cluster,
    path: record?.path,
    dir: synthesized?.dir ?? path.join(project.outDir, 'stacks', id),
    outputs: record?.outputs ?? identity(role === 'management' ? MANAGEMENT_OUTPUTS : WORKLOAD_OUTPUTS),
    backend: synthesized?.backend ?? view.stacks.find((s) => s.id === id)?.backend ?? { kind: 'local' },
  };
}
