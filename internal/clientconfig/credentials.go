package clientconfig

import (
	"fmt"
	"slices"
	"strings"
	"time"

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
// password), or a TLS client certificate.
func (p Profile) HasCredentials() bool {
	if s := p.SASL; s != nil && (s.Username != "" || s.Password != "") {
		return true
	}
	return p.TLS != nil && (p.TLS.CertFile != "" || p.TLS.KeyFile != "")
}

// WithoutCredentials returns the profile with no SASL at all and, if TLS is
// on, TLS that still verifies brokers the same way but presents no client
// certificate. Brokers, client id and timeout stay.
func (p Profile) WithoutCredentials() Profile {
	p.SASL = nil
	if p.TLS != nil {
		t := *p.TLS
		t.CertFile, t.KeyFile = "", ""
		p.TLS = &t
	}
	return p
}

// SameCredentials reports whether a and b log in identically (same SASL
// user, mechanism and password source; same client certificate).
func SameCredentials(a, b Profile) bool {
	sa, sb := a.SASL, b.SASL
	if sa == nil {
		sa = &ProfileSASL{}
	}
	if sb == nil {
		sb = &ProfileSASL{}
	}
	if *sa != *sb {
		return false
	}
	var ca, cb [2]string
	if a.TLS != nil {
		ca = [2]string{a.TLS.CertFile, a.TLS.KeyFile}
	}
	if b.TLS != nil {
		cb = [2]string{b.TLS.CertFile, b.TLS.KeyFile}
	}
	return ca == cb
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
// credentials move as a unit: when over names a user, the user, the
// password and the password variable all come from over (a password found
// for base's user, or base's password_env, is never paired with over's
// user, even one of the same name). When over names no user, base's user
// keeps its password; over may still change the mechanism, and a
// password_env in over (only a profile's own sasl block, over the profile's
// command_config) names where that user's password is when base has none.
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
		if over.SASL.Username != "" {
			s.Username, s.Password, s.PasswordEnv = over.SASL.Username, over.SASL.Password, over.SASL.PasswordEnv
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
		if over.TLS.CertFile != "" || over.TLS.KeyFile != "" {
			// A client certificate and its key are one credential too.
			t.CertFile, t.KeyFile = over.TLS.CertFile, over.TLS.KeyFile
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
	return out
}

// SASLMechanisms are the mechanisms kadmin-lua can log in with.
var SASLMechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}

// Config turns the profile into a client config. The SASL password is the
// one from a client.properties file, else the variable named by the
// profile's password_env (KADMIN_SASL_PASSWORD when none) read through env;
// when neither has one, prompt (if not nil) is asked lazily on the first
// login.
func (p Profile) Config(env func(string) string, prompt func(user string) (string, error)) (engine.Config, error) {
	cfg := engine.Config{ClientID: p.ClientID, Timeout: time.Duration(p.Timeout)}
	for _, b := range p.Brokers {
		cfg.Brokers = append(cfg.Brokers, SplitList(b)...)
	}
	if s := p.SASL; s != nil && (s.Mechanism != "" || s.Username != "") {
		mech := strings.ToUpper(s.Mechanism)
		if mech == "" {
			return engine.Config{}, engine.Errorf(engine.CodeInvalidArgument, "", "SASL user %q given without a mechanism (want %s)", s.Username, strings.Join(SASLMechanisms, ", "))
		}
		if !slices.Contains(SASLMechanisms, mech) {
			return engine.Config{}, engine.Errorf(engine.CodeInvalidArgument, "", "unsupported SASL mechanism %q (want %s)", s.Mechanism, strings.Join(SASLMechanisms, ", "))
		}
		if s.Username == "" {
			return engine.Config{}, engine.Errorf(engine.CodeInvalidArgument, "", "SASL %s needs a username (--sasl-username)", mech)
		}
		sc := &engine.SASLConfig{Mechanism: mech, Username: s.Username, Password: s.Password}
		if sc.Password == "" {
			name := s.PasswordEnv
			if name == "" {
				name = PasswordEnv
			}
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
		cfg.SASL = sc
	}
	if t := p.TLS; t != nil {
		if (t.CertFile == "") != (t.KeyFile == "") {
			return engine.Config{}, engine.Errorf(engine.CodeInvalidArgument, "", "a TLS client certificate needs both a cert file and a key file")
		}
		cfg.TLS = &engine.TLSConfig{CAFile: t.CAFile, CertFile: t.CertFile, KeyFile: t.KeyFile,
			ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify}
	}
	return cfg, nil
}
