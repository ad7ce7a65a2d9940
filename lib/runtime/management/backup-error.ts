/** Errors about backup files, and how values read from such a file are shown in them. */
import { describeFound } from '../../config/errors';

export class BackupError extends Error {}

/**
 * A value read from a backup file, for a message: shortened, and every control or invisible
 * character escaped (a file's clear header is anyone's text until it is authenticated).
 */
export function describeBackupValue(value: unknown): string {
  return describeFound(value).replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff0-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
