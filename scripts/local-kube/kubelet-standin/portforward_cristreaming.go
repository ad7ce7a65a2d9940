//go:build cristreaming

// Kubernetes v1.36 on: the kubelet's streaming server moved to k8s.io/cri-streaming.
package main

import (
	"context"
	"io"
	"net/http"
	"time"

	"k8s.io/cri-streaming/pkg/streaming/portforward"
)

func (f forwarder) PortForward(ctx context.Context, pod string, _ string, port int32, stream io.ReadWriteCloser) error {
	return f.forward(ctx, pod, port, stream)
}

func servePortForward(w http.ResponseWriter, r *http.Request, f forwarder, pod string) {
	opts, err := portforward.NewV4Options(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	portforward.ServePortForward(w, r, f, pod, "", opts, 4*time.Hour, 30*time.Second, portforward.SupportedProtocols)
}
