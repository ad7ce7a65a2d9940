import { App, Testing } from 'cdktf';
import { parseEnvironment } from '../../lib/config/load';
import { EnvironmentConfig } from '../../lib/config/resolve';
import { buildEnvironmentStacks, EnvironmentStacks } from '../../lib/stacks/environment-stacks';

/** A minimal valid environment; `extra` is appended YAML. */
export function environmentYaml(extra = ''): string {
  return `prefix: capi
cloud:
  name: testcloud
  authUrl: https://keystone.test:5000/v3
  region: RegionOne
network:
  externalNetworkName: public
${extra}`;
}

export function environment(yamlText: string, name = 'unit'): EnvironmentConfig {
  return parseEnvironment(yamlText, `environments/${name}.yaml`);
}

export interface SynthesizedEnvironment {
  readonly stacks: EnvironmentStacks;
  /** Terraform JSON by stack name. */
  readonly json: Record<string, any>;
}

export function synthEnvironment(env: EnvironmentConfig): SynthesizedEnvironment {
  const app: App = Testing.app();
  const stacks = buildEnvironmentStacks(app, env);
  const json: Record<string, any> = {};
  const all = [...(stacks.management ? [stacks.management] : []), ...Object.values(stacks.clusters)];
  for (const s of all) json[s.node.id] = JSON.parse(Testing.synth(s));
  return { stacks, json };
}

/** Resources of one type as a list of their bodies. */
export function resourcesOf(stackJson: any, type: string): any[] {
  return Object.values(stackJson.resource?.[type] ?? {});
}
