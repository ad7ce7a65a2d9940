/**
 * The builders behind the schema, fed hostile strings directly (as a library user could, with an
 * EnvironmentConfig or user-data props put together by hand): each either refuses the value or
 * writes it so that no file, unit, script or cloud-init line exists that the project did not write.
 * A canary marks every injected line; no output line may start with it.
 */
import { parse } from 'yaml';
import { buildClusterObjects } from '../../lib/capi';
import { EnvironmentConfig } from '../../lib/config';
import { renderManagementUserData } from '../../lib/management-vm';
import { inputsFor, makeEnv } from '../capi/fixtures';
import { baseProps } from '../management-vm/helpers';

const CANARY = 'INJECTED';
const HOSTILE = [
  `http://p:3128\n${CANARY}=1`,
  `http://p:3128\r\n${CANARY}=1`,
  `http://p:3128"\n${CANARY}"`,
  `http://p:3128'\n${CANARY}'`,
  `http://p:3128\u2028${CANARY}`,
  `docker.io\n[${CANARY}]`,
  `x\n  - ${CANARY}`,
];

/** Every line of every document, file content (decoded) and command the output holds. */
function linesOf(value: unknown): string[] {
  if (typeof value === 'string') {
    const decoded = /^[A-Za-z0-9+/]{16,}={0,2}$/.test(value) ? Buffer.from(value, 'base64').toString('utf8') : value;
    return [...value.split(/\r\n|[\n\r\u2028\u2029]/), ...decoded.split(/\r\n|[\n\r\u2028\u2029]/)];
  }
  if (Array.isArray(value)) return value.flatMap(linesOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(linesOf);
  return [];
}

const injected = (lines: string[]) => lines.filter((l) => new RegExp(`^\\s*(-\\s*)?["'\\[]?${CANARY}`).test(l));

/** Refused (an Error naming the field), or no line of its own. */
function expectContained(render: () => unknown, label: string): 'refused' | 'written' {
  let out: unknown;
  try {
    out = render();
  } catch (e) {
    expect({ label, error: (e as Error).message.length > 0 && !(e instanceof TypeError) }).toEqual({ label, error: true });
    return 'refused';
  }
  expect({ label, injected: injected(linesOf(out)) }).toEqual({ label, injected: [] });
  return 'written';
}

describe('hostile strings in the builders', () => {
  test('management VM user data: proxy, no-proxy, registry mirrors, names, SSH keys', () => {
    const cases: [string, (h: string) => Parameters<typeof baseProps>[0]][] = [
      ['httpProxy', (h) => ({ httpProxy: h })],
      ['noProxy', (h) => ({ httpProxy: 'http://p:3128', noProxy: [h] })],
      ['registry', (h) => ({ registryMirrors: [{ registry: h, endpoints: ['https://m.example'] }] })],
      ['mirror endpoint', (h) => ({ registryMirrors: [{ registry: 'docker.io', endpoints: [h] }] })],
      ['kindClusterName', (h) => ({ kindClusterName: h })],
      ['apiServerAddress', (h) => ({ apiServerAddress: h })],
      ['extraCertSans', (h) => ({ extraCertSans: [h] })],
      ['sshUsername', (h) => ({ sshUsername: h, sshAuthorizedKeys: ['ssh-ed25519 AAAA op'] })],
      ['sshAuthorizedKeys', (h) => ({ sshAuthorizedKeys: [h] })],
      ['managementCidr', (h) => ({ managementCidr: h })],
    ];
    const outcomes = new Set<string>();
    for (const [field, props] of cases) {
      for (const h of HOSTILE) {
        outcomes.add(expectContained(() => parse(renderManagementUserData(baseProps(props(h))).replace(/^#cloud-config\n/, '')), `${field} = ${JSON.stringify(h)}`));
      }
    }
    expect(outcomes.has('refused')).toBe(true);
  });

  test('workload node files and kubeadm objects: proxy, no-proxy and registry mirrors of a hand-made environment', () => {
    const env = makeEnv('clusters:\n  c: {}\n');
    const variants: [string, (h: string) => EnvironmentConfig][] = [
      ['proxy.httpProxy', (h) => ({ ...env, spec: { ...env.spec, proxy: { ...env.spec.proxy, httpProxy: h } } })],
      ['proxy.noProxy', (h) => ({ ...env, spec: { ...env.spec, proxy: { httpProxy: 'http://p:3128', noProxy: [h] } } })],
      ['registryMirrors.registry', (h) => ({ ...env, registryMirrors: [{ registry: h, endpoints: ['https://m.example'], skipVerify: false }] })],
      ['registryMirrors.endpoints', (h) => ({ ...env, registryMirrors: [{ registry: 'docker.io', endpoints: [h], skipVerify: false }] })],
    ];
    const outcomes: string[] = [];
    for (const [field, variant] of variants) {
      for (const h of HOSTILE) outcomes.push(expectContained(() => buildClusterObjects(inputsFor(variant(h), 'c')), `${field} = ${JSON.stringify(h)}`));
    }
    expect(outcomes.every((o) => o === 'refused')).toBe(true);
    // and the same builders with ordinary values write the files (the check is not vacuous)
    const fine = buildClusterObjects(inputsFor({ ...env, spec: { ...env.spec, proxy: { httpProxy: 'http://p:3128', noProxy: ['.corp'] } } }, 'c'));
    expect(linesOf(fine).some((l) => l.startsWith('Environment="HTTP_PROXY=http://p:3128"'))).toBe(true);
  });
});
