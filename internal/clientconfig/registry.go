package clientconfig

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// The Schema Registry beside a cluster: its URL, and credentials that go
// to that URL only. A layer (profile, client.properties file, flags,
// kafka.connect call) that names a registry names its credentials with it;
// credentials named without a URL are refused (they would go to a registry
// another layer names), and a higher layer's URL takes a lower layer's
// credentials only when it is the same registry.

// The environment variables a registry's secrets and URL come from unless
// a profile names others.
const (
	RegistryURLEnv      = "KADMIN_SCHEMA_REGISTRY_URL"
	RegistryPasswordEnv = "KADMIN_SCHEMA_REGISTRY_PASSWORD"
	RegistryTokenEnv    = "KADMIN_SCHEMA_REGISTRY_TOKEN"
)

// ProfileRegistry is a profile's Schema Registry. Its secrets are never in
// the config file: it names the variables that hold them.
type ProfileRegistry struct {
	URL         string      `json:"url"` // comma-separated for several instances of one registry
	Username    string      `json:"username,omitempty"`
	PasswordEnv string      `json:"password_env,omitempty"` // default KADMIN_SCHEMA_REGISTRY_PASSWORD
	TokenEnv    string      `json:"token_env,omitempty"`    // a bearer token; default KADMIN_SCHEMA_REGISTRY_TOKEN
	TLS         *ProfileTLS `json:"tls,omitempty"`

	// From a client.properties file only.
	Password engine.Secret `json:"-"`
	Token    engine.Secret `json:"-"`
}

// hasCredentials reports whether r names how it logs in.
func (r *ProfileRegistry) hasCredentials() bool {
	return r.Username != "" || r.Password != "" || r.Token != "" || r.PasswordEnv != "" || r.TokenEnv != "" ||
		(r.TLS != nil && r.TLS.hasClientCert())
}

// overlayRegistry is Overlay's rule for the registry: over's registry
// replaces base's whole, but for the same registry named without
// credentials, which keeps base's.
func overlayRegistry(base, over *ProfileRegistry) *ProfileRegistry {
	if over == nil {
		return base
	}
	out := *over
	if base != nil && !over.hasCredentials() && schemas.SameRegistry(schemas.SplitURLs(base.URL), schemas.SplitURLs(over.URL)) {
		out.Username, out.PasswordEnv, out.TokenEnv, out.Password, out.Token = base.Username, base.PasswordEnv, base.TokenEnv, base.Password, base.Token
		if base.TLS != nil && base.TLS.hasClientCert() {
			t := ProfileTLS{}
			if out.TLS != nil {
				t = *out.TLS
			}
			t.setClientCert(base.TLS.clientCert())
			out.TLS = &t
		}
		if out.TLS == nil {
			out.TLS = base.TLS
		}
	}
	return &out
}

// config is the engine's registry configuration, secrets read through env.
// A user without a password is left for the registry client to refuse
// when it is first used, so that a run that never reads a schema is not
// failed by it.
func (r *ProfileRegistry) config(env func(string) string) (*schemas.Config, error) {
	if strings.TrimSpace(r.URL) == "" {
		return nil, invalid("schema registry settings given without a url")
	}
	out := &schemas.Config{URLs: schemas.SplitURLs(r.URL), Username: r.Username}
	switch {
	case r.Username != "":
		out.Password = r.Password
		if out.Password == "" {
			out.Password = engine.Secret(env(cmpOr(r.PasswordEnv, RegistryPasswordEnv)))
		}
	default:
		out.Token = r.Token
		if out.Token == "" {
			out.Token = engine.Secret(strings.TrimSpace(env(cmpOr(r.TokenEnv, RegistryTokenEnv))))
		}
	}
	if r.TLS != nil {
		tc, err := r.TLS.config(env)
		if err != nil {
			return nil, fmt.Errorf("schema registry: %w", err)
		}
		out.TLS = tc
	}
	if err := out.Validate(); err != nil && !strings.Contains(err.Error(), "has no password") {
		return nil, err
	}
	return out, nil
}

