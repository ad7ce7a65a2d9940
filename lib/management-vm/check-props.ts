import { NODE_IMAGE_PATTERN } from '../config/downloads';
import type { ManagementUserDataProps } from './management-user-data-props';
import { checkProxyUrl } from './proxy-files';
import { assertLiteral, containsToken } from './tokens';

const KIND_NAME = /^[a-z0-9]([a-z0-9.-]{0,48}[a-z0-9])?$/;
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/;
const CIDR = /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/;

/** Validates the props that are baked literally into files and scripts; throws with the field name. */
export function checkManagementUserDataProps(props: ManagementUserDataProps): void {
  assertLiteral(props.kindClusterName, 'kindClusterName');
  if (!KIND_NAME.test(props.kindClusterName)) {
    throw new Error(`kindClusterName: expected lowercase letters, digits, "-" or "." (at most 50), found "${props.kindClusterName}"`);
  }
  const port = props.apiServerPort ?? 6443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`apiServerPort: expected a port between 1 and 65535, found ${port}`);
  }
  for (const [field, value] of [['apiServerAddress', props.apiServerAddress], ...(props.extraCertSans ?? []).map((s, i) => [`extraCertSans[${i}]`, s])]) {
    if (value.trim() === '' || (!containsToken(value) && /[\s"'\\]/.test(value))) {
      throw new Error(`${field}: expected an IP address or DNS name, found "${value}"`);
    }
  }
  for (const [field, value] of [
    ['caCertificatePemBase64', props.caCertificatePemBase64],
    ['caPrivateKeyPemBase64', props.caPrivateKeyPemBase64],
  ] as const) {
    if (value !== undefined && !containsToken(value) && !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) {
      throw new Error(`${field}: expected base64 text on one line`);
    }
  }
  assertLiteral(props.managementCidr, 'managementCidr');
  if (!CIDR.test(props.managementCidr)) {
    throw new Error(`managementCidr: expected an IPv4 CIDR like 10.0.0.0/24, found "${props.managementCidr}"`);
  }
  if (props.httpProxy !== undefined) {
    assertLiteral(props.httpProxy, 'httpProxy');
    checkProxyUrl(props.httpProxy);
  }
  (props.noProxy ?? []).forEach((e, i) => assertLiteral(e, `noProxy[${i}]`));
  (props.registryMirrors ?? []).forEach((m, i) => {
    assertLiteral(m.registry, `registryMirrors[${i}].registry`);
    if (!REGISTRY.test(m.registry)) {
      throw new Error(`registryMirrors[${i}].registry: expected a registry host like docker.io, found "${m.registry}"`);
    }
    if (m.endpoints.length === 0) throw new Error(`registryMirrors[${i}].endpoints: expected at least one mirror URL`);
    m.endpoints.forEach((e, j) => {
      assertLiteral(e, `registryMirrors[${i}].endpoints[${j}]`);
      if (!/^https?:\/\/[^\s"'\\]+$/.test(e)) {
        throw new Error(`registryMirrors[${i}].endpoints[${j}]: expected an http(s):// URL, found "${e}"`);
      }
    });
    if (m.caCertificatePem !== undefined) {
      assertLiteral(m.caCertificatePem, `registryMirrors[${i}].caCertificatePem`);
      if (!m.caCertificatePem.includes('-----BEGIN CERTIFICATE-----')) {
        throw new Error(`registryMirrors[${i}].caCertificatePem: expected a PEM certificate`);
      }
    }
  });
  assertLiteral(props.versions.kindNodeImage, 'versions.kindNodeImage');
  if (!NODE_IMAGE_PATTERN.test(props.versions.kindNodeImage)) {
    throw new Error(`versions.kindNodeImage: expected an image pinned by digest (name:tag@sha256:<64 hex>), found "${props.versions.kindNodeImage}"`);
  }
  (props.sshAuthorizedKeys ?? []).forEach((k, i) => {
    if (!/^(ssh-|ecdsa-|sk-)\S+ \S+/.test(k) || /[\r\n]/.test(k)) {
      throw new Error(`sshAuthorizedKeys[${i}]: expected one OpenSSH public key line`);
    }
  });
  const user = props.sshUsername ?? 'ubuntu';
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(user)) {
    throw new Error(`sshUsername: expected a Linux user name, found "${user}"`);
  }
}
