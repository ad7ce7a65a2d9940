/**
 * The schema of `environments/<name>.yaml`. Single source for validation, defaults, the TypeScript
 * types and the JSON Schema editors use. Names are camelCase versions of the old tool's tfvars
 * (see PARITY in the README's migration guide).
 */
import { z } from 'zod';
import { ClusterSpec, clusterSchema } from './cluster-schema';
import { featureFlagsSchema } from './feature-flags';
import { chartRepositoryUrl, cidr, cloudIdentifier, cloudObjectName, countInt, dnsLabel, ipv4, linuxUserName, metadata, mtu, noProxyEntry, plainHttpOverNetwork, positiveInt, registryHost, url, version } from './fields';
import { CLUSTERCTL_CERT_MANAGER_VERSION, ManifestKey, PROVIDER_MANIFEST_FILES } from './provider-manifests';
import { DEFAULT_MANAGEMENT_TOOLS, NODE_IMAGE_PATTERN } from './downloads';
import { DEFAULT_CONTROLLER_VERSIONS } from './versions';

const sha256Hex = () => z.string().regex(/^[0-9a-f]{64}$/, { message: 'expected a SHA-256: 64 lowercase hexadecimal characters' });

export const providerManifestsSchema = z
  .strictObject({
    baseUrl: url()
      .optional()
      .describe('Mirror serving the files as <baseUrl>/<label>/<version>/<file> (clusterctl\'s local repository layout, e.g. <baseUrl>/cluster-api/v1.12.10/core-components.yaml); for clouds without GitHub. Default: the GitHub release assets.'),
    certManagerVersion: version()
      .optional()
      .describe(`cert-manager release installed from the pinned manifests (the file cert-manager/<version>/cert-manager.yaml); for sites whose mirror holds another release than clusterctl's default. Default: ${CLUSTERCTL_CERT_MANAGER_VERSION}, the one clusterctl installs.`),
    versions: z
      .strictObject(
        {
          clusterApi: version().describe('Cluster API release of the core, bootstrap-kubeadm and control-plane-kubeadm checksums.'),
          capo: version().describe('CAPO release of the infrastructure-openstack checksums.'),
          caaph: version().describe('CAAPH release of the addon-helm checksums.'),
        },
        { error: (issue) => (issue.code === 'invalid_type' ? 'expected a mapping of the releases these checksums are of (clusterApi, capo, caaph: `capi-openstack manifests <env> --fetch` prints the block with them)' : undefined) },
      )
      .describe('The releases the checksums are of; each must equal its field under `versions`. A change of `versions` needs the new release\'s checksums: the controller upgrade installs pinned components only, and `validate` refuses versions the pins are not of.'),
    sha256: z
      .strictObject(
        Object.fromEntries(PROVIDER_MANIFEST_FILES.map((f) => [f.key, sha256Hex().describe(`SHA-256 of ${f.label}/<version>/${f.file} (release asset of ${f.repository}).`)])) as Record<
          ManifestKey,
          ReturnType<typeof sha256Hex>
        >,
      )
      .describe('SHA-256 of every file, of the releases `versions` names here (`capi-openstack manifests <env> --fetch` prints them).'),
  })
  .describe('Pin the provider manifests: the VM downloads the Cluster API provider components and metadata, ORC and cert-manager, checks each SHA-256 and installs from a local clusterctl repository; the controller upgrade (a change of `versions`) installs from them the same way. Default: clusterctl fetches them from GitHub without a checksum, at the first install and at every upgrade (`validate` warns).');

const toolPin = (name: string, pinned: string) =>
  z
    .strictObject({
      version: version().describe(`${name} release.`),
      sha256: sha256Hex().describe(`SHA-256 of its linux/amd64 binary (from the release's checksum, or of the file your mirror serves).`),
    })
    .optional()
    .describe(`Another ${name} release than the tested ${pinned}, with its checksum.`);

export const managementToolsSchema = z
  .strictObject({
    baseUrl: url()
      // the VM's download script takes https only: http passed here and failed at synth, without file or line
      .refine((u) => !u.startsWith('http://'), { message: 'expected an https:// URL (the management VM downloads its tools over https only)' })
      .meta({ format: 'uri', pattern: '^https:\\/\\/[^\\s/"\'\\\\`$]+[^\\s"\'\\\\`$]*$' })
      .optional()
      .describe('Mirror serving the binaries as <baseUrl>/<name>/<version>/<file>, the file named as in the release (e.g. <baseUrl>/kind/v0.32.0/kind-linux-amd64, <baseUrl>/kubectl/v1.36.1/kubectl, <baseUrl>/clusterctl/v1.12.4/clusterctl-linux-amd64); for clouds without GitHub and dl.k8s.io. An https:// URL; each file is still checked against its SHA-256. Default: the release URLs.'),
    kind: toolPin('kind', DEFAULT_MANAGEMENT_TOOLS.kind.version),
    kubectl: toolPin('kubectl', DEFAULT_MANAGEMENT_TOOLS.kubectl.version),
    clusterctl: toolPin('clusterctl', DEFAULT_MANAGEMENT_TOOLS.clusterctl.version),
    kindNodeImage: z
      .string()
      .regex(NODE_IMAGE_PATTERN, { message: 'expected an image pinned by digest: name:tag@sha256:<64 hex>' })
      .optional()
      .describe(`kind node image of the management cluster, pinned by digest; pulled through registryMirrors like any image. Default: ${DEFAULT_MANAGEMENT_TOOLS.kindNodeImage}.`),
  })
  .describe('The binaries the management VM installs (kind, kubectl, clusterctl) and its kind node image: where from and which. Default: the tested releases from their release URLs.');

