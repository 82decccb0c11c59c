package repl

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
var connectPassword = regexp.MustCompile(`(?i)\b(pass|pwd)\w*\s*=`)

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
	return !(strings.Contains(low, "connect") && connectPassword.MatchString(chunk))
}
