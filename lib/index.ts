/** Public API of capi-openstack-cdktf. */
export * from './config';
export * from './kube';
export * from './openstack/application-credential';
export * from './openstack/management-endpoint';
export * from './openstack/management-network';
export * from './openstack/management-server';
export * from './openstack/security-group';
export * from './openstack/security-rules';
export * from './pki/cluster-pki';
export * from './stacks/environment-guard';
export * from './stacks/environment-stacks';
export * from './stacks/management-stack';
export * from './stacks/readiness-gate';