/** The message for an http:// URL without the field's `allowPlainHttp: true`. */
const PLAIN_HTTP = 'expected an https:// URL (plain http can be read and changed on the way; set allowPlainHttp: true to accept that)';

export const cloudSchema = z
  .strictObject({
    name: cloudIdentifier().describe('Entry of clouds.yaml to use (the old `cloud_provider`). Credentials stay in clouds.yaml or OS_* variables.'),
    cloudsFile: z.string().optional().describe('Path of clouds.yaml read at synthesis. Terraform\'s OpenStack provider searches on its own: export OS_CLIENT_CONFIG_FILE with the same path when deploying. Default: OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml, /etc/openstack/clouds.yaml.'),
    region: cloudIdentifier().optional().describe('Region. Default: region_name of the clouds.yaml entry.'),
    authUrl: url().optional().describe('Keystone URL handed to CAPO on the management VM (and to OCCM and Cinder CSI on the nodes); https unless allowPlainHttp. Default: auth.auth_url of the clouds.yaml entry.'),
    caCertificateFile: z.string().optional().describe('PEM file of a private CA for the OpenStack API, trusted by Terraform, CAPO, OCCM and Cinder CSI. Default: cacert of the clouds.yaml entry.'),
    interface: z.enum(['public', 'internal', 'admin']).default('public').describe('Endpoint interface.'),
    allowPlainHttp: z
      .boolean()
      .default(false)
      .describe('Accept an http:// Keystone URL, in authUrl or in the auth_url of the clouds.yaml entries (every cluster\'s application credential and the tokens it gets travel in clear, open to reading and tampering on the way). Loopback URLs never need it.'),
  })
  .superRefine((c, ctx) => {
    if (!c.allowPlainHttp && c.authUrl !== undefined && plainHttpOverNetwork(c.authUrl)) ctx.addIssue({ code: 'custom', path: ['authUrl'], message: PLAIN_HTTP, input: c.authUrl });
  })
  .describe('Which OpenStack cloud to use.');

export const networkSchema = z
  .strictObject({
    externalNetworkName: z.string().optional().describe('External network by name (old `external`). Default: auto-detect the only external network.'),
    externalNetworkId: z.string().optional().describe('External network by id (old `external_id`).'),
    managementCidr: cidr().default('10.0.0.0/24').describe('Management subnet (old `mgmt_cidr`).'),
    allocationPoolStart: ipv4().optional().describe('First address handed out (old `mgmt_ip_range.start`). Default: the 11th address of managementCidr.'),
    allocationPoolEnd: ipv4().optional().describe('Last address handed out (old `mgmt_ip_range.end`). Default: the last usable address of managementCidr.'),
    dnsNameservers: z.array(ipv4()).default(['5.1.66.255', '185.150.99.255']).describe('Subnet DNS servers.'),
    mtu: mtu().default(0).describe('MTU for docker/kind on the VM (old `kind_mtu`): 0 detects it, else 576 to 9000. CNI MTU is this minus 50.'),
    routerAvailabilityZoneHint: cloudIdentifier().optional().describe('Router availability zone hint. Default: none (clouds without network AZs reject hints).'),
  })
  .describe('Management network.');

