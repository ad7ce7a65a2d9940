/**
 * Chart versions of the add-ons whose chart line follows the Kubernetes minor. They live in config
 * so `validate` can refuse a Kubernetes minor without a pinned chart (the add-on catalogue reads them).
 *
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
