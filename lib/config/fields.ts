/** Reusable field types of the environment schema. Messages start with "expected"; the loader appends what was found. */
import { z } from 'zod';
import { parseCidr, parseIpv4 } from './cidr';
import { controlCharacterIndex } from './control-characters';
import { isVersion, VERSION_NUMBER } from './versions';

export const cidr = () =>
  z.string().refine((s) => parseCidr(s) !== undefined, { message: 'expected an IPv4 CIDR with zero host bits, like 10.0.0.0/24 (no leading zeros, no spaces)' })
    // The refinements above do not reach the JSON Schema; editors get the shape from here.
    .meta({ pattern: '^((0|[1-9]\\d{0,2})\\.){3}(0|[1-9]\\d{0,2})/(0|[1-9]\\d?)$', examples: ['10.0.0.0/24'] });

export const ipv4 = () =>
  z.string().refine((s) => parseIpv4(s) !== undefined, { message: 'expected an IPv4 address, like 10.0.0.11 (no leading zeros, no spaces)' }).meta({ format: 'ipv4' });

/** Kubernetes-style DNS label, also safe inside OpenStack resource names. */
export const dnsLabel = (maxLength: number) =>
  z
    .string()
    .regex(/^[a-z]([-a-z0-9]*[a-z0-9])?$/, {
      message: 'expected lowercase letters, digits and "-", starting with a letter and not ending with "-"',
    })
    .max(maxLength, { message: `expected at most ${maxLength} characters` });

export const version = (allowX = false) =>
  z.string().refine((s) => isVersion(s, allowX), {
    message: allowX ? 'expected a version like v1.33.5 or v1.33.x' : 'expected a version like v1.12.10',
    // the canonical form isVersion checks, for editors
  }).meta({ pattern: allowX ? `^v${VERSION_NUMBER}\\.${VERSION_NUMBER}\\.(${VERSION_NUMBER}|x)$` : `^v${VERSION_NUMBER}\\.${VERSION_NUMBER}\\.${VERSION_NUMBER}$` });

/**
 * An http(s) URL on one line. URLs end up in systemd drop-ins, environment files, containerd
 * configuration and cloud-init: whitespace, control characters, quotes and backslashes could end
 * the value there and start a directive of their own, so they are refused here, for every path.
 */
