/**
 * The rendered document and its scripts checked by the real tools: cloud-init's own schema
 * validator and shellcheck (Debian packages `cloud-init` and `shellcheck`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { manifestDownloads, PROVIDER_MANIFEST_FILES } from '../../lib/config/provider-manifests';
import { renderBootstrapScripts } from '../../lib/management-vm';
import { VERSIONS, itWithTool, render, run, substituteTokens, tempDir } from './helpers';

const PINNED = manifestDownloads(
  { clusterApi: 'v1.12.10', capo: 'v0.14.7', caaph: 'v0.6.4', orc: 'v2.4.0', certManager: 'v1.19.4' },
  Object.fromEntries(PROVIDER_MANIFEST_FILES.map((f, i) => [f.key, String(i % 10).repeat(64)])),
);

const VARIANTS = {
  minimal: {},
  full: {
    mtu: 1400,
    apiServerPort: 16443,
    httpProxy: 'http://proxy.example.com:3128',
    noProxy: ['.corp.example'],
    registryMirrors: [
      { registry: 'docker.io', endpoints: ['https://mirror.example.com:5000'], caCertificatePem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' },
      { registry: 'registry.k8s.io', endpoints: ['https://k8s-mirror.example.com'], skipVerify: true },
    ],
    sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeyKeyKey operator@example'],
    sshUsername: 'capi',
    trustedCaCertificatesPem: '-----BEGIN CERTIFICATE-----\nMIIBsite\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nMIIBproxy\n-----END CERTIFICATE-----\n',
  },
  defaultUserKeys: { sshAuthorizedKeys: ['ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ operator@example'] },
  pinnedManifests: { providerManifests: PINNED },
};

describe('cloud-init schema', () => {
  const check = itWithTool('cloud-init', 'cloud-init');
  check.each(Object.keys(VARIANTS))('%s user data is valid cloud-config', (variant) => {
    const doc = substituteTokens(render(VARIANTS[variant as keyof typeof VARIANTS]).text).replace('${TfToken[TOKEN.6]}', 'Zm9v');
    expect(doc).not.toContain('TfToken');
    const dir = tempDir('cloud-init-schema-');
    const file = path.join(dir, 'user-data.yaml');
    fs.writeFileSync(file, doc);
    const r = run('cloud-init', ['schema', '--config-file', file]);
    expect({ status: r.status, output: r.stdout + r.stderr }).toEqual({ status: 0, output: expect.stringMatching(/Valid (schema|cloud-config)/) });
  });

  check('the validator rejects a broken document (it really validates)', () => {
    const dir = tempDir('cloud-init-schema-');
    const file = path.join(dir, 'bad.yaml');
    fs.writeFileSync(file, substituteTokens(render().text).replace('runcmd:', 'runcmd: 42\nbogus_runcmd:'));
    const r = run('cloud-init', ['schema', '--config-file', file]);
    expect(r.status).not.toBe(0);
  });
});

describe('shellcheck', () => {
  const check = itWithTool('shellcheck', 'shellcheck');
  const plain = renderBootstrapScripts({ kindClusterName: 'capi-mgmt', apiServerPort: 6443, mtu: 0, versions: { ...VERSIONS, orc: 'v2.4.0' } });
  // With pinned manifests: fetch-manifests.sh, and clusterctl-init.sh reading the local repository.
  const pinned = renderBootstrapScripts({ kindClusterName: 'capi-mgmt', apiServerPort: 6443, mtu: 0, versions: { ...VERSIONS, orc: 'v2.4.0' }, manifests: PINNED });
  const variants = [...plain.map((s) => ({ label: s.name, name: s.name, scripts: plain })), ...pinned.filter((s) => /manifests|clusterctl|capi-bootstrap|prepull|kind-cluster/.test(s.name)).map((s) => ({ label: `${s.name} (pinned manifests)`, name: s.name, scripts: pinned }))];

  check.each(variants)('$label is clean', ({ name, scripts }) => {
    const dir = tempDir('shellcheck-');
    for (const s of scripts) fs.writeFileSync(path.join(dir, s.name), s.content);
    const r = run('shellcheck', ['--external-sources', '--severity=style', '--shell=bash', name], { cwd: dir });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  check('shellcheck really checks (a known defect is reported)', () => {
    const dir = tempDir('shellcheck-');
    fs.writeFileSync(path.join(dir, 'bad.sh'), '#!/usr/bin/env bash\nrm -rf $1/*\n');
    expect(run('shellcheck', ['bad.sh'], { cwd: dir }).status).not.toBe(0);
  });
});
