package awscreds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// sharedConfig holds the profiles of ~/.aws/config ([default], [profile
// NAME], [sso-session NAME]) and ~/.aws/credentials ([NAME]); a key in the
// credentials file wins over the same key in the config file.
type sharedConfig struct {
	profiles    map[string]map[string]string
	ssoSessions map[string]map[string]string
}

func loadSharedConfig(configFile, credentialsFile string) (*sharedConfig, error) {
	c := &sharedConfig{profiles: map[string]map[string]string{}, ssoSessions: map[string]map[string]string{}}
	for _, f := range []struct {
		path   string
		config bool
	}{{configFile, true}, {credentialsFile, false}} {
		sections, err := parseINI(f.path)
		if err != nil {
			return nil, err
		}
		for name, kv := range sections {
			target := c.profiles
			switch {
			case f.config && strings.HasPrefix(name, "sso-session "):
				target, name = c.ssoSessions, strings.TrimSpace(strings.TrimPrefix(name, "sso-session "))
			case f.config && strings.HasPrefix(name, "profile "):
				name = strings.TrimSpace(strings.TrimPrefix(name, "profile "))
			case f.config && name != "default":
				continue // the config file names profiles "profile NAME"
			}
			if target[name] == nil {
				target[name] = map[string]string{}
			}
			for k, v := range kv {
				target[name][k] = v
			}
		}
	}
	return c, nil
}

func (c *sharedConfig) has(name string) bool { _, ok := c.profiles[name]; return ok }

func (c *sharedConfig) profile(name string) (map[string]string, bool) {
	p, ok := c.profiles[name]
	return p, ok
}

// parseINI reads the AWS INI dialect: [section], key = value, # and ;
// comments, and indented continuation lines (nested settings such as
// s3 = ..., kept as one value). A missing file is empty. Errors never quote
// a value: it may be a secret key.
func parseINI(path string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	b, err := boundedfile.Read(path, boundedfile.Credentials)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	var section map[string]string
	var lastKey string
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return nil, fmt.Errorf("%s:%d: a section header without ]", path, n)
			}
			name := strings.TrimSpace(line[1:end])
			if out[name] == nil {
				out[name] = map[string]string{}
			}
			section, lastKey = out[name], ""
			continue
		}
		if section == nil {
			return nil, fmt.Errorf("%s:%d: a setting outside any [section]", path, n)
		}
		if (raw[0] == ' ' || raw[0] == '\t') && lastKey != "" {
			section[lastKey] += "\n" + line // a nested setting
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: a line that is not key = value", path, n)
		}
		lastKey = strings.ToLower(strings.TrimSpace(k))
		section[lastKey] = strings.TrimSpace(v)
	}
	return out, sc.Err()
}
