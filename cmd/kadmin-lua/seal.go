package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
)

// Secrets sealed (docs/decisions.md). The process takes secrets from its
// environment only, never from its command line: the audit log's key and
// the credentials profiles read (a SASL password, an OAUTHBEARER token or
// client secret, key store passwords, the variables a token command is
// given, the Schema Registry's password or token). What the process was started with stays readable through
// /proc/PID/environ, to its own scripts and to every process of the same
// user, for as long as it runs. So each such variable is sealed before
// anything else reads it: its value is kept here, its bytes in the
// environment the process started with are overwritten (Linux:
// seal_linux.go), and it is removed from the Go environment, so no child
// inherits it either. The CLI reads the environment through
// sealedEnv.getenv (State.Env), which still finds the sealed values;
// scripts read them through kafka.env only where they did before.

// startSecrets are sealed as the process starts: the audit log's key and
// the variables profiles read secrets from by default. The variables a
// config file's profiles name are sealed once it is read (sealProfiles).
var startSecrets = []string{auditKeyEnv, clientconfig.PasswordEnv, clientconfig.OAuthTokenEnv,
	clientconfig.OAuthClientSecretEnv, clientconfig.TruststorePasswordEnv, clientconfig.KeystorePasswordEnv,
	clientconfig.KeyPasswordEnv, clientconfig.RegistryPasswordEnv, clientconfig.RegistryTokenEnv}

// sealedEnv is the process's environment with its secrets taken out.
type sealedEnv struct {
	mu     sync.Mutex
	values map[string]string // the sealed variables that were set
	sealed map[string]bool   // every name sealed, set or not
}

func newSealedEnv() *sealedEnv {
	return &sealedEnv{values: map[string]string{}, sealed: map[string]bool{}}
}

// getenv reads a variable: a sealed one's kept value, else the process's.
func (s *sealedEnv) getenv(name string) string {
	s.mu.Lock()
	v, ok := s.values[name]
	s.mu.Unlock()
	if ok {
		return v
	}
	return os.Getenv(name)
}

// seal takes names out of the process's environment and keeps their
// values. Sealing a name again does nothing. The error says that the
// environment the process started with could not be cleared: the values
// are then still removed from the Go environment, and scripts still
// cannot read procfs (luaapi/scriptfiles.go), but other processes of this
// user can.
func (s *sealedEnv) seal(names ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	taken := map[string]bool{}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "=\x00") || s.sealed[n] {
			continue
		}
		s.sealed[n] = true
		v, ok := os.LookupEnv(n)
		if !ok {
			continue
		}
		s.values[n] = strings.Clone(v)
		taken[n] = true
		_ = os.Unsetenv(n)
	}
	if len(taken) == 0 {
		return nil
	}
	if err := clearStartEnviron(taken); err != nil {
		return fmt.Errorf("could not clear %s from the environment this process started with (%v): other processes of this user can read it in /proc", strings.Join(slices.Sorted(maps.Keys(taken)), ", "), err)
	}
	return nil
}

// clearValues overwrites with NUL bytes, in an environment block
// (NAME=VALUE strings each ended by a NUL, as the kernel lays them out),
// the value of every entry whose name is in names, and returns how many
// it cleared. The names stay, so /proc shows that a variable was set and
// sealed, not what it held; the block keeps its length and every entry
// its place (anything still pointing into it reads an empty value).
func clearValues(block []byte, names map[string]bool) int {
	n := 0
	for i := 0; i < len(block); {
		end := i
		for end < len(block) && block[end] != 0 {
			end++
		}
		entry := block[i:end]
		if eq := bytes.IndexByte(entry, '='); eq > 0 && names[string(entry[:eq])] {
			for j := i + eq + 1; j < end; j++ {
				block[j] = 0
			}
			n++
		}
		i = end + 1
	}
	return n
}

// sealProfiles seals the variables the config file's profiles read
// secrets from (Profile.SecretEnvNames): in a fleet, what kafka.env hides
// from a member is another profile's; kept out of /proc, it is hidden
// there too. A failure to clear is said once on stderr.
func (a *app) sealProfiles(cf *clientconfig.ConfigFile) {
	if cf == nil || a.st.Seal == nil {
		return
	}
	var names []string
	for _, p := range cf.Profiles {
		if p != nil {
			names = append(names, p.SecretEnvNames()...)
		}
	}
	if err := a.st.Seal(names...); err != nil {
		fmt.Fprintf(a.st.Stderr, "kadmin-lua: warning: %v\n", err)
	}
}
