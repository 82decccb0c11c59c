package clientconfig

import (
	"reflect"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Credentials are what logs a client in: a SASL user with its password, and
// a TLS client certificate. They belong to one cluster. The rules, which the
// CLI and kafka.connect follow (docs/cli.md, "Which credentials go where"):
//
//   - A username and its password come from the same source: the layer
//     (profile, client.properties file, flags, kafka.connect call) that names
//     the user also says where its password is. A profile's user reads the
//     profile's password_env; a --sasl-username user (or a client.properties
//     user without a password, or a kafka.connect{sasl_username=} user) reads
//     KADMIN_SASL_PASSWORD. Overlay never pairs one layer's user with another
//     layer's password.
//   - A profile's credentials go only to the profile's brokers. When the
//     brokers come from somewhere else, the profile's credentials are left
//     out (WithoutCredentials) unless the profile was named explicitly and
//     every seed is one of its brokers (BrokersWithin).

// HasCredentials reports whether the profile logs in: a SASL user (or
// password), an OAUTHBEARER, GSSAPI or AWS_MSK_IAM login (whose credentials
// may come from the environment), or a TLS client certificate.
func (p Profile) HasCredentials() bool {
	if s := p.SASL; s != nil && (s.Username != "" || s.Password != "" || s.hasOwnLogin() ||
		slices.Contains(tokenMechanisms, strings.ToUpper(s.Mechanism))) {
		return true
	}
	return p.TLS != nil && p.TLS.hasClientCert()
}

// tokenMechanisms log in with no username and password.
var tokenMechanisms = []string{"OAUTHBEARER", "GSSAPI", "AWS_MSK_IAM"}

// hasOwnLogin reports whether the SASL block says how an OAUTHBEARER,
// GSSAPI or AWS_MSK_IAM login gets its credentials.
func (s *ProfileSASL) hasOwnLogin() bool {
	return s.OAuth != nil || s.Kerberos != nil || s.AWS != nil
}

func (t *ProfileTLS) hasClientCert() bool {
	return t.CertFile != "" || t.KeyFile != "" || t.Keystore != ""
}

// clientCert is the part of the TLS settings that is a credential: the
// client certificate with its key, from PEM files or a key store.
type clientCert struct {
	certFile, keyFile, keystore, keystoreType, keystorePasswordEnv, keyPasswordEnv string
	keystorePassword, keyPassword                                                  engine.Secret
}

func (t *ProfileTLS) clientCert() clientCert {
	if t == nil {
		return clientCert{}
	}
	return clientCert{t.CertFile, t.KeyFile, t.Keystore, t.KeystoreType, t.KeystorePasswordEnv, t.KeyPasswordEnv,
		t.KeystorePassword, t.KeyPassword}
}

func (t *ProfileTLS) setClientCert(c clientCert) {
	t.CertFile, t.KeyFile, t.Keystore, t.KeystoreType, t.KeystorePasswordEnv, t.KeyPasswordEnv = c.certFile, c.keyFile,
		c.keystore, c.keystoreType, c.keystorePasswordEnv, c.keyPasswordEnv
	t.KeystorePassword, t.KeyPassword = c.keystorePassword, c.keyPassword
}

// WithoutCredentials returns the profile with no SASL at all and, if TLS is
// on, TLS that still verifies brokers the same way but presents no client
// certificate. Brokers, client id and timeout stay.
func (p Profile) WithoutCredentials() Profile {
	p.SASL = nil
	if p.TLS != nil {
		t := *p.TLS
		t.setClientCert(clientCert{})
		p.TLS = &t
	}
	return p
}

// SameCredentials reports whether a and b log in identically (same SASL
// mechanism, user and password source or token, Kerberos and AWS settings;
// same client certificate).
func SameCredentials(a, b Profile) bool {
	sa, sb := a.SASL, b.SASL
	if sa == nil {
		sa = &ProfileSASL{}
	}
	if sb == nil {
		sb = &ProfileSASL{}
	}
	return reflect.DeepEqual(sa, sb) && a.TLS.clientCert() == b.TLS.clientCert()
}

// BrokersWithin reports whether every seed is one of brokers (entries may
// be comma-separated; host names compare case-insensitively). It is false
// when brokers is empty: credentials of a profile without brokers go to no
// broker named elsewhere.
func BrokersWithin(seeds, brokers []string) bool {
	var known []string
	for _, b := range brokers {
		for _, s := range SplitList(b) {
			known = append(known, strings.ToLower(s))
		}
	}
	if len(known) == 0 {
		return false
	}
	for _, b := range seeds {
		for _, s := range SplitList(b) {
			if !slices.Contains(known, strings.ToLower(s)) {
				return false
			}
		}
	}
	return true
}

// Overlay returns base with every field set in over replacing it. SASL
// credentials move as a unit: when over names a user or says how an
// OAUTHBEARER, GSSAPI or AWS_MSK_IAM login gets its credentials, the user,
// the password, the password variable and those settings all come from over
// (a password found for base's user, or base's password_env, is never
// paired with over's user, even one of the same name). When over names no
// user, base's user keeps its password; over may still change the
// mechanism, and a password_env in over (only a profile's own sasl block,
// over the profile's command_config) names where that user's password is
// when base has none. A client certificate with its key (or key store and
// its passwords) is a unit too, and so is a trust store with its password.
func Overlay(base, over Profile) Profile {
	out := base
	if len(over.Brokers) > 0 {
		out.Brokers = over.Brokers
	}
	if over.ClientID != "" {
		out.ClientID = over.ClientID
	}
	if over.Timeout > 0 {
		out.Timeout = over.Timeout
	}
	if over.SASL != nil {
		s := ProfileSASL{}
		if base.SASL != nil {
			s = *base.SASL
		}
		if over.SASL.Mechanism != "" {
			s.Mechanism = over.SASL.Mechanism
		}
		if o := over.SASL; o.Username != "" || o.hasOwnLogin() {
			mech := s.Mechanism
			s = *o
			s.Mechanism = mech
		} else if over.SASL.PasswordEnv != "" && s.Password == "" {
			s.PasswordEnv = over.SASL.PasswordEnv
		}
		out.SASL = &s
	}
	if over.TLS != nil {
		t := ProfileTLS{}
		if base.TLS != nil {
			t = *base.TLS
		}
		if over.TLS.hasClientCert() {
			t.setClientCert(over.TLS.clientCert())
		}
		if over.TLS.Truststore != "" {
			t.Truststore, t.TruststoreType = over.TLS.Truststore, over.TLS.TruststoreType
			t.TruststorePassword, t.TruststorePasswordEnv = over.TLS.TruststorePassword, over.TLS.TruststorePasswordEnv
		}
		for _, f := range []struct {
			dst *string
			src string
		}{
			{&t.CAFile, over.TLS.CAFile}, {&t.ServerName, over.TLS.ServerName},
		} {
			if f.src != "" {
				*f.dst = f.src
			}
		}
		t.InsecureSkipVerify = t.InsecureSkipVerify || over.TLS.InsecureSkipVerify
		out.TLS = &t
	}
	if over.CommandConfig != "" {
		out.CommandConfig = over.CommandConfig
	}
	out.SchemaRegistry = overlayRegistry(base.SchemaRegistry, over.SchemaRegistry)
	return out
}
