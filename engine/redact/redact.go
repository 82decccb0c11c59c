package redact

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Secrets are recognised by the name of the field that holds them, case
// ignored, at any depth: the audit log, kafka.log, dry-run plans and the
// REPL's confirmation prompt show "***" in their place.
//
// A name is split into words at every character that is not a letter or a
// digit and at lower-to-upper case changes ("ssl.keystore.key",
// "sasl_jaas_config", "privateKey"). It is a secret when
//   - it contains one of secretParts anywhere ("my.custom.pwd",
//     "sasl.jaas.config", "token_id", "ssl.truststore.password"), or
//   - one of its words is in secretWords ("pass", "pw"), or
//   - it names key material: a word "key", "keys" or "pem" together with a
//     word in keyMaterial ("ssl.key.pem", "ssl.keystore.key", "private_key",
//     "aws_access_key_id").
//
// "key" alone is not a secret: it is a record's key, a config's name, a
// map's key.
var (
	secretParts = []string{"password", "passwd", "pwd", "passphrase", "secret", "token", "credential", "jaas", "hmac", "keytab", "bearer"}
	secretWords = map[string]bool{"pass": true, "pw": true, "privatekey": true}
	keyWords    = map[string]bool{"key": true, "keys": true, "pem": true}
	keyMaterial = map[string]bool{"access": true, "ssl": true, "keystore": true, "private": true, "signing": true, "encryption": true, "master": true}
)

// Redacted is what a secret's value is replaced with.
const Redacted = "***"

// IsSecretKey reports whether a field name holds a secret.
func IsSecretKey(k string) bool {
	low := strings.ToLower(k)
	for _, p := range secretParts {
		if strings.Contains(low, p) {
			return true
		}
	}
	words := splitWords(k)
	material, keyWord := false, false
	for _, w := range words {
		switch {
		case secretWords[w]:
			return true
		case keyWords[w]:
			keyWord = true
		case keyMaterial[w]:
			material = true
		}
	}
	return keyWord && material
}

// splitWords lower-cases k and splits it at non-alphanumerics and at
// lower-to-upper case changes.
func splitWords(k string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range k {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		cur = append(cur, unicode.ToLower(r))
	}
	flush()
	return words
}

// Value returns v with the values of secret-named keys replaced by "***",
// at any depth. It also hides the value of a {name=..., value=...} record
// whose name is a secret key (configs given as a list) and of a record
// marked sensitive=true (Kafka's own flag on config entries). v itself is
// not modified.
func Value(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		hideValue := recordIsSecret(v)
		for k, val := range v {
			switch {
			case IsSecretKey(k), hideValue && k == "value" && val != nil:
				out[k] = Redacted
			default:
				out[k] = Value(val)
			}
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(v))
		for k, val := range v {
			if IsSecretKey(k) {
				val = Redacted
			}
			out[k] = val
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = Value(val)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(v))
		for i, val := range v {
			out[i] = Value(val).(map[string]any)
		}
		return out
	}
	return v
}

// recordIsSecret: a {name=, value=} record naming a secret, or one Kafka
// marked sensitive.
func recordIsSecret(m map[string]any) bool {
	if _, ok := m["value"]; !ok {
		return false
	}
	if s, ok := m["sensitive"].(bool); ok && s {
		return true
	}
	for _, k := range []string{"name", "key", "config"} {
		if s, ok := m[k].(string); ok && IsSecretKey(s) {
			return true
		}
	}
	return false
}

// URL returns a URL fit for logs, errors and the audit log: its
// scheme, host and port, and its path with every segment that could be a
// credential replaced by "***". Webhooks carry their secret in the URL:
// user:pass@, a query (?token=, ?sig=: every query value is hidden), or
// the path itself (Slack's /services/T…/B…/XXXX, Discord's
// /api/webhooks/ID/TOKEN). A path segment is kept only when it is a plain
// lower-case word ("api", "alerts", "services", "hooks", "v2"); anything
// with digits, capitals or other characters is hidden. The fragment is
// dropped. A string that does not parse as a URL is hidden whole.
func URL(raw string) string { return redactURL(raw, false) }

// redactURL is URL, or with keepPath Endpoint.
func redactURL(raw string, keepPath bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Redacted
	}
	var b strings.Builder
	b.WriteString(u.Scheme + "://")
	if u.User != nil {
		b.WriteString(Redacted + "@")
	}
	b.WriteString(u.Host)
	for i, seg := range strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/") {
		if i == 0 && seg == "" {
			break
		}
		b.WriteByte('/')
		if keepPath || PlainPathWord(seg) || seg == "" {
			b.WriteString(seg)
		} else {
			b.WriteString(Redacted)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		keys := vocab.SortedKeys(q)
		for i, k := range keys {
			sep := "&"
			if i == 0 {
				sep = "?"
			}
			b.WriteString(sep + url.QueryEscape(k) + "=" + Redacted)
		}
	}
	return b.String()
}

// PlainPathWord: a path segment that names a place rather than holding a
// credential: lower-case letters, '-' and '_' (at most 24), or a version
// such as v2.
func PlainPathWord(s string) bool {
	if len(s) == 0 || len(s) > 24 {
		return false
	}
	if len(s) <= 3 && s[0] == 'v' && len(s) > 1 {
		for _, r := range s[1:] {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' && r != '_' {
			return false
		}
	}
	return true
}

// Endpoint returns a URL that names where a client goes (a token
// endpoint) fit for messages: its userinfo becomes "***@", every query
// value "***", the fragment is dropped; scheme, host and path stay, since
// an endpoint's path names a place (/oauth2/token, /realms/x/...). A
// webhook, whose path may be the secret, is URL's. A string that does
// not parse as a URL with a host is hidden whole.
func Endpoint(raw string) string { return redactURL(raw, true) }

// Patterns Text hides: NAME=value and NAME: value with a secret
// NAME, an Authorization scheme's credential, a JWT, a URL.
// (Compiled on first use: every process start paid for them.)
var (
	secretNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([A-Za-z0-9_.\-]+)["']?\s*[=:]`) })
	authSchemeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9\-._~+/]+=*)`)
	})
	jwtRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*`)
	})
	urlRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s"'<>]+`) })
)

// Text hides what could be a credential in free text from another
// program (a token command's stderr): the given secret values wherever
// they appear, the value of NAME=value or NAME: value when NAME is a
// secret key (IsSecretKey), an Authorization credential (Bearer ..., Basic
// ...), a JWT, and the userinfo and query values of URLs (Endpoint).
func Text(s string, secrets ...string) string {
	for _, v := range secrets {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	s = urlRE().ReplaceAllStringFunc(s, func(u string) string {
		if p, err := url.Parse(u); err == nil && p.User == nil && p.RawQuery == "" {
			return u
		}
		return Endpoint(u)
	})
	s = jwtRE().ReplaceAllString(s, Redacted)
	s = authSchemeRE().ReplaceAllString(s, "${1}${2}"+Redacted)
	ms := secretNameRE().FindAllStringSubmatchIndex(s, -1)
	for i := len(ms) - 1; i >= 0; i-- { // from the end: indexes stay right
		m := ms[i]
		if !IsSecretKey(s[m[2]:m[3]]) {
			continue
		}
		start := m[1]
		for start < len(s) && strings.IndexByte(" \t\"'", s[start]) >= 0 {
			start++
		}
		end := start
		for end < len(s) && strings.IndexByte(" \t\"',;&", s[end]) < 0 {
			end++
		}
		if end > start && s[start:end] != Redacted {
			s = s[:start] + Redacted + s[end:]
		}
	}
	return s
}