// secretEnvNames are the variables r reads secrets from.
func (r *ProfileRegistry) secretEnvNames(add func(name, dflt string)) {
	if r.Username != "" {
		add(r.PasswordEnv, RegistryPasswordEnv)
	} else {
		add(r.TokenEnv, RegistryTokenEnv)
	}
	if t := r.TLS; t != nil {
		t.secretEnvNames(add)
	}
}

// registryFromProperties reads the Java serializers' registry settings:
// schema.registry.url; basic.auth.credentials.source (USER_INFO, the
// default, or URL) with basic.auth.user.info; bearer.auth.credentials.source
// STATIC_TOKEN with bearer.auth.token; schema.registry.ssl.* as ssl.* is
// read for the brokers. nil when the file names no registry.
func registryFromProperties(props map[string]string) (*ProfileRegistry, error) {
	raw := strings.TrimSpace(props["schema.registry.url"])
	userInfo := firstOf(props, "basic.auth.user.info", "schema.registry.basic.auth.user.info")
	token := props["bearer.auth.token"]
	if raw == "" {
		if userInfo != "" || token != "" {
			return nil, errors.New("registry credentials (basic.auth.user.info or bearer.auth.token) without schema.registry.url: they would go to a registry named elsewhere")
		}
		return nil, nil
	}
	r := &ProfileRegistry{}
	src := strings.ToUpper(strings.TrimSpace(firstOf(props, "basic.auth.credentials.source", "schema.registry.basic.auth.credentials.source")))
	var urls []string
	for _, u := range schemas.SplitURLs(raw) {
		p, err := url.Parse(u)
		if err != nil {
			return nil, errors.New("schema.registry.url is not a URL")
		}
		if p.User != nil {
			if src != "URL" {
				return nil, errors.New("schema.registry.url holds credentials: put them in basic.auth.user.info (or set basic.auth.credentials.source=URL)")
			}
			pw, _ := p.User.Password()
			r.Username, r.Password = p.User.Username(), engine.Secret(pw)
			p.User = nil
		}
		urls = append(urls, p.String())
	}
	r.URL = strings.Join(urls, ",")
	switch src {
	case "", "USER_INFO":
		if userInfo != "" {
			user, pass, ok := strings.Cut(userInfo, ":")
			if !ok || user == "" {
				return nil, errors.New("basic.auth.user.info must be USER:PASSWORD")
			}
			r.Username, r.Password = user, engine.Secret(pass)
		}
	case "URL":
		if r.Username == "" {
			return nil, errors.New("basic.auth.credentials.source=URL, but schema.registry.url holds no user")
		}
	case "SASL_INHERIT":
		return nil, errors.New("basic.auth.credentials.source=SASL_INHERIT is not supported: the cluster's SASL credentials go to its brokers only; give the registry's own in basic.auth.user.info")
	default:
		return nil, fmt.Errorf("unknown basic.auth.credentials.source %q (want USER_INFO or URL)", src)
	}
	if token != "" {
		if s := strings.ToUpper(strings.TrimSpace(props["bearer.auth.credentials.source"])); s != "" && s != "STATIC_TOKEN" {
			return nil, fmt.Errorf("bearer.auth.credentials.source=%s is not supported (want STATIC_TOKEN)", s)
		}
		if r.Username != "" {
			return nil, errors.New("give the registry basic auth or a bearer token, not both")
		}
		r.Token = engine.Secret(token)
	}
	sub := map[string]string{}
	for k, v := range props {
		if rest, ok := strings.CutPrefix(k, "schema.registry.ssl."); ok {
			sub["ssl."+rest] = v
		}
	}
	if len(sub) > 0 {
		t, err := tlsFromProperties(sub)
		if err != nil {
			return nil, fmt.Errorf("schema.registry.%v", err)
		}
		r.TLS = t
	}
	return r, nil
}

func firstOf(props map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := props[k]; v != "" {
			return v
		}
	}
	return ""
}

// RegistryConfig is the engine's configuration of p's registry (nil when
// it names none), its secrets read through env.
func (p Profile) RegistryConfig(env func(string) string) (*schemas.Config, error) {
	if p.SchemaRegistry == nil {
		return nil, nil
	}
	return p.SchemaRegistry.config(env)
}
