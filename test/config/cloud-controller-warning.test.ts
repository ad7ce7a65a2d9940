/**
 * The kubelets of every workload node run with --cloud-provider=external: a cluster without the
 * OpenStack cloud controller manager add-on leaves every node tainted uninitialized and without
 * addresses unless the operator runs one of their own, so `validate` says so on the add-on's line.
 */
import * as fs from 'fs';
import { EnvironmentConfig } from '../../lib/config';
import { UNINITIALIZED_NODE_TAINT } from '../../lib/config/cloud-controller-warning';
import { makeEnv } from '../capi/fixtures';

const occmWarnings = (env: EnvironmentConfig) => env.warnings.filter((w) => w.path.endsWith('.addons.openstackCloudControllerManager'));

describe('a cluster without the OpenStack cloud controller manager', () => {
  test('is warned about on the add-on\'s line, naming the taint its nodes keep and both ways out', () => {
    const env = makeEnv('clusters:\n  a: {}\n  b:\n    addons:\n      openstackCloudControllerManager: false\n');
    const warnings = occmWarnings(env);
    expect(warnings.map((w) => w.path)).toEqual(['clusters.b.addons.openstackCloudControllerManager']);
    const line = fs.readFileSync(env.file, 'utf8').split('\n').findIndex((l) => l.includes('openstackCloudControllerManager: false')) + 1;
    expect(warnings[0].line).toBe(line);
    expect(warnings[0].message).toContain(`cluster "b"`);
    expect(warnings[0].message).toContain(`${UNINITIALIZED_NODE_TAINT}:NoSchedule`);
    expect(warnings[0].message).toContain('--cloud-provider=external');
    expect(warnings[0].message).toMatch(/a cloud controller manager you install yourself.*set addons\.openstackCloudControllerManager: true/);
  });

  test('a cluster that keeps the add-on (by default or set true) is not warned about', () => {
    const env = makeEnv('clusters:\n  a: {}\n  b:\n    addons:\n      openstackCloudControllerManager: true\n');
    expect(occmWarnings(env)).toEqual([]);
  });
});
