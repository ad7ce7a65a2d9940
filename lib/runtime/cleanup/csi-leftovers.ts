/** What Cinder CSI made for the cluster's PersistentVolumes: snapshots, then volumes. */
import { CleanupRun } from './cleanup-run';
import { csiVerdict } from './matchers';
import { ownedVolume, stepSnapshot, stepVolume, tracked } from './resource-steps';

const VOLUME_TYPES = ['block-storage', 'volumev3'];

/** 5. + 6. Cinder CSI's snapshots, then volumes (unless volume deletion is turned off). */
export async function removeVolumes(run: CleanupRun): Promise<void> {
  if (run.options.deleteVolumes === false) {
    run.log(`volumes: kept (volume deletion turned off)`);
    return;
  }
  const volumeApi = run.service(VOLUME_TYPES, 'volumes and snapshots');
  if (!volumeApi) return;
  const snapshots = await run.session.listAll<any>(`${volumeApi}/snapshots/detail`, 'snapshots');
  const mineSnapshots = run.judge('volume snapshot', snapshots.filter(ownedVolume(run.project)), (s) => csiVerdict(s, run.csiName), (s) => s.name ?? '');
  await run.remove(
    'volume snapshot',
    'volume snapshots',
    mineSnapshots.map((s) => tracked('volume snapshot', s.id, s.name ?? '', () => stepSnapshot(run.session, `${volumeApi}/snapshots/${s.id}`))),
  );
  const volumes = await run.session.listAll<any>(`${volumeApi}/volumes/detail`, 'volumes');
  const mineVolumes = run.judge('volume', volumes.filter(ownedVolume(run.project)), (v) => csiVerdict(v, run.csiName), (v) => v.name ?? '');
  await run.remove(
    'volume',
    'volumes',
    mineVolumes.map((v) => tracked('volume', v.id, `${v.name ?? ''}, ${v.size} GiB`, () => stepVolume(run.session, volumeApi, v.id))),
  );
}
