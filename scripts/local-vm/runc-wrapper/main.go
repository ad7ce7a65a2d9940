// Command runc-wrapper is an OCI runtime for this project's test machines only (never part of
// the product). Their capability bounding set lacks CAP_SYS_RESOURCE, so runc can neither give
// that capability to a privileged container ("unable to apply caps: operation not permitted")
// nor lower a process's oom_score_adj below its own (kubelet asks -998 for static pods; runc
// init dies with "can't get final child's PID from pipe: EOF"). Before running runc with the
// same arguments, it removes CAP_SYS_RESOURCE from the container's config.json (create, run) or
// process.json (exec) and raises oomScoreAdj to the wrapper's own value.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

const dropped = "CAP_SYS_RESOURCE"

func option(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if strings.HasPrefix(a, n+"=") {
				return strings.TrimPrefix(a, n+"=")
			}
		}
	}
	return ""
}

func contains(args []string, word string) bool {
	for _, a := range args {
		if a == word {
			return true
		}
	}
	return false
}

func ownOomScoreAdj() float64 {
	raw, err := os.ReadFile("/proc/self/oom_score_adj")
	if err != nil {
		return 0
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return 0
	}
	return float64(v)
}

// fix edits the process object of an OCI document in place.
func fix(process map[string]any) {
	if caps, ok := process["capabilities"].(map[string]any); ok {
		for set, values := range caps {
			list, ok := values.([]any)
			if !ok {
				continue
			}
			kept := make([]any, 0, len(list))
			for _, c := range list {
				if c != dropped {
					kept = append(kept, c)
				}
			}
			caps[set] = kept
		}
	}
	if adj, ok := process["oomScoreAdj"].(float64); ok {
		if own := ownOomScoreAdj(); adj < own {
			process["oomScoreAdj"] = own
		}
	}
}

func rewrite(path string, whole bool) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if whole {
		fix(doc)
	} else if process, ok := doc["process"].(map[string]any); ok {
		fix(process)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", out, 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

func main() {
	args := os.Args[1:]
	var err error
	switch {
	case contains(args, "create") || contains(args, "run"):
		bundle := option(args, "--bundle", "-b")
		if bundle == "" {
			bundle = "."
		}
		err = rewrite(filepath.Join(bundle, "config.json"), false)
	case contains(args, "exec"):
		if p := option(args, "--process", "-p"); p != "" {
			err = rewrite(p, true)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "runc-wrapper:", err)
		os.Exit(1)
	}
	runc := os.Getenv("LOCAL_VM_RUNC")
	if runc == "" {
		runc = "/usr/sbin/runc"
	}
	err = syscall.Exec(runc, append([]string{runc}, args...), os.Environ())
	fmt.Fprintln(os.Stderr, "runc-wrapper: exec", runc+":", err)
	os.Exit(1)
}
