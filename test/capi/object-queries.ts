/** Finding things among built objects, shared by the CAPI object tests. */
import { KubeObject } from '../../lib/capi';
import { representativeEnv } from './fixtures';

export const env = representativeEnv();
export const byKind = (objs: KubeObject[], kind: string) => objs.filter((o) => o.kind === kind);
export const one = (objs: KubeObject[], kind: string, name?: string): any => {
  const found = objs.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name ?? ''}, found ${found.length}`);
  return found[0];
};
export const files = (spec: any): Record<string, any> => Object.fromEntries(spec.files.map((f: any) => [f.path, f]));
