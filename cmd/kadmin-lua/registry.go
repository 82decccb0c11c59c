package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
)

// registryFlags name the Schema Registry on the command line. Its secrets
// are never flags: the password is $KADMIN_SCHEMA_REGISTRY_PASSWORD, a
// bearer token $KADMIN_SCHEMA_REGISTRY_TOKEN.
type registryFlags struct {
	url, user, ca, cert, key string
}

func (r *registryFlags) register(pf *pflag.FlagSet) {
	pf.StringVar(&r.url, "schema-registry", "", "Schema Registry URL, http(s)://host:port, comma-separated for several instances (env KADMIN_SCHEMA_REGISTRY_URL)")
	pf.StringVar(&r.user, "schema-registry-user", "", "Schema Registry basic-auth user (password from $KADMIN_SCHEMA_REGISTRY_PASSWORD; a bearer token from $KADMIN_SCHEMA_REGISTRY_TOKEN instead)")
	pf.StringVar(&r.ca, "schema-registry-ca", "", "PEM file of CA certificates to verify the Schema Registry with (default: system roots)")
	pf.StringVar(&r.cert, "schema-registry-cert", "", "PEM client certificate file for the Schema Registry")
	pf.StringVar(&r.key, "schema-registry-key", "", "PEM client key file for the Schema Registry")
}

// layer is the registry the command line names: --schema-registry, else
// KADMIN_SCHEMA_REGISTRY_URL unless a layer above the environment (the
// command config, an explicit --profile) names one; nil when none. The
// flags' credentials go with it and only with it.
func (r *registryFlags) layer(env func(string) string, namedAbove bool) (*clientconfig.ProfileRegistry, error) {
	url := r.url
	if url == "" && !namedAbove {
		url = env(clientconfig.RegistryURLEnv)
	}
	if url == "" {
		if r.user != "" || r.ca != "" || r.cert != "" || r.key != "" {
			return nil, usageErr(fmt.Errorf("--schema-registry-user, --schema-registry-ca, --schema-registry-cert and --schema-registry-key need --schema-registry URL (or KADMIN_SCHEMA_REGISTRY_URL)"))
		}
		return nil, nil
	}
	out := &clientconfig.ProfileRegistry{URL: url, Username: r.user}
	if r.ca != "" || r.cert != "" || r.key != "" {
		out.TLS = &clientconfig.ProfileTLS{CAFile: r.ca, CertFile: r.cert, KeyFile: r.key}
	}
	return out, nil
}
