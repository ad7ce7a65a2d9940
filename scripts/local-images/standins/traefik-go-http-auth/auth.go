// Package auth stands in for Traefik's fork of github.com/abbot/go-http-auth (its basic and digest
// authentication middlewares), whose module version the Go module proxy does not serve. It has the
// API Traefik calls and refuses every credential: in an image built with it, a route behind a
// basicAuth or digestAuth middleware answers 401 to everyone. Nothing of the Gateway API path uses
// either middleware.
package auth

import (
	"fmt"
	"net/http"
	"strings"
)

// SecretProvider returns the stored secret of a user in a realm ("" when there is none).
type SecretProvider func(user, realm string) string

// CheckSecret reports whether password matches secret: never, in this stand-in.
func CheckSecret(password, secret string) bool { return false }

// BasicAuth asks for basic authentication in Realm.
type BasicAuth struct {
	Realm   string
	Secrets SecretProvider
}

// RequireAuth answers 401 with a basic authentication challenge.
func (a *BasicAuth) RequireAuth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("WWW-Authenticate", fmt.Sprintf("Basic realm=%q", a.Realm))
	http.Error(w, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
}

// DigestAuth asks for digest authentication in Realm.
type DigestAuth struct {
	Realm   string
	Secrets SecretProvider
}

// NewDigestAuthenticator returns a DigestAuth for realm.
func NewDigestAuthenticator(realm string, secrets SecretProvider) *DigestAuth {
	return &DigestAuth{Realm: realm, Secrets: secrets}
}

// CheckAuth returns the authenticated user: none, in this stand-in.
func (a *DigestAuth) CheckAuth(r *http.Request) (string, *string) { return "", nil }

// RequireAuth answers 401 with a digest authentication challenge.
func (a *DigestAuth) RequireAuth(w http.ResponseWriter, r *http.Request) { a.challenge(w, false) }

// RequireAuthStale answers 401 with a digest challenge marked stale.
func (a *DigestAuth) RequireAuthStale(w http.ResponseWriter, r *http.Request) { a.challenge(w, true) }

func (a *DigestAuth) challenge(w http.ResponseWriter, stale bool) {
	v := fmt.Sprintf("Digest realm=%q, algorithm=MD5, qop=\"auth\"", a.Realm)
	if stale {
		v += ", stale=true"
	}
	w.Header().Set("WWW-Authenticate", v)
	http.Error(w, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
}

// DigestAuthParams parses the key="value" pairs of a Digest Authorization header.
func DigestAuthParams(authorization string) map[string]string {
	s := strings.SplitN(authorization, " ", 2)
	if len(s) != 2 || s[0] != "Digest" {
		return nil
	}
	out := map[string]string{}
	for _, kv := range strings.Split(s[1], ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok {
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out
}
