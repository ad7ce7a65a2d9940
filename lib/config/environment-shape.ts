/**
 * Whether a value handed to a construct is a loaded environment. JavaScript callers (and `as any`)
 * can pass anything; the constructs name the prop and what they found instead of failing later
 * with a TypeError deep inside.
 */
import { describeFound } from './errors';
import { EnvironmentConfig } from './resolve';

/** The fields the constructs read first, with the type each must have. */
const FIELDS: readonly [keyof EnvironmentConfig, 'string' | 'object' | 'array'][] = [
  ['name', 'string'],
  ['file', 'string'],
  ['resourcePrefix', 'string'],
  ['spec', 'object'],
  ['cloud', 'object'],
  ['managementCloud', 'object'],
  ['clusters', 'array'],
  ['warnings', 'array'],
];

const hasType = (value: unknown, type: 'string' | 'object' | 'array') =>
  type === 'array' ? Array.isArray(value) : type === 'object' ? typeof value === 'object' && value !== null : typeof value === type;

/** What the value is instead of a loaded environment (undefined when it is one). */
export function notAnEnvironment(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return describeFound(value);
  const missing = FIELDS.filter(([field, type]) => !hasType((value as Record<string, unknown>)[field], type)).map(([field]) => field);
  return missing.length === 0 ? undefined : `a mapping without ${missing.join(', ')}`;
}

/** The expectation, worded for messages. */
export const LOADED_ENVIRONMENT = 'a loaded environment (from loadEnvironmentFile, parseEnvironment or environmentFromObject)';
