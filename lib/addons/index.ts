export * from './chart-repository';
export * from './chart-versions';
export * from './catalogue';
export * from './cloud-config';
export * from './helm-chart-proxies';
export * from './traefik-values';
