package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// A fleet is `run --profiles a,b,'prod-*' SCRIPT`: the script once per
// profile of the config file, each run in its own Lua state on its own
// connection with the profile's own brokers and credentials, at most
// --parallel at once.

// fleetFlagsOK refuses flags that name one cluster's connection: in a
// fleet every cluster's brokers and credentials come from its profile, and
// nothing given once may go to all of them.
func (a *app) fleetFlagsOK(cmd *cobra.Command) error {
	for _, name := range []string{"brokers", "profile", "command-config", "sasl-mechanism", "sasl-username",
		"tls", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "tls-insecure-skip-verify", "embedded", "fixture"} {
		if cmd.Flags().Changed(name) {
			return usageErr(fmt.Errorf("--profiles takes each cluster's brokers and credentials from its profile: leave out --%s", name))
		}
	}
	return nil
}

// fleetTargets expands --profiles: each name must be a profile of the
// config file; a glob (prod-*, eu-?) stands for the profiles it matches,
// sorted, and must match one. A profile named twice runs once.
func (a *app) fleetTargets(cmd *cobra.Command, patterns []string) ([]*target, error) {
	cf, err := a.configFile(true)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(cf.Profiles))
	for n := range cf.Profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	known := "profiles: " + strings.Join(names, ", ")
	if len(names) == 0 {
		known = "the config file has none"
	}
	var chosen []string
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		var matched []string
		switch {
		case p == "":
			return nil, usageErr(fmt.Errorf("--profiles: empty profile name"))
		case strings.ContainsAny(p, `*?[\`):
			if _, err := path.Match(p, ""); err != nil {
				return nil, usageErr(fmt.Errorf("--profiles: bad pattern %q: %v", p, err))
			}
			for _, n := range names {
				if ok, _ := path.Match(p, n); ok {
					matched = append(matched, n)
				}
			}
			if len(matched) == 0 {
				return nil, usageErr(fmt.Errorf("--profiles: %q matches no profile (%s)", p, known))
			}
		case cf.Profiles[p] == nil:
			return nil, usageErr(fmt.Errorf("--profiles: no profile %q (%s)", p, known))
		default:
			matched = []string{p}
		}
		for _, n := range matched {
			if !slices.Contains(chosen, n) {
				chosen = append(chosen, n)
			}
		}
	}
	out := make([]*target, len(chosen))
	for i, n := range chosen {
		cfg, err := a.profileConfig(cmd, cf, n)
		out[i] = &target{name: n, cfg: cfg, err: err, env: a.memberEnv(cf, n)}
	}
	return out, nil
}

// memberEnv is what the scripts of a fleet's member (profile name) read
// with kafka.env and os.getenv: scriptEnv without the credential variables
// of the config file's other profiles (Profile.SecretEnvNames), unless its
// own profile reads the same variable. Its own connection is made for it;
// no script needs another cluster's password.
func (a *app) memberEnv(cf *clientconfig.ConfigFile, name string) func(string) string {
	own := map[string]bool{}
	if p := cf.Profiles[name]; p != nil {
		for _, v := range p.SecretEnvNames() {
			own[v] = true
		}
	}
	hidden := map[string]bool{}
	for n, p := range cf.Profiles {
		if n == name || p == nil {
			continue
		}
		for _, v := range p.SecretEnvNames() {
			hidden[v] = !own[v]
		}
	}
	return func(v string) string {
		if hidden[v] {
			return ""
		}
		return a.scriptEnv(v)
	}
}

// profileConfig is profile name's connection, on the --timeout unless it
// sets its own. It never prompts for a password: runs side by side cannot
// share a terminal, so a password comes from its variable or the run fails.
func (a *app) profileConfig(cmd *cobra.Command, cf *clientconfig.ConfigFile, name string) (engine.Config, error) {
	p, err := cf.Profile(name)
	if err != nil {
		return engine.Config{}, err
	}
	if p.Timeout == 0 || cmd.Flags().Changed("timeout") {
		p.Timeout = clientconfig.Duration(a.flags.timeout)
	}
	cfg, err := p.Config(a.st.Env, nil)
	if err != nil {
		return cfg, err
	}
	cfg.Profile = name // for the audit log
	return a.engineConfig(cfg)
}

// fleetResolve serves kafka.connect{profile=NAME} in a fleet's runs, as
// resolve does elsewhere but without a prompt.
func (a *app) fleetResolve(cmd *cobra.Command) func(string) (engine.Config, error) {
	return func(name string) (engine.Config, error) {
		cf, err := a.configFile(true)
		if err != nil {
			return engine.Config{}, err
		}
		return a.profileConfig(cmd, cf, name)
	}
}

// fleetRecord is a fleet's -o json line for one cluster.
type fleetRecord struct {
	Profile  string          `json:"profile"`
	Run      int             `json:"run,omitempty"`
	Exit     int             `json:"exit"`
	Duration float64         `json:"duration_seconds"`
	Checks   []string        `json:"checks_failed"`
	Error    *string         `json:"error"`
	Result   json.RawMessage `json:"result"`
	Stdout   string          `json:"stdout,omitempty"`
}

// fleetJSON is o as one line of JSON: the profile, the run (in a loop),
// the exit code, the failed checks, the error and what the script returned
// (null for nothing; an array when it returned several values).
func fleetJSON(o *outcome, loop bool) []byte {
	r := fleetRecord{Profile: o.target.name, Exit: o.code, Duration: o.took.Seconds(),
		Checks: append([]string{}, o.checks...), Result: o.result, Stdout: string(o.stdout)}
	if loop {
		r.Run = o.run
	}
	if o.err != nil {
		msg := o.err.Error()
		r.Error = &msg
	}
	if r.Result == nil {
		r.Result = json.RawMessage("null")
	}
	b, err := json.Marshal(r)
	if err != nil { // the result is JSON we made: cannot happen
		return []byte(fmt.Sprintf(`{"profile":%q,"exit":%d,"error":%q}`, o.target.name, o.code, err.Error()))
	}
	return luaapi.EscapeJSON(b) // C1, bidi and zero-width characters, which encoding/json leaves raw
}

// compactJSON encodes the returned values as one JSON value: the value
// itself, or an array when the script returned several.
func compactJSON(rt *luaapi.Runtime, vals []lua.LValue) ([]byte, error) {
	parts := make([][]byte, len(vals))
	for i, v := range vals {
		text, err := rt.Format([]lua.LValue{v}, "json")
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(text)); err != nil {
			return nil, err
		}
		parts[i] = b.Bytes()
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']'), nil
}

// lineWriter writes whole lines to w, each with prefix, under mu (shared
// by every writer on w): a fleet's clusters write their stderr side by
// side and each line says whose it is.
type lineWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *lineWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		_, _ = io.WriteString(p.w, p.prefix+string(p.buf[:i+1]))
		p.buf = p.buf[i+1:]
	}
	if len(p.buf) == 0 {
		p.buf = nil // let a long line's buffer go
	}
	return len(b), nil
}

// flush writes a last line that has no newline.
func (p *lineWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		_, _ = io.WriteString(p.w, p.prefix+string(p.buf)+"\n")
		p.buf = nil
	}
}
