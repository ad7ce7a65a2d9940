export * from './checks';
export * from './kube-client';
export * from './wait';
export * from './cli';
export * from './control-plane';
