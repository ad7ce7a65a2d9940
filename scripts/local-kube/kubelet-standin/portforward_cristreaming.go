//go:build cristreaming

// Kubernetes v1.36 on: the kubelet's streaming server moved to k8s.io/cri-streaming (pod UIDs as strings).
package main

import (
	"context"
	"io"

	"k8s.io/cri-streaming/pkg/streaming/portforward"
)

func (f forwarder) PortForward(ctx context.Context, pod string, _ string, port int32, stream io.ReadWriteCloser) error {
	return f.forward(ctx, pod, port, stream)
}

var (
	newPortForwardOptions = portforward.NewV4Options
	servePortForward      = portforward.ServePortForward
	portForwardProtocols  = portforward.SupportedProtocols
)
