/**
 * The management cluster's admin key reaches Terraform's output only marked sensitive. The
 * readiness gate and the controller upgrade hand it to their script through the local-exec
 * environment under nonsensitive(): Terraform would otherwise hide the scripts' whole output
 * (progress and the reason of a failure; hashicorp/terraform#27154). A provisioner's environment
 * is no attribute of a resource, so no plan shows it, and Terraform prints only the command of a
 * failed local-exec: that is why the key may be nowhere else in the stack.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseEnvironment } from '../../lib/config';
import { ROOT } from '../app/synthesize';
import { synthEnvironment } from '../stacks/support';

const FULL = path.join(ROOT, 'test', 'fixtures', 'synth-snapshot', 'environments', 'full.yaml');

/** Every place (path) of a string in `json` that mentions `needle`. */
function placesOf(json: unknown, needle: string, at: string[] = []): string[] {
  if (typeof json === 'string') return json.includes(needle) ? [at.join('.')] : [];
  if (Array.isArray(json)) return json.flatMap((v, i) => placesOf(v, needle, [...at, String(i)]));
  if (json && typeof json === 'object') return Object.entries(json).flatMap(([k, v]) => placesOf(v, needle, [...at, k]));
  return [];
}

test('the admin key is in sensitive outputs, the certificate request and the local-exec environments only', () => {
  const stack = synthEnvironment(parseEnvironment(fs.readFileSync(FULL, 'utf8'), FULL)).json['full-management'];
  const [keyName] = Object.keys(stack.resource.tls_private_key).filter((k) => k.includes('AdminKey'));
  const places = placesOf({ resource: stack.resource, output: stack.output, locals: stack.locals }, `tls_private_key.${keyName}.private_key_pem`);
  const unsafe = places.filter(
    (p) =>
      !/^resource\.terraform_data\.[^.]+\.provisioner\.\d+\.local-exec\.environment\.KUBE_CLIENT_KEY_PEM$/.test(p) &&
      !/^resource\.tls_cert_request\.[^.]+\.private_key_pem$/.test(p) &&
      !(/^output\.([^.]+)\.value$/.test(p) && stack.output[p.split('.')[1]].sensitive === true),
  );
  expect(unsafe).toEqual([]);
  // the gate and the upgrade: in the environment, never in the command or the plan-visible attributes
  const gates = Object.values(stack.resource.terraform_data as Record<string, any>).filter((r) => placesOf(r, keyName).length > 0);
  expect(gates).toHaveLength(2);
  for (const gate of gates) {
    expect(placesOf(gate.provisioner[0]['local-exec'].command, keyName)).toEqual([]);
    expect(placesOf([gate.triggers_replace, gate.input], keyName)).toEqual([]);
  }
  expect(places.filter((p) => p.startsWith('output.')).length).toBeGreaterThan(0);
});
