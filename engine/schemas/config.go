package schemas

import (
	"net/url"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Config says how to reach one Schema Registry. Its credentials belong to
// its URLs only (DESIGN.md, invariant 4): nothing sends them elsewhere,
// and a redirect to another origin is refused (registry.go).
type Config struct {
	// URLs are the registry's base URLs, http:// or https://, tried in
	// order (Confluent's schema.registry.url is a comma-separated list of
	// one registry's instances). They hold no credentials: a URL with a
	// user or password in it is refused (Validate), so that a URL can be
	// printed, logged and audited.
	URLs []string
	// Username and Password: HTTP basic auth (Confluent's
	// basic.auth.user.info). Token: a bearer token. Not both.
	Username string
	Password vocab.Secret
	Token    vocab.Secret
	// TLS verifies https registries and presents a client certificate;
	// nil: the system roots.
	TLS *login.TLSConfig
	// Timeout bounds each request; DefaultTimeout when zero.
	Timeout time.Duration
}

// DefaultTimeout bounds a registry request unless Config.Timeout says
// otherwise.
const DefaultTimeout = 30 * time.Second

// SplitURLs splits a comma-separated list of URLs, as
// schema.registry.url holds them.
func SplitURLs(s string) []string {
	var out []string
	for _, u := range strings.Split(s, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// Validate checks the URLs and that the credentials go together. Its
// errors quote a URL only when it holds no credentials.
func (c Config) Validate() error {
	if len(c.URLs) == 0 {
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry: no URL")
	}
	for _, raw := range c.URLs {
		u, err := url.Parse(raw)
		if err != nil {
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry URL is not a URL (%v)", redactURLError(err))
		}
		switch {
		case u.User != nil:
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry URL %s holds credentials: give the user with --schema-registry-user (or basic.auth.user.info) and the password in KADMIN_SCHEMA_REGISTRY_PASSWORD, never in the URL",
				(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String())
		case u.Scheme != "http" && u.Scheme != "https":
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry URL %q must start with http:// or https://", raw)
		case u.Host == "":
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry URL %q has no host", raw)
		case u.RawQuery != "" || u.Fragment != "":
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry URL %q must have no query or fragment", raw)
		}
	}
	switch {
	case c.Token != "" && (c.Username != "" || c.Password != ""):
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry: give basic auth (a user and password) or a bearer token, not both")
	case c.Password != "" && c.Username == "":
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry: a password without a user")
	case c.Username != "" && c.Password == "":
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry user %q has no password: set KADMIN_SCHEMA_REGISTRY_PASSWORD (or the variable the profile names)", c.Username)
	}
	return nil
}

// redactURLError drops the URL url.Parse quotes: it may hold a password.
func redactURLError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return "bad URL"
}

// String is the registry's URLs, comma-separated: what audit lines, plans
// and errors name it by. Never a credential.
func (c Config) String() string { return strings.Join(c.URLs, ",") }

// HasCredentials reports whether c logs in: basic auth, a token, or a TLS
// client certificate.
func (c Config) HasCredentials() bool {
	return c.Username != "" || c.Password != "" || c.Token != "" ||
		(c.TLS != nil && (c.TLS.CertFile != "" || c.TLS.KeyFile != "" || c.TLS.KeyStore != nil))
}

// SameRegistry reports whether a and b name the same registry: the same
// URLs, in any order.
func SameRegistry(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, u := range a {
		seen[strings.TrimRight(u, "/")]++
	}
	for _, u := range b {
		k := strings.TrimRight(u, "/")
		if seen[k] == 0 {
			return false
		}
		seen[k]--
	}
	return true
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}
