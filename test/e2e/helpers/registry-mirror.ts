/**
 * The site's registry as the workload nodes' registry mirror (scripts/local-vm `registryMirrors`):
 * what it holds for an image the nodes ask for by its upstream name.
 */
import * as fs from 'fs';
import { LOCAL_VM_SITE } from '../support/booted-cluster';

/** Manifest types the images built here are pushed as, and the lists a registry may hold instead. */
const MANIFEST_TYPES = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
];

/** A HEAD of the image's manifest at the mirror the site names for its registry: the HTTP status and, when held, the digest. */
export async function mirroredManifest(image: string): Promise<{ readonly status: number; readonly digest?: string; readonly mirror: string }> {
  const m = /^([^/]+)\/(.+):([^:/]+)$/.exec(image);
  if (!m) throw new Error(`expected an image reference <registry>/<repository>:<tag>, found ${image}`);
  const site = JSON.parse(fs.readFileSync(LOCAL_VM_SITE, 'utf8'));
  const entry = (site.registryMirrors as any[]).find((r) => r.registry === m[1]);
  if (!entry) throw new Error(`${LOCAL_VM_SITE} names no registry mirror for ${m[1]}`);
  const mirror = String(entry.endpoints[0]).replace(/\/+$/, '');
  const res = await fetch(`${mirror}/v2/${m[2]}/manifests/${m[3]}`, { method: 'HEAD', headers: { accept: MANIFEST_TYPES.join(', ') } });
  return { status: res.status, digest: res.headers.get('docker-content-digest') ?? undefined, mirror };
}