const URL_TEXT = /^https?:\/\/[^\s/"'\\`$]+[^\s"'\\`$]*$/;
export const url = () =>
  z
    .string()
    .max(2048, { message: 'expected at most 2048 characters' })
    .regex(URL_TEXT, { message: 'expected an http(s) URL without spaces, control characters, quotes, backslashes, "`" or "$"' })
    // `\s` leaves DEL, C1 controls and U+FFFE out: they reached cloud-init, drop-ins and hosts.toml (a clouds.yaml's auth_url is checked here too)
    .refine((s) => !URL_TEXT.test(s) || controlCharacterIndex(s) < 0, { message: 'expected an http(s) URL without spaces, control characters, quotes, backslashes, "`" or "$"' })
    // what the builders parse it with (a port above 65535 or a broken host failed there, at synth)
    .refine((s) => !URL_TEXT.test(s) || parsesAsUrl(s), { message: 'expected a URL with a valid host and a port from 1 to 65535, like http://proxy.example.com:3128' })
    // URLs reach Terraform strings, where %{ starts a template directive ("$" is refused above)
    .refine((u) => !u.includes('%{'), { message: 'expected a URL without "%{" (Terraform template syntax; write "{" as %7B)' })
    // credentials never sit in an environment file: they would land in the JSON, the plan and node files
    .refine((u) => !/^https?:\/\/[^/?#]*@/.test(u), {
      message:
        'expected a URL without "user:password@" (it would be written in clear into the synthesized JSON, the plan and world-readable files on the VM and the nodes); for a proxy, let it admit the management and node networks by address',
    })
    .meta({ format: 'uri' });

/**
 * Where Helm charts come from: an https:// chart repository (index.yaml) or an oci:// registry
 * path. Cluster API's Helm add-on provider takes no other scheme (its newer releases refuse plain
 * http), and the URL reaches the HelmChartProxies as it is: the same text rules as url().
 */
const CHART_REPOSITORY_TEXT = /^(https|oci):\/\/[^\s/"'\\`$]+[^\s"'\\`$]*$/;
const CHART_REPOSITORY_EXPECTATION = 'expected an https:// chart repository or an oci:// registry path (the only schemes the Helm add-on provider takes), without spaces, control characters, quotes, backslashes, "`" or "$"';
export const chartRepositoryUrl = () =>
  z
    .string()
    .max(2048, { message: 'expected at most 2048 characters' })
    .regex(CHART_REPOSITORY_TEXT, { message: CHART_REPOSITORY_EXPECTATION })
    .refine((s) => !CHART_REPOSITORY_TEXT.test(s) || controlCharacterIndex(s) < 0, { message: CHART_REPOSITORY_EXPECTATION })
    .refine((s) => !CHART_REPOSITORY_TEXT.test(s) || parsesAsUrl(s.replace(/^oci:/, 'https:')), { message: 'expected a URL with a valid host and a port from 1 to 65535, like oci://registry.example.com/charts' })
    .refine((u) => !u.includes('%{'), { message: 'expected a URL without "%{" (Terraform template syntax; write "{" as %7B)' })
    // registry credentials belong in a Secret, never in the synthesized JSON
    .refine((u) => !/^[a-z]+:\/\/[^/?#]*@/.test(u), { message: 'expected a URL without "user:password@" (it would be written in clear into the synthesized JSON, the plan and the HelmChartProxies)' })
    .meta({ format: 'uri', pattern: CHART_REPOSITORY_TEXT.source });

function parsesAsUrl(s: string): boolean {
  try {
    const parsed = new URL(s);
    return parsed.hostname !== '' && parsed.port !== '0';
  } catch {
    return false;
  }
}

/** Hosts whose plain-HTTP traffic never leaves the machine. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Whether `url` is plain http to anything but the loopback interface (where a network could read and change it). */
export function plainHttpOverNetwork(url: string): boolean {
  const m = /^http:\/\/(?:[^/?#@]*@)?(\[[^\]]*\]|[^/:?#]*)/i.exec(url);
  return m !== null && !LOOPBACK_HOST.test(m[1]);
}

/** 0 detects the MTU; anything else must carry IPv4 (576 at least) and fit a jumbo frame. */
export const mtu = () =>
  z
    .number()
    .int({ message: 'expected a whole number' })
    .refine((n) => n === 0 || (n >= 576 && n <= 9000), { message: 'expected 0 (detect) or an MTU from 576 to 9000' })
    .meta({ minimum: 0, maximum: 9000 });

/** A NO_PROXY entry: a host name, a domain (leading "."), an IP address or CIDR, optionally a port, or "*". */
export const noProxyEntry = () =>
  z
    .string()
    .max(253, { message: 'expected at most 253 characters' })
    .regex(/^(\*|\.?[A-Za-z0-9]([A-Za-z0-9.:_-]*[A-Za-z0-9])?(\/\d{1,3})?(:\d{1,5})?)$/, {
      message: 'expected a host name, ".domain", IP address or CIDR (letters, digits, ".", ":", "-", "_", one "/prefix")',
    });

/** A container registry host (what containerd's hosts.toml directories are named after), optionally with a port. */
export const registryHost = () =>
  z
    .string()
    .max(253, { message: 'expected at most 253 characters' })
    .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/, { message: 'expected a registry host like docker.io or registry.example.com:5000' });

/**
 * A name the cloud defines (cloud entry, region, flavor, image, availability zone): 1 to 255
 * characters (OpenStack's limit) without control characters, which no cloud name has and which
 * would break the files and logs it ends up in.
 */
export const cloudObjectName = () =>
  z
    .string()
    .min(1, { message: 'expected a non-empty name' })
    .max(255, { message: 'expected at most 255 characters' })
    // a refinement, not a regex: the JSON Schema and the docs stay readable
    .refine((s) => controlCharacterIndex(s) < 0, { message: 'expected a name without control characters (newlines, tabs, …)' });

/**
 * An identifier the cloud's operators choose (clouds.yaml entry, region, availability zone, volume
 * type): letters, digits and a few separators. These reach provider settings and Terraform
 * attributes as they are, where `${` or `%{` would start an expression, so only a plain
 * character set passes; real names fit it.
 */
export const cloudIdentifier = () =>
  z
    .string()
    .max(255, { message: 'expected at most 255 characters' })
    // a leading "_": Cinder's own default volume type is __DEFAULT__
    .regex(/^[A-Za-z0-9_]([A-Za-z0-9 ._:@+-]*[A-Za-z0-9._+-])?$/, {
      message: 'expected letters, digits, spaces and . _ - : + @ (starting with a letter, digit or "_", not ending with a space)',
    });

/** A Linux login name, as useradd and cloud-init take it. */
export const linuxUserName = () =>
  z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, { message: 'expected a Linux user name: a lowercase letter or "_", then up to 31 lowercase letters, digits, "_" or "-"' });

export const positiveInt = (max: number) =>
  z.number().int({ message: 'expected a whole number' }).min(1, { message: 'expected at least 1' }).max(max, { message: `expected at most ${max}` });

export const countInt = (max: number) =>
  z.number().int({ message: 'expected a whole number' }).min(0, { message: 'expected 0 or more' }).max(max, { message: `expected at most ${max}` });

export const metadata = () =>
  z
    .record(
      z.string().max(255, { message: 'expected at most 255 characters (OpenStack\'s limit for metadata keys)' }),
      z.string().max(255, { message: 'expected at most 255 characters (OpenStack\'s limit for metadata values)' }),
    )
    .default({}).describe('Server metadata (key: value) set on the VMs.');

