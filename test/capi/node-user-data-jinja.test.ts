/**
 * Cluster API turns a node's KubeadmConfigSpec into a `## template: jinja` cloud-config, which
 * cloud-init renders as Jinja, as root, before it parses it. The user data of each node role is put
 * together as CAPI v1.14 does and rendered with cloud-init's own Jinja handler: values holding Jinja
 * (`{{ … }}`, `{% … %}`, `{#`, `{{.x}}`) come out byte for byte, and the expressions we mean
 * (`{{ local_hostname }}`, `{{ instance_id }}`) are evaluated.
 */
import { parseAllDocuments } from 'yaml';
import { KubeObject, buildClusterObjects } from '../../lib/capi';
import { NodeFile } from '../../lib/capi/node-files';
import { NodeBootstrapRole } from '../../lib/capi/node-user-data';
import { EnvironmentConfig } from '../../lib/config';
import { jinjaLiteral } from '../../lib/config/jinja-text';
import { seededRandom } from '../support/seeded-random';
import { itWithTool } from '../management-vm/helpers';
import { OPENSTACK_INSTANCE_DATA, renderWithCloudInit } from '../support/cloud-init-jinja';
import { decodedContent, nodeUserDataDocuments } from '../support/node-user-data';
import { inputsFor, makeEnv } from './fixtures';

/** Jinja in every shape that passes the URL rules, and the characters around it. */
const PROXIES = [
  'http://proxy.example:3128/{{7*7}}',
  'http://proxy.example:3128/{%print(7*7)%}',
  'http://proxy.example:3128/{#x',
  'http://proxy.example:3128/{{.x}}',
  'http://proxy.example:3128/a{{{b}}}c{%raw%}x{%endraw%}',
  'http://proxy.example:3128/%7E{',
];
const ENDPOINTS = ['https://mirror.example/{{config}}/v2', 'https://mirror.example:5000/{%if(true)%}x{%endif%}', 'https://mirror.example/{#-', 'https://m.example/{'];

function environment(proxy: string): EnvironmentConfig {
  return makeEnv(
    [
      'proxy:',
      `  httpProxy: "${proxy}"`,
      '  noProxy: [".corp.example"]',
      'registryMirrors:',
      ...ENDPOINTS.map((e, i) => `  - {registry: "r${i}.example", endpoints: ["${e}"], caCertificateFile: ca.pem}`),
      'clusters:',
      '  demo:',
      '    controlPlane: {count: 3, etcdUnsafeFilesystem: true}',
      '    nodeGroups: [{name: md-0, labels: {team: a}}]',
      '',
    ].join('\n'),
  );
}

/** The user data of each role: [role, spec, text]. */
function userData(objs: KubeObject[]): [NodeBootstrapRole, any, string][] {
  return nodeUserDataDocuments(objs).map((d) => [d.role, d.spec, d.text]);
}

const decoded = decodedContent;

