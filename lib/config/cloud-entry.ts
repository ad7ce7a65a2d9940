/**
 * The clouds.yaml entry an environment names, read for what synthesis takes from it (auth URL,
 * region, CA file). A clouds.yaml is input like the environment file: what it gives is held to the
 * same rules as the fields it stands in for, and an unreadable file is a problem, not a crash.
 */
import { CloudEntry, CloudsFileError } from './clouds-file';
import { cloudSchema } from './environment-schema';
import { ConfigIssue, describeFound } from './errors';
import { plainHttpOverNetwork } from './fields';

export type CloudLookup = (cloudName: string, explicitFile?: string) => CloudEntry | undefined;

/**
 * The entry, its values checked; problems go to `issues` (and the value is left out). An http://
 * auth_url over the network needs `allowPlainHttp` (cloud.allowPlainHttp), as cloud.authUrl does.
 */
export function checkedCloudEntry(cloudName: string, explicitFile: string | undefined, lookupCloud: CloudLookup, issues: ConfigIssue[], fieldPath = 'cloud.name', allowPlainHttp = false): CloudEntry | undefined {
  let entry: CloudEntry | undefined;
  try {
    entry = lookupCloud(cloudName, explicitFile);
  } catch (e) {
    if (!(e instanceof CloudsFileError)) throw e;
    // a file that is no regular one (a directory, a FIFO) has its own "expected …, found …" already
    const message = e.message.startsWith('expected ') ? `${cut(e.message)} (looking up cloud "${cloudName}")` : `expected a readable clouds.yaml for cloud "${cloudName}", found: ${cut(e.message)}`;
    issues.push({ path: fieldPath, message });
    return undefined;
  }
  if (!entry) return undefined;
  const checks: [keyof CloudEntry, string, typeof cloudSchema.shape.authUrl | typeof cloudSchema.shape.region][] = [
    ['authUrl', 'auth.auth_url', cloudSchema.shape.authUrl],
    ['region', 'region_name', cloudSchema.shape.region],
  ];
  let checked: CloudEntry = entry;
  for (const [field, key, schema] of checks) {
    const value = entry[field];
    const result = schema.safeParse(value);
    if (value !== undefined && !result.success) {
      issues.push({ path: fieldPath, message: `expected ${key} of "${cloudName}" in ${entry.file} to be ${result.error.issues[0].message.replace(/^expected /, '')}, found ${describeFound(value)}` });
      checked = { ...checked, [field]: undefined };
    }
  }
  if (!allowPlainHttp && checked.authUrl !== undefined && plainHttpOverNetwork(checked.authUrl)) {
    issues.push({
      path: fieldPath,
      message: `expected auth.auth_url of "${cloudName}" in ${entry.file} to be an https:// URL (credentials and tokens sent over plain http can be read and changed on the way; set cloud.allowPlainHttp: true to accept that), found ${describeFound(checked.authUrl)}`,
    });
    checked = { ...checked, authUrl: undefined };
  }
  return checked;
}

function cut(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}... (${text.length} characters)` : text;
}
