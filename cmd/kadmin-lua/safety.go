package main

import (
	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// The audit log and --dry-run are part of every engine configuration the
// command makes (engine.Config.Audit, .DryRun), so every client carries
// them: the default cluster's, kafka.connect's, loop mode's and a fleet's
// shared ones, the embedded cluster's and undo's. engineConfig is the one
// place that puts them there; each function that builds a configuration
// ends with it.

// auditState is the process's audit log: opened on first use, once,
// closed when run returns.
type auditState struct {
	path   string // --audit-log, or undo's own log when the flag is not given
	opened bool
	log    *auditlog.Log
	err    error
}

// engineConfig finishes cfg: --verbose, the safety settings, and the
// state store (lagstate.go).
func (a *app) engineConfig(cfg engine.Config) (engine.Config, error) {
	cfg.Verbose = a.verbose()
	cfg.DryRun = cfg.DryRun || a.flags.dryRun
	log, err := a.auditLog()
	cfg.Audit = log
	if err != nil {
		return cfg, err
	}
	cfg.State, err = a.stateStoreFor(cfg)
	return cfg, err
}

// auditLog opens the audit log the first time it is asked; nil when there
// is none. A dry run opens none: it writes nothing (mutate sends no change
// under it), and a keyed log it could not append to must not stop it.
func (a *app) auditLog() (*auditlog.Log, error) {
	s := &a.audit
	if !s.opened {
		s.opened = true
		if s.path == "" {
			s.path = a.flags.auditLog
		}
		if s.path != "" && !a.flags.dryRun {
			s.log, s.err = auditlog.OpenWith(s.path, a.auditOptions())
		}
	}
	return s.log, s.err
}

func (a *app) closeAudit() {
	if a.audit.log != nil {
		_ = a.audit.log.Close()
	}
}
