import * as fs from 'fs';
import * as path from 'path';
import { PROVIDER_VERSIONS } from '../../lib/gen/versions';
import { ENVIRONMENT_DIRS, ROOT, synthesize } from './synthesize';

/**
 * What a user's own Terraform or OpenTofu resolves: every synthesized stack requires released
 * provider versions (a `~> x.y.z` range), never a label only the offline mirror has, and uses no
 * attribute that the mirror's build has beyond that release.
 */
interface PinnedProvider {
  readonly name: string;
  readonly version: string;
  readonly unreleasedAttributes?: Readonly<Record<string, readonly string[]>>;
}
const pinned: PinnedProvider[] = JSON.parse(fs.readFileSync(path.join(ROOT, 'scripts', 'toolchain', 'providers.json'), 'utf8')).providers;
const stacks = Object.entries(Object.assign({}, ...ENVIRONMENT_DIRS.map(synthesize)) as Record<string, string>).map(([name, text]) => ({ name, json: JSON.parse(text) }));

describe('synthesized stacks name released providers', () => {
  test.each(stacks.map((s) => s.name))('%s requires only `~> <release>` ranges the mirror satisfies', (name) => {
    const required: Record<string, { source: string; version: string }> = stacks.find((s) => s.name === name)!.json.terraform.required_providers;
    expect(Object.keys(required).length).toBeGreaterThan(0);
    for (const [provider, { source, version }] of Object.entries(required)) {
      expect(version).toMatch(/^~> \d+\.\d+\.\d+$/); // no pre-release or build label
      const mirrored = pinned.find((p) => p.name === provider);
      expect(mirrored).toBeDefined();
      expect(version).toBe(`~> ${mirrored!.version}`);
      expect(source).toBe(PROVIDER_VERSIONS[provider as keyof typeof PROVIDER_VERSIONS].source);
    }
  });

  test('no stack sets an attribute that only the mirrored build has', () => {
    const used: string[] = [];
    for (const p of pinned) {
      for (const [type, attributes] of Object.entries(p.unreleasedAttributes ?? {})) {
        for (const s of stacks) {
          for (const [id, body] of Object.entries<Record<string, unknown>>(s.json.resource?.[type] ?? {})) {
            used.push(...attributes.filter((a) => a in body).map((a) => `${s.name}: ${type}.${id}.${a}`));
          }
        }
      }
    }
    expect(used).toEqual([]);
    // the check looks at something: the management stacks have the TLS resources it guards
    expect(stacks.some((s) => s.json.resource?.tls_self_signed_cert)).toBe(true);
  });

  test('a pre-release label would be caught', () => {
    expect('~> 3.2.2-dev.20260821094251').not.toMatch(/^~> \d+\.\d+\.\d+$/);
  });
});
