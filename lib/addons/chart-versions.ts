/** Pinned chart versions of the add-ons whose chart line follows the Kubernetes minor. */

/** A chart version that does not depend on the Kubernetes minor. */
export const fixed = (version: string) => (): string => version;

/**
 * cloud-provider-openstack publishes one chart line per Kubernetes minor (chart 2.<minor>.x ships
 * OCCM / Cinder CSI v1.<minor>.x). Patch versions: the newest one found in public release records;
 * `.0` where no later patch could be confirmed. No v1.37 line (chart 2.37.x) was found released yet:
 * a v1.37 cluster names the add-ons' versions in its environment file.
 */
export const OCCM_CHART_VERSIONS: Readonly<Record<string, string>> = {
  'v1.31': '2.31.0',
  'v1.32': '2.32.0',
  'v1.33': '2.33.0',
  'v1.34': '2.34.1',
  'v1.35': '2.35.0',
  'v1.36': '2.36.4',
};
export const CINDER_CSI_CHART_VERSIONS: Readonly<Record<string, string>> = {
  'v1.31': '2.31.2',
  'v1.32': '2.32.0',
  'v1.33': '2.33.0',
  'v1.34': '2.34.1',
  'v1.35': '2.35.0',
  'v1.36': '2.36.4',
};

/** A chart version per Kubernetes minor, from one of the tables above. */
export function perMinor(table: Readonly<Record<string, string>>, what: string) {
  return (minor: string): string => {
    const v = table[minor];
    if (!v) {
      throw new Error(`expected a pinned ${what} chart for Kubernetes ${minor} (pinned: ${Object.keys(table).join(', ')}); set the add-on's version in the environment file`);
    }
    return v;
  };
}
