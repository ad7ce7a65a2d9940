/**
 * Anchors and aliases that make a file mean something else than it reads. With `? *k` as a cluster
 * key and `&k` defined again further down, the duplicate-key check resolved the alias by the last
 * definition while the parser took the one before it: the file validated, and a second entry of
 * the cluster silently replaced its `apiAllowedCidrs: ["none"]` with an open API.
 */
import { parseEnvironment } from '../../lib/config';
import { environmentYaml } from '../support/environment-text';
import { refusalOf } from '../support/refusal';

const FILE = 'environments/t.yaml';
const text = (yaml: string) => environmentYaml(yaml).replace(/^prefix: capi\n/, '');
const load = (yaml: string) => parseEnvironment(text(yaml), FILE);

/** The smuggle as the fuzz run found it: `prefix: &k demo`, the cluster keyed `*k`, then `&k` again. */
const SMUGGLE = `prefix: &k demo
clusters:
  ? *k
  : apiAllowedCidrs: ["none"]
  demo:
    apiAllowedCidrs: []
versions:
  clusterApi: &k v1.12.10
`;

describe('anchors and aliases', () => {
  test('a redefined anchor is refused at its second definition, naming the first', () => {
    const e = refusalOf(() => load(SMUGGLE));
    const lines = text(SMUGGLE).split('\n');
    const [first, again] = [lines.findIndex((l) => l.includes('prefix: &k')) + 1, lines.findIndex((l) => l.includes('clusterApi: &k')) + 1];
    expect(e.message).toContain(`t.yaml:${again}:18: (anchor): expected each anchor defined once, found "&k" again (first defined on line ${first}); rename one of them`);
  });

  test('an alias used as a key is refused: the name it stands for appears only at its anchor', () => {
    const e = refusalOf(() => load('prefix: &k demo\nclusters:\n  ? *k\n  : apiAllowedCidrs: ["none"]\n'));
    expect(e.message).toMatch(/t\.yaml:\d+:\d+: \(key\): expected a plain key \(a name\), found the alias "\*k" used as a key; write the key itself/);
  });

  test('the duplicate check sees keys as the data does: `~` and "" are both the empty key', () => {
    const e = refusalOf(() => load('management:\n  metadata:\n    ~: a\n    "": b\n'));
    expect(e.message).toMatch(/t\.yaml:\d+:\d+: \(root\): expected valid YAML, found a duplicate key "" \(each key once per mapping\)/);
  });

  test('anchors defined once and aliases as values still work', () => {
    const env = load('x: &cidrs [198.51.100.0/24]\n'.replace('x:', 'management:\n  sshAllowedCidrs:') + 'clusters:\n  demo:\n    apiAllowedCidrs: *cidrs\n');
    expect(env.clusters[0].spec.apiAllowedCidrs).toEqual(['198.51.100.0/24']);
  });
});
