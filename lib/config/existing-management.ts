/**
 * The kubeconfig of an existing management cluster (`existingManagementCluster.kubeconfigFile`):
 * where it is, and whether it can be one. Terraform's kubernetes and helm providers read it at
 * plan, so a missing file, a directory, a FIFO (a hang) or /dev/zero is refused at validate, read
 * with the CA files' guards.
 */
import * as os from 'os';
import * as path from 'path';
import { LineCounter, parseDocument } from 'yaml';
import { MAX_KUBECONFIG_BYTES, readBoundedFile } from './bounded-file';
import { escapeControlCharacters } from './control-characters';
import { MAX_ALIAS_USES, tooDeep, unsafeYaml } from './yaml-safety';

/**
 * The kubeconfig as the providers need it: Terraform runs in cdktf.out/stacks/<stack>, so a
 * relative path is resolved against the environment file's directory (as the CLI does), and `~/`
 * against the home directory.
 */
export function existingKubeconfigPath(environmentFile: string, kubeconfigFile: string): string {
  const expanded = kubeconfigFile === '~' || kubeconfigFile.startsWith('~/') ? path.join(os.homedir(), kubeconfigFile.slice(1)) : kubeconfigFile;
  return path.resolve(path.dirname(environmentFile), expanded);
}

/** Why the file at `abs` cannot be a kubeconfig (not a bounded regular file, or not a YAML mapping), or undefined. */
export function kubeconfigFileProblem(abs: string): string | undefined {
  const read = readBoundedFile(abs, 'kubeconfig file', MAX_KUBECONFIG_BYTES);
  if ('problem' in read) return read.problem;
  const shown = escapeControlCharacters(abs);
  const counter = new LineCounter();
  const doc = parseDocument(read.bytes.toString('utf8'), { lineCounter: counter, prettyErrors: false, uniqueKeys: false });
  const [syntax] = doc.errors;
  if (syntax) return `expected a kubeconfig (YAML), found a syntax error on line ${counter.linePos(syntax.pos[0]).line} of ${shown}: ${escapeControlCharacters(syntax.message.split('\n')[0]).slice(0, 200)}`;
  const [unsafe] = [tooDeep(doc, counter), ...unsafeYaml(doc, counter)].filter((i) => i !== undefined);
  if (unsafe) return `expected a kubeconfig Terraform can read, found on line ${unsafe.line ?? 1} of ${shown}: ${unsafe.message}`;
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_USES });
  } catch (e) {
    return `expected a kubeconfig Terraform can read, found ${shown}: ${escapeControlCharacters((e as Error).message).slice(0, 200)}`;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return `expected a kubeconfig (a YAML mapping with clusters, contexts and users), found ${data === null || data === undefined ? 'an empty file' : Array.isArray(data) ? 'a list' : `a ${typeof data}`} at ${shown}`;
  }
  return undefined;
}
