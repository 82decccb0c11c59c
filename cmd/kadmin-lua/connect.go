package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
)

// defaultConfig is the connection behind the globals. Settings come from,
// highest first: flags (-b, --sasl-*, --tls-*, --schema-registry*,
// --timeout; then the --command-config file; then the --profile named on
// the command line), the environment (KADMIN_BROKERS,
// KADMIN_SCHEMA_REGISTRY_URL), the profile named by KADMIN_PROFILE, the
// config file's default_profile. Credentials follow their own rules
// (bindCredentials, internal/clientconfig/credentials.go).
func (a *app) defaultConfig(cmd *cobra.Command) (engine.Config, error) {
	f := &a.flags
	env := a.st.Env
	src := profileSource{name: f.profile, how: "--profile", explicit: f.profile != ""}
	if src.name == "" {
		src.name, src.how = env("KADMIN_PROFILE"), "KADMIN_PROFILE"
	}
	cf, err := a.configFile(src.name != "")
	if err != nil {
		return engine.Config{}, err
	}
	var p clientconfig.Profile
	if cf != nil {
		if src.name == "" {
			src.name, src.how = cf.DefaultProfile, "default_profile"
		}
		if p, err = cf.Profile(src.name); err != nil {
			return engine.Config{}, err
		}
	}
	var cc clientconfig.Profile
	if f.commandConfig != "" {
		if cc, err = clientconfig.LoadClientProperties(f.commandConfig); err != nil {
			return engine.Config{}, err
		}
	}
	fp := a.flagProfile()
	if fp.SchemaRegistry, err = a.flags.registry.layer(env, cc.SchemaRegistry != nil || (src.explicit && p.SchemaRegistry != nil)); err != nil {
		return engine.Config{}, err
	}
	// Brokers named outside the profile, highest first.
	var from string
	var brokers []string
	envBrokers := clientconfig.SplitList(env("KADMIN_BROKERS"))
	switch {
	case len(fp.Brokers) > 0:
		from, brokers = "-b", fp.Brokers
	case len(cc.Brokers) > 0:
		from, brokers = "--command-config "+f.commandConfig, cc.Brokers
	case len(envBrokers) > 0 && !(src.explicit && len(p.Brokers) > 0):
		from, brokers = "KADMIN_BROKERS", envBrokers
	}
	if from != "" && src.name != "" {
		if p, err = a.bindCredentials(p, src, from, brokers, cc, fp); err != nil {
			return engine.Config{}, err
		}
	}
	if from == "KADMIN_BROKERS" {
		p.Brokers = envBrokers
	}
	p = clientconfig.Overlay(clientconfig.Overlay(p, cc), fp)
	if cmd.Flags().Changed("timeout") || p.Timeout == 0 {
		p.Timeout = clientconfig.Duration(f.timeout)
	}
	cfg, err := p.Config(env, a.prompt())
	if err != nil {
		return cfg, err
	}
	if cf != nil && src.name != "" && cf.Profiles[src.name] != nil {
		cfg.Profile = src.name // for the audit log
	}
	return a.engineConfig(cfg)
}

// profileSource says which profile applies and how it was chosen: named
// with --profile (explicit), by KADMIN_PROFILE or by default_profile.
type profileSource struct {
	name, how string
	explicit  bool
}

func (s profileSource) String() string {
	switch s.how {
	case "default_profile":
		return fmt.Sprintf("default profile %q", s.name)
	case "KADMIN_PROFILE":
		return fmt.Sprintf("profile %q (from KADMIN_PROFILE)", s.name)
	}
	return fmt.Sprintf("profile %q", s.name)
}

