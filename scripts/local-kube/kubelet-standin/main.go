// kubelet-standin answers the one kubelet API call the Cluster API control-plane controller
// (KCP) needs from a simulated workload cluster: the API server's pods/portforward of
// `kube-system/etcd-<node>` arrives here as `/portForward/<namespace>/<pod>` (SPDY/3.1, subprotocol
// portforward.k8s.io), and each forwarded stream is piped to the address the map file names for that
// pod — a real etcd member on loopback. The streaming protocol itself is the kubelet's own package
// (portforward_*.go pick its package for the Kubernetes version), so the API server talks to the same server code as on a real node.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// forwarder resolves a pod to a target address through the map file, read on every request so
// that the simulation can add members while the stand-in runs.
type forwarder struct{ mapFile string }

// target returns the address mapped for "namespace/pod".
func (f forwarder) target(pod string) (string, error) {
	raw, err := os.ReadFile(f.mapFile)
	if err != nil {
		return "", fmt.Errorf("reading the pod map %s: %w", f.mapFile, err)
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("parsing the pod map %s: %w", f.mapFile, err)
	}
	addr, ok := m[pod]
	if !ok {
		return "", fmt.Errorf("pod %s is not served by this kubelet stand-in (not in %s)", pod, f.mapFile)
	}
	return addr, nil
}

// forward dials the pod's mapped address and copies both ways until either side ends. The port the
// client asked for is not part of the address: each pod maps to the one port that matters (etcd's
// client port 2379 on a real node).
func (f forwarder) forward(ctx context.Context, pod string, port int32, stream io.ReadWriteCloser) error {
	defer stream.Close()
	addr, err := f.target(pod)
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("dialing %s for pod %s port %d: %w", addr, pod, port, err)
	}
	defer conn.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(conn, stream)
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.CloseWrite() // the client finished sending; let the target see EOF
		}
	}()
	_, _ = io.Copy(stream, conn)
	_ = stream.Close()
	wg.Wait()
	return nil
}

func main() {
	listen := flag.String("listen", "127.0.0.1:10250", "address to serve HTTPS on (loopback only)")
	certFile := flag.String("tls-cert-file", "", "serving certificate (PEM)")
	keyFile := flag.String("tls-private-key-file", "", "serving key (PEM)")
	clientCA := flag.String("client-ca-file", "", "CA whose client certificates may call (the API server's --kubelet-client-certificate)")
	mapFile := flag.String("pod-map", "", `JSON file {"<namespace>/<pod>": "<host:port>"}, re-read per request`)
	flag.Parse()
	if *certFile == "" || *keyFile == "" || *clientCA == "" || *mapFile == "" {
		log.Fatal("--tls-cert-file, --tls-private-key-file, --client-ca-file and --pod-map are required")
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		log.Fatalf("--listen %q: %v", *listen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("--listen %q: only a loopback IP address is allowed (this stand-in forwards to local processes)", *listen)
	}
	caPEM, err := os.ReadFile(*clientCA)
	if err != nil {
		log.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		log.Fatalf("no certificate in %s", *clientCA)
	}
	f := forwarder{mapFile: *mapFile}
	mux := http.NewServeMux()
	mux.HandleFunc("/portForward/{namespace}/{pod}", func(w http.ResponseWriter, r *http.Request) {
		pod := r.PathValue("namespace") + "/" + r.PathValue("pod")
		log.Printf("portForward %s from %s", pod, r.RemoteAddr)
		opts, err := newPortForwardOptions(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		// the kubelet's own timeouts: idle streams end after 4 h, a stream pair must arrive in 30 s
		servePortForward(w, r, f, pod, "", opts, 4*time.Hour, 30*time.Second, portForwardProtocols)
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	srv := &http.Server{
		Addr:              *listen,
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool, MinVersion: tls.VersionTLS12},
	}
	log.Printf("kubelet stand-in on https://%s, pod map %s", *listen, *mapFile)
	if err := srv.ListenAndServeTLS(*certFile, *keyFile); err != nil && !strings.Contains(err.Error(), "closed") {
		log.Fatal(err)
	}
}
