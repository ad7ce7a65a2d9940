/**
 * Reads containerd `hosts.toml` files of the old tool (`containerd_registry_files.hosts`) into
 * registry mirrors. Only the shape the old tool shipped is understood: `server = "…"` and
 * `[host."<url>"]` tables with `capabilities`, `override_path`, `skip_verify`. Anything else is
 * returned as a problem so the operator converts it by hand.
 */

export interface ParsedHostsFile {
  readonly registry: string;
  readonly endpoints: string[];
  readonly skipVerify: boolean;
  /** Lines that could not be carried over, with the reason. */
  readonly problems: string[];
}

const TABLE = /^\[\s*host\s*\.\s*"([^"]+)"\s*\]$/;
const KEY_VALUE = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+)$/;

/** `fileName` is the registry the file configures (containerd names the directory after it). */
export function parseHostsFile(fileName: string, text: string): ParsedHostsFile {
  const endpoints: string[] = [];
  const problems: string[] = [];
  let server: string | undefined;
  let skipVerify = false;
  let inHost = false;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/\s+#.*$/, '').trim();
    if (!line || line.startsWith('#')) return;
    const at = `line ${index + 1}`;
    const table = TABLE.exec(line);
    if (table) {
      inHost = true;
      if (!/^https?:\/\//.test(table[1])) problems.push(`${at}: host ${JSON.stringify(table[1])} is not an http(s) URL`);
      else endpoints.push(table[1]);
      return;
    }
    if (line.startsWith('[')) {
      inHost = false;
      problems.push(`${at}: table ${line} (e.g. headers or client certificates) has no counterpart in registryMirrors`);
      return;
    }
    const kv = KEY_VALUE.exec(line);
    if (!kv) {
      problems.push(`${at}: cannot read ${JSON.stringify(line)}`);
      return;
    }
    const [, key, value] = kv;
    if (!inHost && key === 'server') {
      server = unquote(value);
      return;
    }
    if (inHost && key === 'capabilities') {
      if (!/"pull"/.test(value)) problems.push(`${at}: capabilities ${value} without "pull": registryMirrors are pull mirrors`);
      return;
    }
    if (inHost && key === 'override_path') {
      // The new tool writes override_path for endpoints whose path contains /v2 (the old files' shape).
      const last = endpoints[endpoints.length - 1];
      if (value.trim() === 'true' && last && !/\/v2(\/|$)/.test(new URL(last).pathname)) {
        problems.push(`${at}: override_path = true for ${last}, whose path has no /v2: the new tool only overrides paths that contain /v2`);
      }
      return;
    }
    if (inHost && key === 'skip_verify') {
      if (value.trim() === 'true') skipVerify = true;
      return;
    }
    problems.push(`${at}: ${key} has no counterpart in registryMirrors (CA files go to registryMirrors[].caCertificateFile)`);
  });
  // The old tool named each file after its registry (docker.io); a hosts.toml takes it from `server`.
  const namedAfterRegistry = !/\.toml$/i.test(fileName) && /^([a-z0-9-]+\.)*[a-z0-9-]+(:\d+)?$/i.test(fileName) && /[.:]|^localhost$/.test(fileName);
  const registry = namedAfterRegistry ? fileName : server ? hostOf(server) ?? fileName : fileName;
  if (endpoints.length === 0) problems.push('no [host."<url>"] table: nothing to mirror');
  return { registry: registry === 'registry-1.docker.io' ? 'docker.io' : registry, endpoints, skipVerify, problems };
}

function unquote(v: string): string {
  const t = v.trim();
  return t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
