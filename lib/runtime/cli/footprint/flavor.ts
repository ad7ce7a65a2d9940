/**
 * Sizes encoded in flavor names of the SCS flavor naming standard (scs-0100, v1–v3):
 * `SCS-<n><L|V|T|C>[i]-<ram GiB>[u][o][-[<k>x]<disk GB>[n|h|s|p]][_<extensions>]`, v1 used `:`
 * instead of `-` between the parts. `SCS-2V-4` = 2 vCPUs, 4 GiB, no disk; `SCS-4V-16-50s` =
 * 4 vCPUs, 16 GiB, a 50 GB local SSD. Other names have no known size.
 */

export interface FlavorSize {
  readonly vcpus: number;
  readonly ramGiB: number;
  /** Root disk of the flavor in GB; 0 = diskless (the server needs a boot/root volume). */
  readonly diskGb: number;
}

const SCS = /^SCS-(\d+)([LVTC])i?[-:](\d+(?:\.\d+)?)u?o?(?:[-:](?:(\d+)x)?(\d+)[nhsp]?)?(?:_[A-Za-z0-9._-]*)?$/;

export function flavorSize(name: string): FlavorSize | undefined {
  const m = SCS.exec(name);
  if (!m) return undefined;
  const disks = m[4] ? Number(m[4]) : 1;
  return { vcpus: Number(m[1]), ramGiB: Number(m[3]), diskGb: m[5] ? disks * Number(m[5]) : 0 };
}
