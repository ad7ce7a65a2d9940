/** Environment files for tests, as text and parsed: config only, no framework (the cdktn tier leaves such tests out). */
import { parseEnvironment } from '../../lib/config/load';
import { EnvironmentConfig } from '../../lib/config/resolve';
import { withDeployAccess } from './deploy-access';

/** A minimal valid environment; `extra` is appended YAML (deployed from {@link DEPLOY_CIDR}). */
export function environmentYaml(extra = ''): string {
  return withDeployAccess(`prefix: capi
cloud:
  name: testcloud
  authUrl: https://keystone.test:5000/v3
  region: RegionOne
network:
  externalNetworkName: public
${extra}`);
}

export function environment(yamlText: string, name = 'unit'): EnvironmentConfig {
  return parseEnvironment(yamlText, `environments/${name}.yaml`);
}
