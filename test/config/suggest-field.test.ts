import { parseEnvironment } from '../../lib/config/load';
import { knownFields, suggestField } from '../../lib/config/suggest-field';

describe('unknown fields get a "did you mean"', () => {
  test('typos at the top, inside a cluster and inside add-ons', () => {
    expect(suggestField([], 'managment')).toBe('management');
    expect(suggestField(['clusters', 'prod'], 'nodeGroup')).toBe('nodeGroups');
    expect(suggestField(['clusters', 'prod', 'addons'], 'certmanager')).toBe('certManager');
    expect(suggestField(['clusters', 'prod', 'nodeGroups', 0], 'flavour')).toBe('flavor');
  });

  test('no suggestion for something unrelated', () => {
    expect(suggestField([], 'kubernetes')).toBeUndefined();
    expect(knownFields(['clusters', 'prod', 'addons', 'openstackCloudControllerManager'])).toEqual(['enabled', 'version']);
  });

  test('in the message of the file, at the key', () => {
    let message = '';
    try {
      parseEnvironment('cloud: { name: c }\nclusters:\n  prod:\n    nodeGroup: []\n', 'environments/x.yaml');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('environments/x.yaml:4:5: clusters.prod.nodeGroup: unknown field "nodeGroup" (did you mean "nodeGroups"?)');
  });
});
