/**
 * Credentials from a clouds.yaml entry, found the way OpenStack clients (and the Terraform
 * OpenStack provider) find it: OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml,
 * /etc/openstack/clouds.yaml; a secure.yaml next to them adds secrets. Password and application
 * credential auth; OS_PASSWORD / OS_APPLICATION_CREDENTIAL_SECRET fill a secret the file leaves out,
 * as they do for the provider.
 *
 * This is how the destroy-time cleanup logs in: with the operator's credentials that the provider
 * uses in the same run, so no secret has to sit in Terraform state or plans for it, and an expired
 * per-cluster credential does not stop the teardown.
 */
import * as path from 'path';
import { readBoundedFile } from '../../config/bounded-file';
import { MAX_CA_FILE_BYTES } from '../../config/ca-file';
import { CloudsFileError, CloudsSearch, cloudsFileCandidates, locateCloud, secureFileCandidates } from '../../config/clouds-file';
import { OpenStackAuth, OpenStackCredentials } from '../openstack-session';

export interface CloudsYamlLookup extends CloudsSearch {
  /** Entry under `clouds:`. */
  readonly cloud: string;
}

export interface CloudsYamlCredentials {
  readonly credentials: Omit<OpenStackCredentials, 'requestTimeoutMs'>;
  /** The file the entry came from. */
  readonly file: string;
}

/** Plain objects merged, `over` winning. */
function merge(base: any, over: any): any {
  if (over === undefined) return base;
  if (base && over && typeof base === 'object' && typeof over === 'object' && !Array.isArray(base) && !Array.isArray(over)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = merge(base[k], v);
    return out;
  }
  return over;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

export function credentialsFromCloudsYaml(lookup: CloudsYamlLookup): CloudsYamlCredentials {
  const env = lookup.env ?? process.env;
  const cwd = lookup.cwd ?? process.cwd();
  const files = lookup.file ? [lookup.file] : cloudsFileCandidates(env, cwd);
  const found = locateCloud(lookup.cloud, files);
  if (!found) {
    throw new CloudsFileError(`no cloud "${lookup.cloud}" in ${lookup.file ?? 'any clouds.yaml'} (looked at ${files.join(', ')})`);
  }
  const { file } = found;
  let entry = found.entry;
  const secure = locateCloud(lookup.cloud, secureFileCandidates(env, cwd));
  if (secure) entry = merge(entry, secure.entry);
  const where = `cloud "${lookup.cloud}" in ${file}`;
  const a = entry.auth ?? {};
  const authUrl = str(a.auth_url);
  if (!authUrl) throw new CloudsFileError(`${where} has no auth.auth_url`);
  const authType = String(entry.auth_type ?? 'password').toLowerCase();
  const domainOf = (prefix: 'user' | 'project') => ({
    domainId: str(a[`${prefix}_domain_id`]) ?? str(a.domain_id),
    domainName: str(a[`${prefix}_domain_name`]) ?? str(a.domain_name),
  });
  let auth: OpenStackAuth;
  if (authType === 'v3applicationcredential' || authType === 'applicationcredential' || authType === 'application_credential') {
    const secret = str(a.application_credential_secret) ?? str(env.OS_APPLICATION_CREDENTIAL_SECRET);
    const id = str(a.application_credential_id);
    const name = str(a.application_credential_name);
    if (!secret) throw new CloudsFileError(`${where} has no auth.application_credential_secret (nor is OS_APPLICATION_CREDENTIAL_SECRET set)`);
    if (!id && !name) throw new CloudsFileError(`${where} has neither auth.application_credential_id nor auth.application_credential_name`);
    auth = { type: 'application_credential', id, name, user: id ? undefined : { id: str(a.user_id), name: str(a.username), ...domainOf('user') }, secret };
  } else if (authType === 'password' || authType === 'v3password') {
    const password = str(a.password) ?? str(env.OS_PASSWORD);
    if (!password) throw new CloudsFileError(`${where} has no auth.password (nor is OS_PASSWORD set)`);
    const user = { id: str(a.user_id), name: str(a.username), ...domainOf('user') };
    const project = { id: str(a.project_id) ?? str(a.tenant_id), name: str(a.project_name) ?? str(a.tenant_name), ...domainOf('project') };
    if (!user.id && !user.name) throw new CloudsFileError(`${where} has neither auth.username nor auth.user_id`);
    if (!project.id && !project.name) throw new CloudsFileError(`${where} has neither auth.project_name nor auth.project_id: the cleanup needs a project-scoped token`);
    auth = { type: 'password', user, password, project };
  } else {
    throw new CloudsFileError(`${where}: auth_type "${entry.auth_type}" is not supported by the cleanup (password, v3applicationcredential)`);
  }
  let caPem: string | undefined;
  const cacert = str(entry.cacert);
  if (cacert) {
    const caFile = path.resolve(path.dirname(file), cacert);
    // the CA files' guards: a FIFO or /dev/zero named as cacert is refused, not read
    const read = readBoundedFile(caFile, 'PEM file', MAX_CA_FILE_BYTES);
    if ('problem' in read) throw new CloudsFileError(`${where}: cacert ${caFile} cannot be read: ${read.problem}`);
    caPem = read.bytes.toString('utf8');
  }
  return {
    file,
    credentials: {
      authUrl,
      auth,
      region: str(entry.region_name),
      endpointInterface: str(entry.interface) ?? str(entry.endpoint_type),
      caPem,
      insecure: entry.verify === false,
    },
  };
}