describe('node user data rendered by cloud-init\'s Jinja', () => {
  const check = itWithTool('cloud-init', 'cloud-init');

  check('the renderer evaluates Jinja (the checks below are not vacuous)', () => {
    const [out] = renderWithCloudInit(['## template: jinja\n#cloud-config\nwrite_files:\n-   path: /x\n    content: "{{ 7*7 }} {{ v1.local_hostname }}"\nruncmd: []\n']);
    expect(out.config.write_files[0].content).toBe(`49 ${OPENSTACK_INSTANCE_DATA.v1.local_hostname}`);
    expect(() => renderWithCloudInit(['## template: jinja\n#cloud-config\nruncmd: ["{{.x}}"]\n'])).toThrow(/could not render/);
  });

  check.each(PROXIES)('proxy %s and Jinja in mirror endpoints reach every node role byte for byte', (proxy) => {
    const objs = buildClusterObjects(inputsFor(environment(proxy), 'demo'));
    const documents = userData(objs);
    const outputs = renderWithCloudInit(documents.map(([, , text]) => text));
    for (const [n, [role, spec]] of documents.entries()) {
      const out = outputs[n];
      const written = new Map(out.config.write_files.map((f) => [f.path, decoded(f)]));
      // the proxy drop-ins hold the proxy as written (systemd's %% for %), every other file its own text
      const dropIn = written.get('/etc/systemd/system/kubelet.service.d/http-proxy.conf');
      expect({ role, line: dropIn?.split('\n')[2] }).toEqual({ role, line: expect.stringMatching(new RegExp(`^Environment="HTTP_PROXY=${escapeRegExp(proxy.replace(/%/g, '%%'))}" "HTTPS_PROXY=`)) });
      for (const [i, endpoint] of ENDPOINTS.entries()) {
        expect({ role, hosts: written.get(`/etc/containerd/certs.d/r${i}.example/hosts.toml`) }).toEqual({ role, hosts: expect.stringContaining(`[host.${JSON.stringify(endpoint)}]\n`) });
      }
      for (const f of spec.files as NodeFile[]) {
        expect({ role, path: f.path, content: written.get(f.path) }).toEqual({ role, path: f.path, content: decoded(withBraces(f)) });
      }
      expect({ role, runcmd: out.config.runcmd.filter((c) => !c.includes('kubeadm ')) }).toEqual({ role, runcmd: [...(spec.preKubeadmCommands ?? []), ...(spec.postKubeadmCommands ?? [])].map(unbraced) });
      // what we mean as Jinja is evaluated: the node's name and provider id
      const config = written.get(role === 'init' ? '/run/kubeadm/kubeadm.yaml' : '/run/kubeadm/kubeadm-join-config.yaml')!;
      const registration = parseAllDocuments(config).map((d) => d.toJS()).find((d) => d?.nodeRegistration).nodeRegistration;
      expect({ role, name: registration.name }).toEqual({ role, name: OPENSTACK_INSTANCE_DATA.v1.local_hostname });
      expect(registration.kubeletExtraArgs).toContainEqual({ name: 'provider-id', value: `openstack:///'${OPENSTACK_INSTANCE_DATA.v1.instance_id}'` });
      expect(out.rendered).not.toContain('CI_MISSING_JINJA_VAR');
    }
  });
});

describe('the escape itself', () => {
  const check = itWithTool('cloud-init', 'cloud-init');

  check('300 seeded texts of Jinja delimiters, quotes, line breaks and raw blocks render back exactly', () => {
    const r = seededRandom(0x9a1a);
    const pieces = ['{', '}', '%', '#', '{{', '{%', '{#', '}}', '%}', '#}', '{%raw%}', '{% endraw %}', "'", '"', '\\', '\n', ' ', '-', 'a', '{{ 7*7 }}'];
    const texts = Array.from({ length: 300 }, () => Array.from({ length: 1 + Math.floor(r() * 12) }, () => pieces[Math.floor(r() * pieces.length)]).join(''));
    // JSON strings are YAML double-quoted scalars: the YAML layer gives back exactly what Jinja wrote
    const body = texts.map((t, i) => `-   path: /t${i}\n    content: ${JSON.stringify(jinjaLiteral(t))}\n`).join('');
    const [out] = renderWithCloudInit([`## template: jinja\n#cloud-config\nwrite_files:\n${body}runcmd: []\n`]);
    expect(out.config.write_files.map((f) => f.content)).toEqual(texts);
  });
});

describe('a hand-made environment (library use, past the schema)', () => {
  const check = itWithTool('cloud-init', 'cloud-init');

  check('Jinja in NO_PROXY entries, enough to make the drop-ins gzip+base64, renders back byte for byte', () => {
    const env = makeEnv('clusters:\n  demo: {}\n');
    const noProxy = Array.from({ length: 400 }, (_, i) => (i % 2 ? `{{h${i}}}` : `{%x${i}%}`));
    const hostile: EnvironmentConfig = { ...env, spec: { ...env.spec, proxy: { httpProxy: 'http://p.example:3128/{#', noProxy } } };
    const objs = buildClusterObjects(inputsFor(hostile, 'demo'));
    const documents = userData(objs);
    expect(documents[2][1].files.find((f: NodeFile) => f.path.endsWith('http-proxy.conf')).encoding).toBe('gzip+base64');
    const outputs = renderWithCloudInit(documents.map(([, , text]) => text));
    for (const [n, [role]] of documents.entries()) {
      const dropIn = outputs[n].config.write_files.find((f) => f.path === '/etc/systemd/system/containerd.service.d/http-proxy.conf')!;
      expect({ role, noProxy: /"NO_PROXY=([^"]*)"/.exec(decoded(dropIn))?.[1].replace(/%%/g, '%').split(',').slice(-400) }).toEqual({ role, noProxy });
    }
  });
});

/** What a file's text must read after rendering: the escaped `{` back as it was written. */
function withBraces(f: NodeFile): NodeFile {
  return f.encoding ? f : { ...f, content: unbraced(f.content) };
}

function unbraced(text: string): string {
  return text.split("{{ '{' }}").join('{');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
