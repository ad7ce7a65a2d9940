import { DEFAULT_ORC_VERSION } from '../config/downloads';
import { renderBootstrapScripts } from './bootstrap-scripts';
import { checkManagementUserDataProps } from './check-props';
import { registryMirrorFiles } from './registry-mirror-files';
import { dockerDaemonBase } from './docker-daemon';
import { renderKindConfig } from './kind-config';
import { renderMetadataBlockUnits } from './metadata-block-units';
import { buildNoProxy } from './no-proxy';
import { BOOTSTRAP_PATHS } from './paths';
import { renderDockerProxyDropIn, renderProxyEnv } from './proxy-files';
import { MAIN_SH } from './scripts/main-sh';
import { assertNoTemplateSyntax } from './tokens';
import { trustedCaBlocks } from './trusted-ca';
import type { ManagementUserDataProps } from './management-user-data-props';
import { WriteFile, base64File, plainFile } from './write-file';
import { checkManagementUserDataSize } from './user-data-size';
import { toYamlText } from './yaml-text';

export type { ManagementVersions, RegistryMirror } from './types';
export type { ManagementUserDataProps } from './management-user-data-props';

/** Login user of Ubuntu cloud images. */
const IMAGE_DEFAULT_USER = 'ubuntu';

/**
 * Renders the `#cloud-config` user data of the management VM. Base64 inputs are embedded with
 * `encoding: b64`, so tokens pass through verbatim; scripts are embedded base64-encoded too (they
 * contain `${…}`, which Terraform would otherwise take for template syntax).
 */
export function renderManagementUserData(props: ManagementUserDataProps): string {
  checkManagementUserDataProps(props);
  const mirrors = props.registryMirrors ?? [];
  const proxy = props.httpProxy
    ? { httpProxy: props.httpProxy, noProxy: buildNoProxy({ managementCidr: props.managementCidr, extra: props.noProxy }) }
    : undefined;
  const apiServerPort = props.apiServerPort ?? 6443;
  const trustedCas = props.trustedCaCertificatesPem === undefined ? [] : trustedCaBlocks(props.trustedCaCertificatesPem, 'trustedCaCertificatesPem');

  const files: WriteFile[] = [
    base64File(BOOTSTRAP_PATHS.caCertificate, props.caCertificatePemBase64, '0644'),
    base64File(BOOTSTRAP_PATHS.caPrivateKey, props.caPrivateKeyPemBase64, '0600'),
  ];
  files.push(
    plainFile(
      BOOTSTRAP_PATHS.kindConfig,
      renderKindConfig({
        clusterName: props.kindClusterName,
        nodeImage: props.versions.kindNodeImage,
        apiServerPort,
        certSans: [props.apiServerAddress, ...(props.extraCertSans ?? [])],
        registryMirrors: mirrors,
      }),
      '0600',
    ),
    plainFile(BOOTSTRAP_PATHS.dockerDaemonBase, JSON.stringify(dockerDaemonBase(mirrors), null, 2) + '\n', '0644'),
    ...registryMirrorFiles(mirrors),
  );
  if (proxy) {
    files.push(plainFile(BOOTSTRAP_PATHS.proxyEnv, renderProxyEnv(proxy), '0600'));
    files.push(plainFile(BOOTSTRAP_PATHS.dockerProxyDropIn, renderDockerProxyDropIn(proxy), '0600'));
  }
  for (const unit of renderMetadataBlockUnits()) {
    files.push(plainFile(`/etc/systemd/system/${unit.name}`, unit.content, '0644'));
  }
  for (const script of renderBootstrapScripts({
    kindClusterName: props.kindClusterName,
    apiServerPort,
    mtu: props.mtu ?? 0,
    versions: { ...props.versions, orc: props.versions.orc ?? DEFAULT_ORC_VERSION },
    manifests: props.providerManifests,
  })) {
    files.push(base64File(`${BOOTSTRAP_PATHS.scriptDir}/${script.name}`, Buffer.from(script.content, 'utf8').toString('base64'), script.mode));
  }

  const doc: Record<string, unknown> = {
    ssh_pwauth: false,
    ...sshSettings(props.sshAuthorizedKeys ?? [], props.sshUsername ?? IMAGE_DEFAULT_USER),
    ...(proxy ? { apt: { http_proxy: proxy.httpProxy, https_proxy: proxy.httpProxy } } : {}),
    // cloud-init's init stage: trusted before runcmd starts the bootstrap and its downloads
    ...(trustedCas.length > 0 ? { ca_certs: { trusted: trustedCas } } : {}),
    write_files: files,
    runcmd: [[`${BOOTSTRAP_PATHS.scriptDir}/${MAIN_SH}`]],
  };
  const text = `#cloud-config\n${toYamlText(doc)}`;
  assertNoTemplateSyntax(text, 'management user data', [
    props.apiServerAddress,
    ...(props.extraCertSans ?? []),
    props.caCertificatePemBase64,
    props.caPrivateKeyPemBase64,
  ]);
  checkManagementUserDataSize(text, props, [
    ...files.map((f) => ({ name: f.path, bytes: Buffer.byteLength(typeof f.content === 'string' ? f.content : f.content.value, 'utf8') })),
    { name: 'ca_certs (trustedCaCertificatesPem)', bytes: trustedCas.reduce((n, c) => n + Buffer.byteLength(c, 'utf8'), 0) },
  ]);
  return text;
}

function sshSettings(keys: readonly string[], username: string): Record<string, unknown> {
  if (keys.length === 0) return {};
  if (username === IMAGE_DEFAULT_USER) return { ssh_authorized_keys: [...keys] };
  return {
    users: [
      'default',
      {
        name: username,
        shell: '/bin/bash',
        sudo: 'ALL=(ALL) NOPASSWD:ALL',
        lock_passwd: true,
        ssh_authorized_keys: [...keys],
      },
    ],
  };
}
