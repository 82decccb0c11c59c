package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// defaultConfig is the connection behind the globals. Settings come from,
// highest first: flags (-b, --sasl-*, --tls-*, --timeout; then the
// --command-config file; then the --profile named on the command line),
// the environment (KADMIN_BROKERS), the profile named by KADMIN_PROFILE,
// the config file's default_profile.
func (a *app) defaultConfig(cmd *cobra.Command) (engine.Config, error) {
	f := &a.flags
	env := a.st.Env
	name := f.profile
	explicit := name != ""
	if name == "" {
		name = env("KADMIN_PROFILE")
	}
	cf, err := a.configFile(name != "")
	if err != nil {
		return engine.Config{}, err
	}
	var p engine.Profile
	if cf != nil {
		if p, err = cf.Profile(name); err != nil {
			return engine.Config{}, err
		}
	}
	if b := engine.SplitList(env("KADMIN_BROKERS")); len(b) > 0 && !(explicit && len(p.Brokers) > 0) {
		p.Brokers = b
	}
	if f.commandConfig != "" {
		cc, err := engine.LoadClientProperties(f.commandConfig)
		if err != nil {
			return engine.Config{}, err
		}
		p = engine.Overlay(p, cc)
	}
	p = engine.Overlay(p, a.flagProfile())
	if cmd.Flags().Changed("timeout") || p.Timeout == 0 {
		p.Timeout = engine.Duration(f.timeout)
	}
	cfg, err := p.Config(env, a.prompt())
	if cf != nil && cf.Profiles[cmp.Or(name, cf.DefaultProfile)] != nil {
		cfg.Profile = cmp.Or(name, cf.DefaultProfile) // for the audit log
	}
	return cfg, err
}

// flagProfile is the connection settings given as flags.
func (a *app) flagProfile() engine.Profile {
	f := &a.flags
	var p engine.Profile
	for _, b := range f.brokers {
		p.Brokers = append(p.Brokers, engine.SplitList(b)...)
	}
	if f.saslMechanism != "" || f.saslUsername != "" {
		p.SASL = &engine.ProfileSASL{Mechanism: f.saslMechanism, Username: f.saslUsername}
	}
	if f.tls || f.tlsCA != "" || f.tlsCert != "" || f.tlsKey != "" || f.tlsServer != "" || f.tlsInsecure {
		p.TLS = &engine.ProfileTLS{CAFile: f.tlsCA, CertFile: f.tlsCert, KeyFile: f.tlsKey,
			ServerName: f.tlsServer, InsecureSkipVerify: f.tlsInsecure}
	}
	return p
}

// configFile loads --config, or the default config file when it exists.
// required: a profile was asked for, so a missing file is an error.
func (a *app) configFile(required bool) (*engine.ConfigFile, error) {
	path := a.flags.configPath
	explicit := path != ""
	if !explicit {
		path = engine.DefaultConfigPath(a.st.Env)
	}
	if path == "" {
		if required {
			return nil, exitf(ExitUsage, "profiles need a config file: pass --config FILE (HOME is not set)")
		}
		return nil, nil
	}
	cf, err := engine.LoadConfigFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit && !required {
		return nil, nil
	}
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
			p.Timeout = engine.Duration(a.flags.timeout)
		}
		cfg, err := p.Config(a.st.Env, a.prompt())
		cfg.Profile = cmp.Or(name, cf.DefaultProfile) // for the audit log
		return cfg, err
	}
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
