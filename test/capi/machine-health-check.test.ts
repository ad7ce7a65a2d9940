/**
 * How many unhealthy machines a MachineHealthCheck may still remediate. Cluster API rounds a
 * percentage down over the machines the check covers (intstr.GetScaledValueFromIntOrPercent with
 * roundUp false), so the checks carry the count the environment's percentage allows, at least one.
 */
import { buildClusterObjects, unhealthyMachinesRemediated } from '../../lib/capi';
import { validateAgainstCrd } from '../support/crd-validator';
import { inputsFor, makeEnv } from './fixtures';
import { one } from './object-queries';

const limits = (yaml: string, cluster = 'c') => {
  const objs = buildClusterObjects(inputsFor(makeEnv(yaml), cluster));
  return Object.fromEntries(['control-plane', 'workers'].map((k) => [k, one(objs, 'MachineHealthCheck', `${cluster}-${k}`).spec.remediation.triggerIf.unhealthyLessThanOrEqualTo]));
};

describe('MachineHealthCheck remediation limit', () => {
  test('the default remediates the one dead machine of a small cluster: 1 control-plane machine and 2 workers allow 1 each (40 % of them rounds down to 0)', () => {
    expect(limits('clusters:\n  c:\n    nodeGroups:\n      - { name: md-0, count: 2 }\n')).toEqual({ 'control-plane': 1, workers: 1 });
    expect(limits('clusters:\n  c:\n    nodeGroups:\n      - { name: md-0, count: 1 }\n')).toEqual({ 'control-plane': 1, workers: 1 });
  });

  test('larger groups keep the share: many unhealthy at once stop remediation', () => {
    // 40 % of 3 control-plane machines is 1; of 4 + 6 workers (all node groups together) 4
    expect(limits('clusters:\n  c:\n    controlPlane: { count: 3 }\n    nodeGroups:\n      - { name: a, count: 4 }\n      - { name: b, count: 6 }\n')).toEqual({ 'control-plane': 1, workers: 4 });
    expect(limits('clusters:\n  c:\n    controlPlane: { count: 5 }\n    machineHealthCheck: { maxUnhealthyPercent: 50 }\n    nodeGroups:\n      - { name: a, count: 9 }\n')).toEqual({ 'control-plane': 2, workers: 4 });
  });

  test('rounds down like Cluster API, at least one; 0 % never remediates', () => {
    expect([[40, 1], [40, 2], [40, 3], [40, 5], [40, 10], [34, 6], [100, 2], [1, 50], [0, 3], [0, 100], [40, 0]].map(([p, n]) => unhealthyMachinesRemediated(p, n))).toEqual([1, 1, 1, 2, 4, 2, 2, 1, 0, 0, 1]);
    expect(limits('clusters:\n  c:\n    machineHealthCheck: { maxUnhealthyPercent: 0 }\n')).toEqual({ 'control-plane': 0, workers: 0 });
  });

  test('the count is an integer the MachineHealthCheck CRD accepts', () => {
    const objs = buildClusterObjects(inputsFor(makeEnv('clusters:\n  c:\n    nodeGroups:\n      - { name: md-0, count: 2 }\n'), 'c'));
    for (const name of ['c-control-plane', 'c-workers']) expect(validateAgainstCrd(one(objs, 'MachineHealthCheck', name) as any)).toEqual([]);
  });
});
