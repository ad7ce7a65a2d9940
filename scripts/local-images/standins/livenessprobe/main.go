// A stand-in for the CSI livenessprobe sidecar (registry.k8s.io/sig-storage/livenessprobe), whose
// Go module the module proxy does not serve: written here, built inside a copy of
// k8s.io/cloud-provider-openstack (scripts/local-images), whose module graph carries the CSI spec
// and gRPC. It does the sidecar's one job with the same flags: on every GET of /healthz it calls
// the CSI driver's Identity Probe on --csi-address and answers 200 when the driver says it is
// ready, 500 with the reason otherwise. The driver container's livenessProbe asks this port.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func main() {
	address := flag.String("csi-address", "/run/csi/socket", "the CSI driver's socket")
	timeout := flag.Duration("probe-timeout", time.Second, "how long one Probe call may take")
	port := flag.String("health-port", "9808", "the port /healthz is served on (unless --http-endpoint)")
	endpoint := flag.String("http-endpoint", "", "host:port /healthz is served on")
	flag.Int("v", 0, "log verbosity (accepted as the sidecar's; this stand-in logs failures only)")
	flag.Parse()

	target := *address
	if !strings.HasPrefix(target, "unix:") {
		target = "unix://" + target
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatalf("connecting to %s: %v", target, err)
	}
	identity := csi.NewIdentityClient(conn)

	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), *timeout)
		defer cancel()
		res, err := identity.Probe(ctx, &csi.ProbeRequest{})
		switch {
		case err != nil:
			log.Printf("probe of %s failed: %v", target, err)
			http.Error(w, fmt.Sprintf("probe failed: %v", err), http.StatusInternalServerError)
		case res.GetReady() != nil && !res.GetReady().GetValue():
			log.Printf("driver at %s is not ready", target)
			http.Error(w, "driver is not ready", http.StatusInternalServerError)
		default:
			_, _ = w.Write([]byte("ok"))
		}
	})
	listen := *endpoint
	if listen == "" {
		listen = net.JoinHostPort("", *port)
	}
	log.Printf("serving /healthz on %s, probing %s", listen, target)
	log.Fatal(http.ListenAndServe(listen, nil))
}
