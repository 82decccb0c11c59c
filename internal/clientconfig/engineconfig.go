package clientconfig

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

// Config turns the profile into a client config. Secrets come from a
// client.properties file, else from the variable the profile names for
// them, else from the default variable (KADMIN_SASL_PASSWORD,
// KADMIN_SASL_OAUTH_TOKEN, KADMIN_SASL_OAUTH_CLIENT_SECRET,
// KADMIN_TLS_*_PASSWORD) read through env. A SASL password found nowhere is
// asked of prompt (if not nil) lazily, on the first login.
func (p Profile) Config(env func(string) string, prompt func(user string) (string, error)) (engine.Config, error) {
	cfg := engine.Config{ClientID: p.ClientID, Timeout: time.Duration(p.Timeout)}
	for _, b := range p.Brokers {
		cfg.Brokers = append(cfg.Brokers, SplitList(b)...)
	}
	if s := p.SASL; s != nil && (s.Mechanism != "" || s.Username != "" || s.hasOwnLogin()) {
		sc, err := s.config(env, prompt)
		if err != nil {
			return engine.Config{}, err
		}
		cfg.SASL = sc
	}
	if t := p.TLS; t != nil {
		tc, err := t.config(env)
		if err != nil {
			return engine.Config{}, err
		}
		cfg.TLS = tc
	}
	if r := p.SchemaRegistry; r != nil {
		rc, err := r.config(env)
		if err != nil {
			return engine.Config{}, err
		}
		cfg.Registry = rc
	}
	return cfg, nil
}

func invalid(format string, args ...any) error {
	return engine.Errorf(engine.CodeInvalidArgument, "", format, args...)
}

func (s *ProfileSASL) config(env func(string) string, prompt func(user string) (string, error)) (*login.SASLConfig, error) {
	mech := strings.ToUpper(s.Mechanism)
	want := strings.Join(login.SASLMechanisms, ", ")
	switch {
	case mech == "" && s.Username != "":
		return nil, invalid("SASL user %q given without a mechanism (want %s)", s.Username, want)
	case mech == "":
		return nil, invalid("SASL settings given without a mechanism (want %s)", want)
	case !slices.Contains(login.SASLMechanisms, mech):
		return nil, invalid("unsupported SASL mechanism %q (want %s)", s.Mechanism, want)
	}
	sc := &login.SASLConfig{Mechanism: mech}
	if (mech == "OAUTHBEARER" || mech == "AWS_MSK_IAM") && s.Username != "" {
		return nil, invalid("SASL %s takes no username (--sasl-username and sasl_username are for PLAIN and SCRAM)", mech)
	}
	switch mech {
	case "OAUTHBEARER":
		o, err := s.OAuth.config(env)
		if err != nil {
			return nil, err
		}
		sc.OAuth = o
		return sc, nil
	case "GSSAPI":
		sc.Kerberos = s.Kerberos.config(env)
		if sc.Kerberos.Principal == "" {
			sc.Kerberos.Principal = s.Username // --sasl-username names the principal
		}
		return sc, nil
	case "AWS_MSK_IAM":
		if a := s.AWS; a != nil {
			sc.AWS = &login.AWSConfig{Profile: a.Profile, RoleARN: a.RoleARN, RoleSessionName: a.RoleSessionName, STSRegion: a.STSRegion}
		}
		return sc, nil
	}
	if s.Username == "" {
		return nil, invalid("SASL %s needs a username (--sasl-username)", mech)
	}
	sc.Username, sc.Password = s.Username, s.Password
	if sc.Password == "" {
		name := cmpOr(s.PasswordEnv, PasswordEnv)
		sc.Password = engine.Secret(env(name))
		if sc.Password == "" {
			if prompt != nil {
				user := s.Username
				sc.PasswordFunc = func() (string, error) { return prompt(user) }
			} else {
				sc.PasswordFunc = func() (string, error) {
					return "", fmt.Errorf("no SASL password: set %s", name)
				}
			}
		}
	}
	return sc, nil
}

