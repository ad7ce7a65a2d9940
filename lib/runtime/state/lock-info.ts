/** The lock object Terraform writes next to a state (`<key>.tflock`): who holds it, since when, doing what. */

export interface LockInfo {
  readonly id: string;
  readonly who: string;
  readonly operation: string;
  readonly created: string;
  readonly version: string;
}

const field = (o: Record<string, unknown>, name: string): string => (typeof o[name] === 'string' ? (o[name] as string).slice(0, 200) : '?');

export function parseLock(text: string): LockInfo {
  let o: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object') o = parsed;
  } catch {
    // a lock object that is not Terraform's: still a lock, described as unknown
  }
  return { id: field(o, 'ID'), who: field(o, 'Who'), operation: field(o, 'Operation').replace(/^OperationType/, '').toLowerCase(), created: field(o, 'Created'), version: field(o, 'Version') };
}

export function describeLock(lock: LockInfo): string {
  return `${lock.who} (${lock.operation}, since ${lock.created}, Terraform ${lock.version}, lock ID ${lock.id})`;
}