export const managementSchema = z
  .strictObject({
    cloud: cloudObjectName()
      .optional()
      .describe('Entry of clouds.yaml (the file of cloud.cloudsFile, else the usual search) the management stack logs in with: the management VM, its network and boot volume go into that entry\'s project, which the workload clusters\' credentials (project of cloud.name) cannot reach. Must be another project of the same cloud. Put the state bucket there too (`capi-openstack state credentials` uses this entry). Default: cloud.name, one project for everything.'),
    flavor: cloudObjectName().default('SCS-2V-4').describe('Flavor of the management VM (old `kind_flavor`).'),
    image: cloudObjectName().default('Ubuntu 22.04').describe('Image name of the management VM; the newest image of that name is used.'),
    sshUsername: linuxUserName().default('ubuntu').describe('Login user of the image.'),
    sshPublicKey: z
      .string()
      .regex(/^(ssh-(ed25519|rsa)|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/=]+( .*)?$/, { message: 'expected an OpenSSH public key line' })
      // the key reaches Terraform (key pair, user data), where these start an expression
      .refine((k) => !/[$%]\{/.test(k), { message: 'expected an OpenSSH public key line whose comment has no "${" or "%{" (Terraform would evaluate them)' })
      .optional()
      .describe('Optional SSH public key for break-glass access. No private key is ever generated or stored.'),
    bootVolumeSizeGb: countInt(10000).default(30).describe('Boot volume size; 0 boots from the image on the flavor disk.'),
    bootVolumeType: cloudIdentifier().optional().describe('Volume type of the boot volume. Default: the cloud default.'),
    apiAllowedCidrs: z.array(cidr()).default([]).describe('CIDRs allowed to reach the management Kubernetes API (6443). Default: closed, which needs waitForReady: false (the wait and the workload stacks reach the API from where cdktf deploy runs).'),
    sshAllowedCidrs: z.array(cidr()).default([]).describe('CIDRs allowed to SSH to the VM (old `restrict_mgmt_server`). Default: closed.'),
    metadata: metadata(),
    kindClusterName: dnsLabel(40).default('capi-mgmt').describe('Name of the kind cluster.'),
    waitForReady: z.boolean().default(true).describe('Wait until the management cluster accepts CAPI objects before the stack completes.'),
    readyTimeoutMinutes: positiveInt(180).default(20).describe('Bound of the readiness wait.'),
    providerManifests: providerManifestsSchema.optional(),
    tools: managementToolsSchema.optional(),
    trustedCaCertificateFile: z
      .string()
      .min(1)
      .optional()
      .describe('PEM file of CA certificates the management VM adds to its system trust store at first boot, before it downloads anything: the private CA of the mirror behind tools.baseUrl or providerManifests.baseUrl, or of a TLS-inspecting proxy. Read at synthesis; certificates only (a private key is refused). Default: the image\'s trust store only.'),
  })
  .describe('The management VM running kind + Cluster API.');

export const existingManagementSchema = z
  .strictObject({
    kubeconfigFile: z.string().min(1).describe('Kubeconfig of an existing management cluster with CAPI, CAPO and the Helm add-on provider installed.'),
    context: z.string().optional().describe('Context in that kubeconfig. Default: its current-context.'),
    egressCidr: cidr().optional().describe('Address range the management cluster reaches workload APIs from; added to restricted API allow lists.'),
  })
  .describe('Bring your own management cluster instead of creating the VM.');

export const proxySchema = z
  .strictObject({
    httpProxy: url().optional().describe('HTTP(S) proxy for the VM and the cluster nodes.'),
    noProxy: z.array(noProxyEntry()).default([]).describe('Extra NO_PROXY entries; cluster CIDRs, localhost and the metadata address are always added.'),
  })
  .describe('Outbound proxy.');

export const registryMirrorSchema = z
  .strictObject({
    registry: registryHost().describe('Registry host that is mirrored, e.g. docker.io.'),
    endpoints: z.array(url()).min(1, { message: 'expected at least one mirror endpoint' }).describe('Mirror URLs, tried in order; https unless allowPlainHttp.'),
    caCertificateFile: z.string().optional().describe('PEM file of the CA of the mirror.'),
    skipVerify: z.boolean().default(false).describe('Skip TLS verification of the mirror (not recommended).'),
    allowPlainHttp: z.boolean().default(false).describe('Accept http:// endpoints (images pulled in clear, open to tampering on the way). Loopback endpoints never need it.'),
  })
  .superRefine((m, ctx) => {
    m.endpoints.forEach((e, i) => {
      if (!m.allowPlainHttp && plainHttpOverNetwork(e)) ctx.addIssue({ code: 'custom', path: ['endpoints', i], message: PLAIN_HTTP, input: e });
    });
  });

/**
 * CAAPH v0.6 hands a HelmChartProxy's CA (`tlsConfig.caSecret`) to its OCI registry client only: an
 * https:// repository's index and charts are fetched with the controller's system trust store.
 */
const HTTPS_CA_UNUSED =
  'expected an oci:// registry path when caCertificateFile is set: the Helm add-on provider (v0.6) gives the CA to its OCI registry client only and checks an https:// chart repository against its own system trust store, so the install would fail on the certificate (serve the charts from an OCI registry, or leave caCertificateFile out for a publicly trusted https:// repository)';

export const chartRepositorySchema = z
  .strictObject({
    url: chartRepositoryUrl().describe(
      'The mirror: an oci:// registry path (e.g. oci://registry.example.com/charts, each chart at <url>/<chart name>) or an https:// chart repository (its index.yaml lists the charts). It must hold every chart a cluster installs, under the catalogue\'s chart names and at the pinned or configured versions (docs/air-gapped.md lists them).',
    ),
    caCertificateFile: z
      .string()
      .min(1)
      .optional()
      .describe('PEM file of the private CA of an oci:// mirror. Read at synthesis; certificates only (a private key is refused). The workload stacks put it into a Secret beside each cluster\'s HelmChartProxies, which name it as their CA. Default: the Helm add-on provider\'s system trust store.'),
  })
  .superRefine((r, ctx) => {
    if (r.caCertificateFile !== undefined && r.url.startsWith('https://')) ctx.addIssue({ code: 'custom', path: ['url'], message: HTTPS_CA_UNUSED, input: r.url });
  })
  .describe('A private Helm chart mirror every add-on chart is installed from, in place of the charts\' public repositories (air-gapped sites). Default: each chart\'s public repository.');

export const versionsSchema = z
  .strictObject({
    clusterApi: version().default(DEFAULT_CONTROLLER_VERSIONS.clusterApi).describe('Cluster API core, kubeadm bootstrap and control plane.'),
    capo: version().default(DEFAULT_CONTROLLER_VERSIONS.capo).describe('Cluster API provider OpenStack.'),
    caaph: version().default(DEFAULT_CONTROLLER_VERSIONS.caaph).describe('Cluster API add-on provider for Helm.'),
  })
  .describe('Controller versions installed by clusterctl.');

export const stateBackendSchema = z
  .strictObject({
    type: z.literal('s3').default('s3').describe('Kind of store: "s3", any S3-compatible object store (Swift with s3api from 2.36, Ceph RGW, MinIO) that supports conditional writes, which the lock needs.'),
    endpoint: url().describe('S3 API of the object store, e.g. https://object-store.example.com.'),
    bucket: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'expected an S3 bucket name: 3 to 63 lowercase letters, digits, "." and "-", starting and ending with a letter or digit' })
      .describe('Bucket (a Swift container) holding the state; `capi-openstack state migrate` creates it when missing.'),
    keyPrefix: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/, { message: 'expected letters, digits, ".", "_", "-" and "/", at most 200 characters' })
      .refine((s) => !s.split('/').some((p) => p === '' || p === '.' || p === '..'), { message: 'expected path segments without "", "." or ".."' })
      .optional()
      .describe('Prefix of the state keys: each stack\'s state is <keyPrefix>/<stack>.tfstate, its lock <keyPrefix>/<stack>.tfstate.tflock. Default: the environment name.'),
    region: cloudIdentifier().default('us-east-1').describe('Region the requests are signed for; Swift expects its s3api `location` (often the cloud\'s region), Ceph RGW its zonegroup.'),
    allowPlainHttp: z.boolean().default(false).describe('Accept an http:// endpoint (the state, which holds the CA key and every cluster\'s credential, and the store\'s credentials travel in clear). Loopback endpoints never need it.'),
  })
  .superRefine((b, ctx) => {
    if (!b.allowPlainHttp && plainHttpOverNetwork(b.endpoint)) ctx.addIssue({ code: 'custom', path: ['endpoint'], message: PLAIN_HTTP, input: b.endpoint });
  })
  .describe('Shared Terraform state for every stack of the environment, with a lock per stack. Credentials come from the operator\'s environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, e.g. from `capi-openstack state credentials`), never from this file. Default: local state files.');

