package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// The environment variables secrets come from unless a profile names others.
const (
	PasswordEnv           = "KADMIN_SASL_PASSWORD"
	OAuthTokenEnv         = "KADMIN_SASL_OAUTH_TOKEN"
	OAuthClientSecretEnv  = "KADMIN_SASL_OAUTH_CLIENT_SECRET"
	TruststorePasswordEnv = "KADMIN_TLS_TRUSTSTORE_PASSWORD"
	KeystorePasswordEnv   = "KADMIN_TLS_KEYSTORE_PASSWORD"
	KeyPasswordEnv        = "KADMIN_TLS_KEY_PASSWORD"
)

// ConfigFile is kadmin-lua's config file: named connection profiles and the
// one used when none is asked for. It is JSON:
//
//	{
//	  "default_profile": "local",
//	  "profiles": {
//	    "local": {"brokers": ["localhost:9092"]},
//	    "prod": {
//	      "brokers": ["kafka-1.prod:9093", "kafka-2.prod:9093"],
//	      "timeout": "60s",
//	      "sasl": {"mechanism": "SCRAM-SHA-512", "username": "ops", "password_env": "PROD_KAFKA_PASSWORD"},
//	      "tls": {"ca_file": "/etc/kafka/prod-ca.pem"}
//	    }
//	  }
//	}
//
// Passwords never live in it: a profile names the environment variable that
// holds its password (KADMIN_SASL_PASSWORD by default).
type ConfigFile struct {
	DefaultProfile string              `json:"default_profile,omitempty"`
	Profiles       map[string]*Profile `json:"profiles"`

	path string
}

// Profile is one cluster's connection settings. Every field is optional; a
// profile read from a file is overlaid by the environment and by flags.
type Profile struct {
	Brokers  []string     `json:"brokers,omitempty"`
	ClientID string       `json:"client_id,omitempty"`
	Timeout  Duration     `json:"timeout,omitempty"`
	SASL     *ProfileSASL `json:"sasl,omitempty"`
	TLS      *ProfileTLS  `json:"tls,omitempty"`
	// CommandConfig is a Java client.properties file whose settings lie
	// under the profile's own.
	CommandConfig string `json:"command_config,omitempty"`
	// SchemaRegistry is the cluster's Schema Registry (registry.go).
	SchemaRegistry *ProfileRegistry `json:"schema_registry,omitempty"`
}

// ProfileSASL says how a profile logs in. Secrets are never written in the
// config file: it names the environment variables that hold them (the
// *_env keys); only a client.properties file, like Java's, may hold them.
type ProfileSASL struct {
	Mechanism   string `json:"mechanism,omitempty"` // one of login.SASLMechanisms
	Username    string `json:"username,omitempty"`
	PasswordEnv string `json:"password_env,omitempty"` // default KADMIN_SASL_PASSWORD
	// Password comes only from a client.properties sasl.jaas.config; it
	// cannot be set in the JSON config file.
	Password engine.Secret `json:"-"`

	OAuth    *ProfileOAuth    `json:"oauth,omitempty"`    // OAUTHBEARER
	Kerberos *ProfileKerberos `json:"kerberos,omitempty"` // GSSAPI
	AWS      *ProfileAWS      `json:"aws,omitempty"`      // AWS_MSK_IAM
}

// ProfileOAuth says where OAUTHBEARER tokens come from: one of token_file,
// token_command, token_endpoint (the client-credentials grant) or
// unsecured_claims; with none, the token is the value of token_env.
type ProfileOAuth struct {
	TokenEnv     string `json:"token_env,omitempty"` // default KADMIN_SASL_OAUTH_TOKEN
	TokenFile    string `json:"token_file,omitempty"`
	TokenCommand string `json:"token_command,omitempty"`
	// TokenCommandEnv names the variables the token command gets besides
	// PATH, HOME, USER and the locale (login.TokenCommandBaseEnv).
	TokenCommandEnv []string          `json:"token_command_env,omitempty"`
	TokenEndpoint   string            `json:"token_endpoint,omitempty"`
	ClientID        string            `json:"client_id,omitempty"`
	ClientSecretEnv string            `json:"client_secret_env,omitempty"` // default KADMIN_SASL_OAUTH_CLIENT_SECRET
	Scope           string            `json:"scope,omitempty"`
	Extensions      map[string]string `json:"extensions,omitempty"`
	UnsecuredClaims map[string]string `json:"unsecured_claims,omitempty"`

	// From a client.properties file only.
	Token             engine.Secret `json:"-"` // Strimzi's oauth.access.token
	ClientSecret      engine.Secret `json:"-"`
	UnsecuredLifetime time.Duration `json:"-"`
	RefreshFactor     float64       `json:"-"`
}

// ProfileKerberos says how GSSAPI logs in: with a keytab when one is set,
// else from the credential cache (ccache, else KRB5CCNAME, else
// /tmp/krb5cc_UID).
type ProfileKerberos struct {
	ServiceName string `json:"service_name,omitempty"` // default "kafka"
	Principal   string `json:"principal,omitempty"`
	Keytab      string `json:"keytab,omitempty"`
	CCache      string `json:"ccache,omitempty"`
	Krb5Conf    string `json:"krb5_conf,omitempty"` // default KRB5_CONFIG, else /etc/krb5.conf
}

// ProfileAWS says which AWS credentials AWS_MSK_IAM signs with: the SDK's
// standard chain, from profile when set, assuming role_arn when set.
type ProfileAWS struct {
	Profile         string `json:"profile,omitempty"`
	RoleARN         string `json:"role_arn,omitempty"`
	RoleSessionName string `json:"role_session_name,omitempty"`
	STSRegion       string `json:"sts_region,omitempty"`
}

