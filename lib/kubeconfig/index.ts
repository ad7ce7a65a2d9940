export * from './kubeconfig';
