package engine

import (
	"strings"
	"unicode"
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

// Redact returns v with the values of secret-named keys replaced by "***",
// at any depth. It also hides the value of a {name=..., value=...} record
// whose name is a secret key (configs given as a list) and of a record
// marked sensitive=true (Kafka's own flag on config entries). v itself is
// not modified.
func Redact(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		hideValue := recordIsSecret(v)
		for k, val := range v {
			switch {
			case IsSecretKey(k), hideValue && k == "value" && val != nil:
				out[k] = Redacted
			default:
				out[k] = Redact(val)
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
			out[i] = Redact(val)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(v))
		for i, val := range v {
			out[i] = Redact(val).(map[string]any)
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
