package clientconfig

import (
	"slices"
	"strings"
)

// SecretEnvNames are the environment variables p reads credentials from:
// its SASL password, OAUTHBEARER token or client secret, the variables its
// token command is given, its key store passwords and its schema
// registry's password or token, each the one named
// or the default. In a fleet, one profile's script cannot read another's
// (cmd/kadmin-lua's fleet rule). Sorted, each once.
func (p *Profile) SecretEnvNames() []string {
	var names []string
	add := func(name, dflt string) {
		if name == "" {
			name = dflt
		}
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if s := p.SASL; s != nil {
		switch strings.ToUpper(s.Mechanism) {
		case "OAUTHBEARER":
			o := s.OAuth
			if o == nil {
				o = &ProfileOAuth{}
			}
			switch {
			case o.TokenEndpoint != "":
				add(o.ClientSecretEnv, OAuthClientSecretEnv)
			case o.TokenFile == "" && o.TokenCommand == "" && len(o.UnsecuredClaims) == 0:
				add(o.TokenEnv, OAuthTokenEnv)
			}
			for _, n := range o.TokenCommandEnv {
				add(n, "")
			}
		case "GSSAPI", "AWS_MSK_IAM":
		default:
			add(s.PasswordEnv, PasswordEnv)
		}
	}
	if t := p.TLS; t != nil {
		t.secretEnvNames(add)
	}
	if r := p.SchemaRegistry; r != nil {
		r.secretEnvNames(add)
	}
	slices.Sort(names)
	return names
}

// secretEnvNames are the variables t reads its store and key passwords from.
func (t *ProfileTLS) secretEnvNames(add func(name, dflt string)) {
	if t.Truststore != "" {
		add(t.TruststorePasswordEnv, TruststorePasswordEnv)
	}
	if t.Keystore != "" {
		add(t.KeystorePasswordEnv, KeystorePasswordEnv)
		add(t.KeyPasswordEnv, KeyPasswordEnv)
	}
	if t.KeyFile != "" {
		add(t.KeyPasswordEnv, KeyPasswordEnv)
	}
}
