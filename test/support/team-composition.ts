/**
 * A platform team's own composition, as the README's library section allows: an environment built
 * in code (no file), the management cluster in a stack of their own id, two workload clusters in
 * one stack of another id. Nothing of it follows the ready-made `<env>-management` / `<env>-<cluster>`
 * naming, so what finds these stacks must read what the app synthesized.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import {
  environmentFromObject,
  KubernetesProvider,
  ManagementCluster,
  managementKubernetesConnection,
  OpenstackProvider,
  TimeProvider,
  TlsProvider,
  WorkloadCluster,
} from '../../lib';
import { EnvironmentConfig } from '../../lib/config/resolve';
import { DEPLOY_CIDR } from './deploy-access';

export const TEAM_MANAGEMENT_STACK = 'platform-capi';
export const TEAM_WORKLOAD_STACK = 'apps';

/** What an environment file would hold, as data; `extra` is merged at the top level. */
export function teamEnvironmentInput(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    prefix: 'team',
    cloud: { name: 'testcloud', authUrl: 'https://keystone.test:5000/v3', region: 'RegionOne' },
    network: { externalNetworkName: 'public' },
    management: { apiAllowedCidrs: [DEPLOY_CIDR] },
    clusters: { web: { kubernetesVersion: 'v1.36.x' }, api: { kubernetesVersion: 'v1.36.x' } },
    ...extra,
  };
}

export function teamEnvironment(extra: Record<string, unknown> = {}, name = 'acme'): EnvironmentConfig {
  return environmentFromObject(name, teamEnvironmentInput(extra) as never);
}

/** The team's stacks in `app`. */
export function buildTeamApp(app: App, environment: EnvironmentConfig): { management: ManagementCluster; workloads: WorkloadCluster[] } {
  const platform = new TerraformStack(app, TEAM_MANAGEMENT_STACK);
  new OpenstackProvider(platform, 'Cloud', { cloud: environment.cloud.name });
  new TlsProvider(platform, 'Certificates');
  const management = new ManagementCluster(platform, 'Management', { environment });
  const apps = new TerraformStack(app, TEAM_WORKLOAD_STACK);
  new OpenstackProvider(apps, 'Cloud', { cloud: environment.cloud.name });
  new TimeProvider(apps, 'Time');
  new KubernetesProvider(apps, 'Capi', managementKubernetesConnection(management));
  const workloads = environment.clusters.map((cluster) => new WorkloadCluster(apps, `Cluster-${cluster.name}`, { environment, cluster, management: { kind: 'created', cluster: management } }));
  apps.addDependency(platform);
  return { management, workloads };
}

/** Synthesizes the team's app into `outdir` (a fresh temporary one by default); returns it and the stacks' JSON by id. */
export function synthTeamApp(environment: EnvironmentConfig, outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'team-app-'))): { outdir: string; json: Record<string, any> } {
  const app = new App({ outdir });
  buildTeamApp(app, environment);
  app.synth();
  const dir = path.join(outdir, 'stacks');
  return { outdir, json: Object.fromEntries(fs.readdirSync(dir).map((s) => [s, JSON.parse(fs.readFileSync(path.join(dir, s, 'cdk.tf.json'), 'utf8'))])) };
}
