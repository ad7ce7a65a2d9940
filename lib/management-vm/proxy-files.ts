import { systemdEnvironmentLine } from '../config/systemd-text';
import { shellQuote } from './shell-quote';

export interface ProxySettings {
  /** Proxy URL used for HTTP and HTTPS, e.g. `http://proxy.example.com:3128`. */
  readonly httpProxy: string;
  /** NO_PROXY entries (see `buildNoProxy`). */
  readonly noProxy: readonly string[];
}

/** Validates a proxy URL; returns it unchanged. */
export function checkProxyUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`httpProxy: expected a URL like http://proxy.example.com:3128, found "${url}"`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || /[\s"'\\]/.test(url)) {
    throw new Error(`httpProxy: expected an http:// or https:// URL without spaces or quotes, found "${url}"`);
  }
  return url;
}

/** Upper- and lower-case proxy variables, as curl, apt, Go (kind, clusterctl) and containerd read them. */
export function proxyVariables(p: ProxySettings): [string, string][] {
  const noProxy = p.noProxy.join(',');
  return [
    ['HTTP_PROXY', p.httpProxy],
    ['HTTPS_PROXY', p.httpProxy],
    ['NO_PROXY', noProxy],
    ['http_proxy', p.httpProxy],
    ['https_proxy', p.httpProxy],
    ['no_proxy', noProxy],
  ];
}

/** A file the bootstrap scripts source (`set -a; . file`), one `NAME='value'` per line. */
export function renderProxyEnv(p: ProxySettings): string {
  return proxyVariables(p).map(([k, v]) => `${k}=${shellQuote(v)}`).join('\n') + '\n';
}

/** systemd drop-in for docker.service (specifiers escaped, see systemd-text.ts). */
export function renderDockerProxyDropIn(p: ProxySettings): string {
  const lines = proxyVariables(p)
    .filter(([k]) => k === k.toUpperCase())
    .map((variable) => systemdEnvironmentLine([variable]));
  return ['# Written by capi-bootstrap: docker pulls through the proxy.', '[Service]', ...lines, ''].join('\n');
}
