package main

import (
	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
)

// clusterConfig is the default cluster of every command: under --embedded
// the in-process demo cluster, else the one the flags, the environment and
// the config file name (defaultConfig). Commands that run Lua and those
// that do not (plan, apply, undo) all ask here, so --embedded means the
// same everywhere.
func (a *app) clusterConfig(cmd *cobra.Command) (engine.Config, error) {
	if a.flags.fixture != "" {
		return a.fixtureConfig(cmd) // fixture.go
	}
	if !a.flags.embedded {
		return a.defaultConfig(cmd)
	}
	if a.embedded == nil { // one per process: apply plans and applies on it
		c, err := demo.Start(cmd.Context())
		if err != nil {
			return engine.Config{}, exitf(ExitScript, "starting the embedded cluster: %v", err)
		}
		a.embedded = c
	}
	cfg := engine.Config{Brokers: a.embedded.Addrs, Timeout: a.flags.timeout}
	// The demo's own registry, unless the command line names another.
	reg, err := a.flags.registry.layer(a.st.Env, false)
	if err != nil {
		return engine.Config{}, err
	}
	if reg == nil {
		reg = &clientconfig.ProfileRegistry{URL: a.embedded.RegistryURL}
	}
	if cfg.Registry, err = (clientconfig.Profile{SchemaRegistry: reg}).RegistryConfig(a.st.Env); err != nil {
		return engine.Config{}, err
	}
	return a.engineConfig(cfg)
}

// closeEmbedded stops the embedded cluster, if one was started; run calls
// it last, after every client of it is closed.
func (a *app) closeEmbedded() {
	if a.embedded != nil {
		a.embedded.Close()
	}
	if a.copy != nil {
		a.copy.Close()
	}
}