func (o *ProfileOAuth) config(env func(string) string) (*login.OAuthConfig, error) {
	if o == nil {
		o = &ProfileOAuth{}
	}
	out := &login.OAuthConfig{TokenFile: o.TokenFile, TokenCommand: o.TokenCommand, TokenCommandEnv: o.TokenCommandEnv, TokenEndpoint: o.TokenEndpoint,
		ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scope: o.Scope, Extensions: o.Extensions,
		UnsecuredClaims: o.UnsecuredClaims, UnsecuredLifetime: o.UnsecuredLifetime, RefreshFactor: o.RefreshFactor,
		// The token command's variables come from where the other secrets
		// do: the CLI has taken them out of the process's environment.
		LookupEnv: func(name string) (string, bool) { v := env(name); return v, v != "" }}
	if out.TokenFile == "" && out.TokenCommand == "" && out.TokenEndpoint == "" && len(out.UnsecuredClaims) == 0 {
		name := cmpOr(o.TokenEnv, OAuthTokenEnv)
		out.Token = o.Token
		if out.Token == "" {
			out.Token = engine.Secret(strings.TrimSpace(env(name)))
		}
		if out.Token == "" {
			return nil, invalid("SASL OAUTHBEARER has no token: set %s, or give a token file, a token command or a token endpoint (a profile's sasl.oauth, or a --command-config file)", name)
		}
	}
	if out.TokenEndpoint != "" && out.ClientSecret == "" {
		name := cmpOr(o.ClientSecretEnv, OAuthClientSecretEnv)
		out.ClientSecret = engine.Secret(env(name))
		if out.ClientSecret == "" {
			return nil, invalid("SASL OAUTHBEARER client %q has no client secret: set %s", o.ClientID, name)
		}
	}
	return out, nil
}

// config fills in what Kerberos tools default to: the ticket cache of
// KRB5CCNAME (else /tmp/krb5cc_UID) and the krb5.conf of KRB5_CONFIG
// (else /etc/krb5.conf).
func (k *ProfileKerberos) config(env func(string) string) *login.KerberosConfig {
	if k == nil {
		k = &ProfileKerberos{}
	}
	out := &login.KerberosConfig{ServiceName: k.ServiceName, Principal: k.Principal, Keytab: k.Keytab,
		CCache: k.CCache, Krb5Conf: k.Krb5Conf}
	if out.Keytab == "" && out.CCache == "" {
		out.CCache = env("KRB5CCNAME")
		if out.CCache == "" {
			out.CCache = fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
		}
	}
	if out.Krb5Conf == "" {
		out.Krb5Conf = cmpOr(env("KRB5_CONFIG"), "/etc/krb5.conf")
	}
	return out
}

func (t *ProfileTLS) config(env func(string) string) (*login.TLSConfig, error) {
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, invalid("a TLS client certificate needs both a cert file and a key file")
	}
	if t.Keystore != "" && t.CertFile != "" {
		return nil, invalid("a TLS client certificate comes from a key store or from cert and key files, not both")
	}
	out := &login.TLSConfig{CAFile: t.CAFile, CertFile: t.CertFile, KeyFile: t.KeyFile,
		ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify}
	secret := func(s engine.Secret, name, def string) engine.Secret {
		if s != "" {
			return s
		}
		return engine.Secret(env(cmpOr(name, def)))
	}
	if t.Truststore != "" {
		out.TrustStore = &login.KeyStore{File: t.Truststore, Type: t.TruststoreType,
			Password: secret(t.TruststorePassword, t.TruststorePasswordEnv, TruststorePasswordEnv)}
	}
	if t.Keystore != "" {
		out.KeyStore = &login.KeyStore{File: t.Keystore, Type: t.KeystoreType,
			Password:    secret(t.KeystorePassword, t.KeystorePasswordEnv, KeystorePasswordEnv),
			KeyPassword: secret(t.KeyPassword, t.KeyPasswordEnv, KeyPasswordEnv)}
	}
	return out, nil
}
