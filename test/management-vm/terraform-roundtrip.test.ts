/**
 * The user data through the real chain: cdktf synthesises it with tokens, Terraform renders it.
 * The result must equal the rendered text with only the tokens replaced by their values, so no
 * `${…}` in the scripts or files was taken for template syntax and every token survived intact.
 */
import * as fs from 'fs';
import * as path from 'path';
import { App, Fn, TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import { parse } from 'yaml';
import { BOOTSTRAP_PATHS, renderManagementUserData } from '../../lib/management-vm';
import { VERSIONS, itWithTool, run, tempDir } from './helpers';

const VALUES = {
  address: '203.0.113.10',
  fixed: '10.0.0.15',
  ca: '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n',
  key: '-----BEGIN RSA PRIVATE KEY-----\nMIIEfake\n-----END RSA PRIVATE KEY-----\n',
};

describe('user data through cdktf and Terraform', () => {
  const check = itWithTool('terraform', 'terraform (from the project toolchain)');

  check('Terraform substitutes the tokens and changes nothing else', () => {
    const outdir = tempDir('cdktf-userdata-');
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'userdata');
    const v = (name: keyof typeof VALUES) => new TerraformVariable(stack, name, { type: 'string', default: VALUES[name] }).stringValue;
    const props = {
      kindClusterName: 'capi-mgmt',
      apiServerAddress: v('address'),
      extraCertSans: [v('fixed')],
      caCertificatePemBase64: Fn.base64encode(v('ca')),
      caPrivateKeyPemBase64: Fn.base64encode(v('key')),
      managementCidr: '10.0.0.0/24',
      httpProxy: 'http://proxy.example.com:3128',
      versions: VERSIONS,
    };
    const userData = renderManagementUserData(props);
    new TerraformOutput(stack, 'user_data', { value: userData });
    app.synth();

    const dir = path.join(outdir, 'stacks', 'userdata');
    const cliConfig = path.join(outdir, 'terraformrc');
    fs.writeFileSync(cliConfig, '');
    const env = { CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_CLI_CONFIG_FILE: cliConfig };
    const init = run('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env });
    expect({ status: init.status, stderr: init.stderr }).toEqual({ status: 0, stderr: '' });
    const apply = run('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], { cwd: dir, env });
    expect({ status: apply.status, stderr: apply.stderr }).toEqual({ status: 0, stderr: '' });
    const rendered = run('terraform', ['output', '-raw', 'user_data'], { cwd: dir, env }).stdout;
    fs.rmSync(outdir, { recursive: true, force: true });

    // every byte outside the token positions is what renderManagementUserData produced
    const parts = userData.split(/\$\{TfToken\[TOKEN\.\d+\]\}/);
    expect(parts.length).toBeGreaterThanOrEqual(5);
    const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(rendered).toMatch(new RegExp(`^${parts.map(escape).join('[A-Za-z0-9+/=.]+')}$`));
    expect(rendered).not.toContain('TfToken');

    // and the tokens became the values
    const doc = parse(rendered);
    const content = (p: string) => doc.write_files.find((f: { path: string }) => f.path === p).content as string;
    const b64 = (t: string) => Buffer.from(t).toString('base64');
    expect(content(BOOTSTRAP_PATHS.kindConfig)).toContain(`- '${VALUES.address}'\n`);
    expect(content(BOOTSTRAP_PATHS.kindConfig)).toContain(`- '${VALUES.fixed}'\n`);
    expect(content(BOOTSTRAP_PATHS.caCertificate)).toBe(b64(VALUES.ca));
    expect(content(BOOTSTRAP_PATHS.caPrivateKey)).toBe(b64(VALUES.key));
    // the scripts, full of ${...}, arrive unchanged
    expect(Buffer.from(content(`${BOOTSTRAP_PATHS.scriptDir}/capi-bootstrap.sh`), 'base64').toString('utf8')).toContain('export HOME=${HOME:-/root}');
  }, 120_000);
});