// bindCredentials keeps a profile's credentials away from brokers that are
// not the profile's. It runs when the brokers come from elsewhere (from):
// -b, the --command-config file or KADMIN_BROKERS. When none of the
// profile's credentials would be used anyway (it has none, or the command
// config and flags name their own), the profile is returned as is.
// Otherwise: a profile named with --profile keeps them only when every seed
// is one of its brokers, and is a usage error when not; a profile that
// applied by default (default_profile, KADMIN_PROFILE) loses them, with a
// notice on stderr.
func (a *app) bindCredentials(p clientconfig.Profile, src profileSource, from string, brokers []string,
	cc, fp clientconfig.Profile) (clientconfig.Profile, error) {
	bare := p.WithoutCredentials()
	if !p.HasCredentials() || clientconfig.SameCredentials(clientconfig.Overlay(clientconfig.Overlay(p, cc), fp),
		clientconfig.Overlay(clientconfig.Overlay(bare, cc), fp)) {
		return p, nil
	}
	if !src.explicit {
		fmt.Fprintf(a.st.Stderr, "kadmin-lua: note: the brokers come from %s, so the credentials of %s were not used (they go only to its own brokers)\n", from, src)
		return bare, nil
	}
	if clientconfig.BrokersWithin(brokers, p.Brokers) {
		return p, nil
	}
	if len(p.Brokers) == 0 {
		return p, usageErr(fmt.Errorf("%s names no brokers, so its credentials go to none named by %s: add its brokers to the profile", src, from))
	}
	return p, usageErr(fmt.Errorf("%s has credentials for its own brokers (%s); %s names %s, not one of them: leave out %s, add the broker to the profile, or log in to it with --sasl-username",
		src, strings.Join(p.Brokers, ","), from, strings.Join(brokers, ","), from))
}

// flagProfile is the connection settings given as flags.
func (a *app) flagProfile() clientconfig.Profile {
	f := &a.flags
	var p clientconfig.Profile
	for _, b := range f.brokers {
		p.Brokers = append(p.Brokers, clientconfig.SplitList(b)...)
	}
	if f.saslMechanism != "" || f.saslUsername != "" {
		p.SASL = &clientconfig.ProfileSASL{Mechanism: f.saslMechanism, Username: f.saslUsername}
	}
	if f.tls || f.tlsCA != "" || f.tlsCert != "" || f.tlsKey != "" || f.tlsServer != "" || f.tlsInsecure {
		p.TLS = &clientconfig.ProfileTLS{CAFile: f.tlsCA, CertFile: f.tlsCert, KeyFile: f.tlsKey,
			ServerName: f.tlsServer, InsecureSkipVerify: f.tlsInsecure}
	}
	return p
}

// configFile loads --config, or the default config file when it exists.
// required: a profile was asked for, so a missing file is an error.
func (a *app) configFile(required bool) (*clientconfig.ConfigFile, error) {
	path := a.flags.configPath
	explicit := path != ""
	if !explicit {
		path = clientconfig.DefaultConfigPath(a.st.Env)
	}
	if path == "" {
		if required {
			return nil, exitf(ExitUsage, "profiles need a config file: pass --config FILE (HOME is not set)")
		}
		return nil, nil
	}
	cf, err := clientconfig.LoadConfigFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit && !required {
		return nil, nil
	}
	a.sealProfiles(cf)
	return cf, err
}

// resolve serves kafka.connect{profile=NAME}: that profile from the config
// file with its password variable, on the --timeout unless it sets its own.
func (a *app) resolve(cmd *cobra.Command) func(string) (engine.Config, error) {
	return func(name string) (engine.Config, error) {
		cf, err := a.configFile(true)
		if err != nil {
			return engine.Config{}, err
		}
		p, err := cf.Profile(name)
		if err != nil {
			return engine.Config{}, err
		}
		if p.Timeout == 0 || cmd.Flags().Changed("timeout") {
			p.Timeout = clientconfig.Duration(a.flags.timeout)
		}
		cfg, err := p.Config(a.st.Env, a.prompt())
		if err != nil {
			return cfg, err
		}
		cfg.Profile = cmp.Or(name, cf.DefaultProfile) // for the audit log
		return a.engineConfig(cfg)
	}
}

// verbose is where --verbose writes connection attempts and requests: stderr,
// or nil without the flag.
func (a *app) verbose() io.Writer {
	if !a.flags.verbose {
		return nil
	}
	return a.st.Stderr
}

// prompt asks for a SASL password without echo when stdin is a terminal;
// nil otherwise (scripts and pipes never block on a prompt).
func (a *app) prompt() func(user string) (string, error) {
	if a.st.ReadPassword == nil || !a.st.IsTerminal(a.st.Stdin) {
		return nil
	}
	return func(user string) (string, error) {
		return a.st.ReadPassword(fmt.Sprintf("SASL password for %s: ", user))
	}
}
