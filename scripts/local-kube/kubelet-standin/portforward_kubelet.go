//go:build !cristreaming

// Kubernetes up to v1.35: the kubelet's streaming server lives in k8s.io/kubelet (pod UIDs typed).
package main

import (
	"context"
	"io"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubelet/pkg/cri/streaming/portforward"
)

func (f forwarder) PortForward(ctx context.Context, pod string, _ types.UID, port int32, stream io.ReadWriteCloser) error {
	return f.forward(ctx, pod, port, stream)
}

var (
	newPortForwardOptions = portforward.NewV4Options
	servePortForward      = portforward.ServePortForward
	portForwardProtocols  = portforward.SupportedProtocols
)