// ProfileTLS enables TLS; an empty object means TLS with the system roots.
// Brokers are verified with ca_file (PEM) and/or a Java trust store; the
// client certificate is cert_file with key_file (PEM) or a Java key store.
type ProfileTLS struct {
	CAFile             string `json:"ca_file,omitempty"`
	CertFile           string `json:"cert_file,omitempty"`
	KeyFile            string `json:"key_file,omitempty"`
	ServerName         string `json:"server_name,omitempty"`
	InsecureSkipVerify bool   `json:"insecure_skip_verify,omitempty"`

	Truststore            string `json:"truststore,omitempty"`
	TruststoreType        string `json:"truststore_type,omitempty"`         // JKS, PKCS12 or PEM; default: from the file
	TruststorePasswordEnv string `json:"truststore_password_env,omitempty"` // default KADMIN_TLS_TRUSTSTORE_PASSWORD
	Keystore              string `json:"keystore,omitempty"`
	KeystoreType          string `json:"keystore_type,omitempty"`
	KeystorePasswordEnv   string `json:"keystore_password_env,omitempty"` // default KADMIN_TLS_KEYSTORE_PASSWORD
	KeyPasswordEnv        string `json:"key_password_env,omitempty"`      // default KADMIN_TLS_KEY_PASSWORD

	// From a client.properties file only.
	TruststorePassword engine.Secret `json:"-"`
	KeystorePassword   engine.Secret `json:"-"`
	KeyPassword        engine.Secret `json:"-"`
}

// Duration is a time.Duration written as "30s" in JSON.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`timeout must be a string like "30s"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("timeout %q is not a duration like \"30s\"", s)
	}
	*d = Duration(v)
	return nil
}

// DefaultConfigPath is where the config file lives unless --config says
// otherwise: $XDG_CONFIG_HOME/kadmin-lua/config.json, else
// ~/.config/kadmin-lua/config.json. It is "" when neither variable is set.
func DefaultConfigPath(env func(string) string) string {
	if d := env("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "kadmin-lua", "config.json")
	}
	if h := env("HOME"); h != "" {
		return filepath.Join(h, ".config", "kadmin-lua", "config.json")
	}
	return ""
}

// LoadConfigFile reads a config file. A missing file is an error wrapping
// os.ErrNotExist, so callers can treat the default path as optional.
func LoadConfigFile(path string) (*ConfigFile, error) {
	b, err := readConfigBounded(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &engine.Error{Code: engine.CodeInvalidArgument, Resource: path, Message: "config file not found", Err: err}
		}
		return nil, engine.Errorf(engine.CodeInvalidArgument, path, "reading config file: %v", err)
	}
	return ParseConfigFile(path, b)
}

// ParseConfigFile parses the JSON config file; path is used in messages.
// Unknown keys are errors, and so are a key given twice in one object
// and a password written into the file.
func ParseConfigFile(path string, b []byte) (*ConfigFile, error) {
	if key, line, dup := duplicateKey(b); dup {
		return nil, engine.Errorf(engine.CodeInvalidArgument, path, "bad config file: line %d: %s is given twice (JSON would keep the last silently)", line, key)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var cf ConfigFile
	if err := dec.Decode(&cf); err != nil {
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok && redact.IsSecretKey(strings.Trim(f, `"`)) {
			what, key := "secrets", strings.Trim(f, `"`)
			if key == "password" {
				what = "passwords"
			}
			msg = fmt.Sprintf(`profiles cannot hold %s: set "%s_env" to the name of an environment variable that holds it`, what, key)
		} else if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
			msg = fmt.Sprintf("line %d: %v", line, err)
		}
		return nil, engine.Errorf(engine.CodeInvalidArgument, path, "bad config file: %s", msg)
	}
	cf.path = path
	for name, p := range cf.Profiles {
		if p == nil {
			return nil, engine.Errorf(engine.CodeInvalidArgument, path, "bad config file: profile %q is null", name)
		}
	}
	if cf.DefaultProfile != "" && cf.Profiles[cf.DefaultProfile] == nil {
		return nil, engine.Errorf(engine.CodeInvalidArgument, path, "bad config file: default_profile %q is not among the profiles", cf.DefaultProfile)
	}
	return &cf, nil
}

// Profile returns the named profile, with its command_config (if any)
// merged under it. name "" means the default profile; with no default it
// returns an empty profile.
func (cf *ConfigFile) Profile(name string) (Profile, error) {
	if name == "" {
		name = cf.DefaultProfile
		if name == "" {
			return Profile{}, nil
		}
	}
	p := cf.Profiles[name]
	if p == nil {
		names := make([]string, 0, len(cf.Profiles))
		for n := range cf.Profiles {
			names = append(names, n)
		}
		slices.Sort(names)
		return Profile{}, engine.Errorf(engine.CodeInvalidArgument, cf.path, "no profile %q (profiles: %s)", name, strings.Join(names, ", "))
	}
	out := *p
	if out.CommandConfig != "" {
		cc, err := LoadClientProperties(out.CommandConfig)
		if err != nil {
			return Profile{}, err
		}
		out = Overlay(cc, out)
		out.CommandConfig = ""
	}
	return out, nil
}

// maxConfigFile bounds the config file: a thousand profiles fit in far
// less, and --config /dev/zero fails at once instead of growing until the
// kernel kills the process.
const maxConfigFile = 4 << 20

func readConfigBounded(path string) ([]byte, error) {
	return boundedfile.Read(path, maxConfigFile)
}
