/**
 * Where the local services of this suite's e2e lane keep their state (scripts/e2e/lane): the
 * default world's folders unless the lane's environment names others. One place, so that a suite
 * run in lane N never reads lane 0's kube-apiserver, controllers or clouds.yaml.
 */
import * as os from 'os';
import * as path from 'path';

export const CACHE_DIR = process.env.CAPI_OPENSTACK_CDKTF_CACHE ?? path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
export const LOCAL_CLOUD_STATE = process.env.LOCAL_CLOUD_STATE ?? path.join(CACHE_DIR, 'local-cloud');
/** The clouds.yaml whose `local-e2e` entry is the lane's project. */
export const LOCAL_CLOUDS_YAML = process.env.OS_CLIENT_CONFIG_FILE ?? path.join(LOCAL_CLOUD_STATE, 'clouds.yaml');
export const LOCAL_KUBE_STATE = process.env.LOCAL_KUBE_STATE ?? path.join(CACHE_DIR, 'local-kube');
export const LOCAL_KUBECONFIG = path.join(LOCAL_KUBE_STATE, 'kubeconfig');
export const LOCAL_KUBE_ETCD_URL = `http://127.0.0.1:${process.env.LOCAL_KUBE_ETCD_CLIENT_PORT ?? 23790}`;
export const LOCAL_CAPI_STATE = process.env.LOCAL_CAPI_STATE ?? path.join(CACHE_DIR, 'local-capi');