export const environmentSchema = z
  .strictObject({
    prefix: dnsLabel(20).default('capi').describe('Prefix of every resource name.'),
    availabilityZone: cloudIdentifier().optional().describe('Availability zone of the VM and default failure domain of clusters.'),
    cloud: cloudSchema,
    network: networkSchema.prefault({}),
    management: managementSchema.prefault({}),
    existingManagementCluster: existingManagementSchema.optional(),
    proxy: proxySchema.prefault({}),
    registryMirrors: z.array(registryMirrorSchema).default([]).describe('Container registry mirrors for the VM and the nodes.'),
    chartRepository: chartRepositorySchema.optional(),
    versions: versionsSchema.prefault({}),
    clusters: z.record(dnsLabel(32), clusterSchema).default({}).describe('Workload clusters, by name.'),
    stateBackend: stateBackendSchema.optional(),
    featureFlags: featureFlagsSchema,
  })
  .describe('One environment: a cloud, its management cluster and its workload clusters.');

/** An environment as written (optional fields may be missing), documented field by field. */
export type { EnvironmentInput } from './environment-types';
/** An environment file as the schema parses it: defaults that follow a feature flag are still unset. */
export type EnvironmentFields = z.output<typeof environmentSchema>;
/** An environment file with every default applied, the feature flags' included (resolve.ts). */
export type EnvironmentSpec = Omit<EnvironmentFields, 'clusters'> & { readonly clusters: Readonly<Record<string, ClusterSpec>> };
