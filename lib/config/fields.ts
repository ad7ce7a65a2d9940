/** Reusable field types of the environment schema. Messages start with "expected"; the loader appends what was found. */
import { z } from 'zod';
import { parseCidr, parseIpv4 } from './cidr';
import { isVersion } from './versions';

export const cidr = () =>
  z.string().refine((s) => parseCidr(s) !== undefined, { message: 'expected an IPv4 CIDR with zero host bits, like 10.0.0.0/24' })
    // The refinements above do not reach the JSON Schema; editors get the shape from here.
    .meta({ pattern: '^(\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2}$', examples: ['10.0.0.0/24'] });

export const ipv4 = () =>
  z.string().refine((s) => parseIpv4(s) !== undefined, { message: 'expected an IPv4 address, like 10.0.0.11' }).meta({ format: 'ipv4' });

/** Kubernetes-style DNS label, also safe inside OpenStack resource names. */
export const dnsLabel = (maxLength: number) =>
  z
    .string()
    .regex(/^[a-z]([-a-z0-9]*[a-z0-9])?$/, {
      message: 'expected lowercase letters, digits and "-", starting with a letter and not ending with "-"',
    })
    .max(maxLength, { message: `expected at most ${maxLength} characters` });

export const version = (allowX = false) =>
  z.string().refine((s) => isVersion(s, allowX), {
    message: allowX ? 'expected a version like v1.33.5 or v1.33.x' : 'expected a version like v1.12.10',
  }).meta({ pattern: allowX ? '^v\\d+\\.\\d+\\.(\\d+|x)$' : '^v\\d+\\.\\d+\\.\\d+$' });

export const url = () =>
  z.string().refine((s) => /^https?:\/\/[^\s/]+/.test(s), { message: 'expected an http(s) URL' }).meta({ format: 'uri' });

export const positiveInt = (max: number) =>
  z.number().int({ message: 'expected a whole number' }).min(1, { message: 'expected at least 1' }).max(max, { message: `expected at most ${max}` });

export const countInt = (max: number) =>
  z.number().int({ message: 'expected a whole number' }).min(0, { message: 'expected 0 or more' }).max(max, { message: `expected at most ${max}` });

export const metadata = () =>
  z.record(z.string().max(255), z.string().max(255)).default({}).describe('Server metadata (key: value) set on the VMs.');

export const stringList = () => z.array(z.string().min(1)).default([]);
