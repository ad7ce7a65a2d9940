import type { Scalar } from 'yaml';
import { literalBlock } from './yaml-text';

/** One entry of cloud-init's `write_files`. */
export interface WriteFile {
  readonly path: string;
  readonly content: string | Scalar<string>;
  readonly encoding?: 'b64';
  readonly owner: string;
  readonly permissions: string;
}

/** A file whose content is given base64-encoded (may be a token); cloud-init decodes it. */
export function base64File(path: string, base64Content: string, permissions: string): WriteFile {
  if (base64Content.trim() === '') throw new Error(`${path}: the base64 content is empty`);
  return { path, content: base64Content, encoding: 'b64', owner: 'root:root', permissions };
}

/** A text file, emitted as a YAML literal block. */
export function plainFile(path: string, text: string, permissions: string): WriteFile {
  return { path, content: literalBlock(text), owner: 'root:root', permissions };
}
