// Package ext stands in for github.com/traefik/traefik/dynamic/ext, a module nested in Traefik's
// repository: Traefik's module zip leaves nested modules out and the Go module proxy does not serve
// it. Traefik's dynamic configuration embeds its two types in HTTPConfiguration and Router; they
// are empty here, so those structs carry only Traefik's own fields.
package ext

// HTTP is embedded in the dynamic HTTP configuration.
type HTTP struct{}

// Router is embedded in a router's configuration.
type Router struct{}
