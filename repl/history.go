package repl

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
)

// DefaultHistoryPath is where the REPL keeps its history:
// $XDG_STATE_HOME/kadmin-lua/history, else ~/.local/state/kadmin-lua/history;
// "" when neither is known (no history file).
func DefaultHistoryPath() string {
	return historyPath(os.Getenv, os.UserHomeDir)
}

func historyPath(getenv func(string) string, home func() (string, error)) string {
	// The XDG spec says relative paths are invalid and must be ignored.
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "kadmin-lua", "history")
	}
	h, err := home()
	if err != nil || h == "" {
		return ""
	}
	return filepath.Join(h, ".local", "state", "kadmin-lua", "history")
}

// secretWords mark a line that may hold a credential; such a line never
// reaches the history file.
var secretWords = []string{"password", "passwd", "secret", "token", "sasl", "passphrase", "hmac", "scram", "credential"}

// connectPassword catches short password keys in a kafka.connect call
// (`pass=`, `pwd=`), which the words above miss.
var connectPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(pass|pwd)\w*\s*=`) })

// keepInHistory reports whether a chunk may be saved in the history.
func keepInHistory(chunk string) bool {
	if strings.TrimSpace(chunk) == "" {
		return false
	}
	low := strings.ToLower(chunk)
	for _, w := range secretWords {
		if strings.Contains(low, w) {
			return false
		}
	}
	if strings.Contains(low, "connect") && connectPassword().MatchString(chunk) {
		return false
	}
	return !assignsSecret(chunk) && !readsSecretEnv(chunk)
}

// lhsName is a name on the left of an assignment: an identifier or a
// quoted table key (`["ssl.key.password"] = ...`).
var lhsName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*|"([^"]*)"|'([^']*)'`) })

// assignsSecret reports whether the chunk assigns to a name that looks like
// a secret's (redact.IsSecretKey: `local pw = ...`, `pass = ...`,
// `{adminPwd = ...}`, `t["ssl.key.password"] = ...`), whatever the value.
// The names considered for an `=` are those between it and the previous
// `{`, `(`, `;`, newline or `=`: too many rather than too few.
func assignsSecret(chunk string) bool {
	for i := 0; i < len(chunk); i++ {
		if chunk[i] != '=' {
			continue
		}
		if i+1 < len(chunk) && chunk[i+1] == '=' { // ==
			i++
			continue
		}
		if i > 0 && strings.IndexByte("~<>", chunk[i-1]) >= 0 { // ~= <= >=
			continue
		}
		lhs := chunk[strings.LastIndexAny(chunk[:i], "{(;\n=")+1 : i]
		for _, m := range lhsName().FindAllStringSubmatch(lhs, -1) {
			name := m[0]
			if m[1] != "" || m[2] != "" {
				name = m[1] + m[2]
			}
			if redact.IsSecretKey(name) {
				return true
			}
		}
	}
	return false
}

// envRead is kafka.env("NAME").
var envRead = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`kafka\.env\s*\(?\s*["']([^"']*)["']`) })

// readsSecretEnv reports whether the chunk reads an environment variable
// whose name looks like a secret's (`kafka.env("KAFKA_PW")`): the value is
// not in the line, but such a line is where secrets get handled.
func readsSecretEnv(chunk string) bool {
	for _, m := range envRead().FindAllStringSubmatch(chunk, -1) {
		if redact.IsSecretKey(m[1]) {
			return true
		}
	}
	return false
}
