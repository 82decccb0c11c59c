package luaapi

import (
	"cmp"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
)

// connectOptions are kafka.connect's keys: checked before the client is
// made, so a misspelled key is an error rather than a silently default
// connection. Secrets (passwords, client secrets, key store passwords)
// are not among them: they come from client.properties or KADMIN_*
// variables, never from a script.
var connectOptions = []Field{
	{Name: "brokers", Type: List[string](NonEmptyStr().Checked("host:port", nil).Sample("localhost:9092")), Doc: `seed brokers, "host:port" (a comma-separated string is split)`},
	{Name: "profile", Type: NonEmptyStr(), Doc: "a profile from the config file"},
	{Name: "command_config", Type: NonEmptyStr(), Doc: "a Java client.properties file (as --command-config): its SASL and TLS settings"},
	{Name: "client_id", Type: Str(), Doc: "the client id the brokers see"},
	{Name: "timeout", Type: Int64(1).Between(1, maxDurationMillis).Named("timeout in ms"), Doc: "each call's deadline"},
	{Name: "sasl_mechanism", Type: Enum("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI", "AWS_MSK_IAM"),
		Doc: "SASL mechanism; PLAIN and SCRAM take the password from KADMIN_SASL_PASSWORD"},
	{Name: "sasl_username", Type: NonEmptyStr(), Doc: "SASL user (PLAIN, SCRAM)"},
	{Name: "sasl_oauth_token_file", Type: NonEmptyStr(), Doc: "OAUTHBEARER: a file holding the token, read again at every login"},
	{Name: "sasl_oauth_token_endpoint", Type: NonEmptyStr(), Doc: "OAUTHBEARER: the OIDC token endpoint for the client-credentials grant (the secret comes from KADMIN_SASL_OAUTH_CLIENT_SECRET)"},
	{Name: "sasl_oauth_client_id", Type: NonEmptyStr(), Doc: "OAUTHBEARER: the client id for the client-credentials grant"},
	{Name: "sasl_oauth_scope", Type: NonEmptyStr(), Doc: "OAUTHBEARER: the scope asked for"},
	{Name: "sasl_kerberos_principal", Type: NonEmptyStr(), Doc: "GSSAPI: the client principal"},
	{Name: "sasl_kerberos_keytab", Type: NonEmptyStr(), Doc: "GSSAPI: a keytab file (else the ticket cache)"},
	{Name: "sasl_kerberos_service_name", Type: NonEmptyStr(), Doc: "GSSAPI: the brokers' service name (kafka)"},
	{Name: "sasl_kerberos_config", Type: NonEmptyStr(), Doc: "GSSAPI: krb5.conf"},
	{Name: "sasl_aws_profile", Type: NonEmptyStr(), Doc: "AWS_MSK_IAM: the AWS profile (else the standard credential chain)"},
	{Name: "sasl_aws_role_arn", Type: NonEmptyStr(), Doc: "AWS_MSK_IAM: a role to assume"},
	{Name: "tls", Type: Bool(), Doc: "connect with TLS"},
	{Name: "tls_ca", Type: NonEmptyStr(), Doc: "CA certificate file (PEM); implies tls"},
	{Name: "tls_cert", Type: NonEmptyStr(), Doc: "client certificate file (PEM); implies tls"},
	{Name: "tls_key", Type: NonEmptyStr(), Doc: "client key file (PEM)"},
	{Name: "tls_server_name", Type: NonEmptyStr(), Doc: "the name the brokers' certificates must have"},
	{Name: "tls_insecure_skip_verify", Type: Bool(), Doc: "do not verify the brokers' certificates (tests only)"},
	{Name: "tls_truststore", Type: NonEmptyStr(), Doc: "a JKS or PKCS12 trust store (password from KADMIN_TLS_TRUSTSTORE_PASSWORD); implies tls"},
	{Name: "tls_truststore_type", Type: Enum("JKS", "PKCS12", "PEM"), Doc: "the trust store's type (else read from the file)"},
	{Name: "tls_keystore", Type: NonEmptyStr(), Doc: "a JKS or PKCS12 key store (password from KADMIN_TLS_KEYSTORE_PASSWORD); implies tls"},
	{Name: "tls_keystore_type", Type: Enum("JKS", "PKCS12", "PEM"), Doc: "the key store's type (else read from the file)"},
	{Name: "schema_registry", Type: NonEmptyStr(), Doc: "the cluster's Schema Registry URL (password from KADMIN_SCHEMA_REGISTRY_PASSWORD with schema_registry_user, else a bearer token from KADMIN_SCHEMA_REGISTRY_TOKEN)"},
	{Name: "schema_registry_user", Type: NonEmptyStr(), Doc: "the Schema Registry's basic-auth user"},
	{Name: "schema_registry_ca", Type: NonEmptyStr(), Doc: "CA certificate file (PEM) to verify the Schema Registry with"},
	{Name: "schema_registry_cert", Type: NonEmptyStr(), Doc: "client certificate file (PEM) for the Schema Registry"},
	{Name: "schema_registry_key", Type: NonEmptyStr(), Doc: "client key file (PEM) for the Schema Registry"},
}

// libConnect makes a client. Credentials belong to one cluster
// (internal/clientconfig/credentials.go): kafka.connect{} is the default
// cluster with the default client's credentials; brokers= names another
// cluster, reached with no credentials unless the call names them (sasl_*,
// tls_cert, command_config) or a profile whose brokers include every seed.
func (r *Runtime) libConnect(c *Call) int {
	L := c.L
	str := func(name string) string { return param[string](c, name) }
	cfg := r.opts.Config
	var pcBrokers []string // the profile's own brokers
	profile := str("profile")
	if profile != "" {
		if r.opts.Resolve == nil {
			return libError(L, "kafka.connect", argErr("profile", "profiles are not configured"))
		}
		pc, err := r.opts.Resolve(profile)
		if err != nil {
			return libError(L, "kafka.connect", err)
		}
		cfg, pcBrokers = pc, pc.Brokers
	}
	own, err := ownCredentials(c)
	if err != nil {
		return libError(L, "kafka.connect", err)
	}
	var seeds []string
	for _, b := range param[[]string](c, "brokers") {
		seeds = append(seeds, clientconfig.SplitList(b)...)
	}
	if !c.Given("brokers") {
		seeds = own.Brokers // the command_config's bootstrap.servers, if any
	}
	if len(seeds) > 0 {
		if profile != "" && cfg.HasCredentials() && !own.HasCredentials() && !clientconfig.BrokersWithin(seeds, cfg.Brokers) {
			return libError(L, "kafka.connect", argErr("brokers", "%s is not among profile %q's brokers (%s), and its credentials go only to them: leave out brokers, or name the credentials for it (sasl_mechanism, sasl_username)",
				strings.Join(seeds, ","), profile, strings.Join(cfg.Brokers, ",")))
		}
		if profile == "" || !clientconfig.BrokersWithin(seeds, cfg.Brokers) {
			cfg = cfg.WithoutCredentials()
		}
		cfg.Brokers = seeds
	}
	if id := cmp.Or(str("client_id"), own.ClientID); id != "" {
		cfg.ClientID = id
	}
	if ms := param[int64](c, "timeout"); ms > 0 {
		cfg.Timeout = time.Duration(ms) * time.Millisecond
	}
	if own.SASL != nil || own.TLS != nil {
		// The call names the user, so the password is the one for users
		// named outside a profile: KADMIN_SASL_PASSWORD (or the file's).
		oc, err := own.Config(r.opts.Env, nil)
		if err != nil {
			return libError(L, "kafka.connect", err)
		}
		if own.SASL != nil {
			cfg.SASL = oc.SASL
		}
		if own.TLS != nil {
			cfg.TLS = oc.TLS
		}
	}
	// The registry goes with its cluster: another cluster named by brokers
	// has none unless the call (or its command_config) names one.
	if len(seeds) > 0 && !(profile != "" && clientconfig.BrokersWithin(seeds, pcBrokers)) {
		cfg.Registry = nil
	}
	if reg, err := connectRegistry(c, own); err != nil {
		return libError(L, "kafka.connect", err)
	} else if reg != nil {
		if cfg.Registry, err = (clientconfig.Profile{SchemaRegistry: reg}).RegistryConfig(r.opts.Env); err != nil {
			return libError(L, "kafka.connect", err)
		}
	}
	// The cluster's name in dry-run plans: the profile, or the default
	// cluster's when the call names no other.
	var cluster string
	switch {
	case profile != "" && (!c.Given("brokers") || clientconfig.BrokersWithin(cfg.Brokers, pcBrokers)):
		cluster = profile
	case profile == "" && !c.Given("brokers") && !c.Given("command_config"):
		cluster = r.opts.Cluster
	}
	if g := r.opts.ConnectGuard; g != nil {
		if err := g(cfg.Brokers); err != nil {
			return libError(L, "kafka.connect", err)
		}
	}
	h := r.newHandle(cfg, "connect", cluster)
	r.mu.Lock()
	r.clients = append(r.clients, h)
	r.mu.Unlock()
	L.Push(r.clientObject(h))
	return 1
}

// ownCredentials is what the call itself names: a client.properties file
// (command_config) under the sasl_* and tls_* options. Its secrets come
// from the file or from the KADMIN_* variables, never from the script; a
// token command cannot be given here (the sandbox runs no commands).
func ownCredentials(c *Call) (clientconfig.Profile, error) {
	str := func(name string) string { return param[string](c, name) }
	var own clientconfig.Profile
	if file := str("command_config"); file != "" {
		p, err := clientconfig.LoadClientProperties(file)
		if err != nil {
			return own, err
		}
		own = p
	}
	mech, user := str("sasl_mechanism"), str("sasl_username")
	if user != "" && mech == "" {
		return own, argErr("options", "sasl_username needs sasl_mechanism")
	}
	if mech != "" {
		s := &clientconfig.ProfileSASL{Mechanism: mech, Username: user}
		if c.Given("sasl_oauth_token_file") || c.Given("sasl_oauth_token_endpoint") {
			s.OAuth = &clientconfig.ProfileOAuth{TokenFile: str("sasl_oauth_token_file"),
				TokenEndpoint: str("sasl_oauth_token_endpoint"), ClientID: str("sasl_oauth_client_id"), Scope: str("sasl_oauth_scope")}
		}
		if c.Given("sasl_kerberos_principal") || c.Given("sasl_kerberos_keytab") || c.Given("sasl_kerberos_service_name") || c.Given("sasl_kerberos_config") {
			s.Kerberos = &clientconfig.ProfileKerberos{Principal: str("sasl_kerberos_principal"),
				Keytab: str("sasl_kerberos_keytab"), ServiceName: str("sasl_kerberos_service_name"), Krb5Conf: str("sasl_kerberos_config")}
		}
		if c.Given("sasl_aws_profile") || c.Given("sasl_aws_role_arn") {
			s.AWS = &clientconfig.ProfileAWS{Profile: str("sasl_aws_profile"), RoleARN: str("sasl_aws_role_arn")}
		}
		own = clientconfig.Overlay(own, clientconfig.Profile{SASL: s})
	}
	if param[bool](c, "tls") || c.Given("tls_ca") || c.Given("tls_cert") || c.Given("tls_truststore") || c.Given("tls_keystore") {
		t := &clientconfig.ProfileTLS{CAFile: str("tls_ca"), CertFile: str("tls_cert"), KeyFile: str("tls_key"),
			ServerName: str("tls_server_name"), InsecureSkipVerify: param[bool](c, "tls_insecure_skip_verify"),
			Truststore: str("tls_truststore"), TruststoreType: str("tls_truststore_type"),
			Keystore: str("tls_keystore"), KeystoreType: str("tls_keystore_type")}
		own = clientconfig.Overlay(own, clientconfig.Profile{TLS: t})
	}
	return own, nil
}

// connectRegistry is the registry the call names: schema_registry= with
// its schema_registry_* options, else its command_config's; nil when
// neither. Its secrets come from the KADMIN_SCHEMA_REGISTRY_* variables
// (or the file), never from the script.
func connectRegistry(c *Call, own clientconfig.Profile) (*clientconfig.ProfileRegistry, error) {
	str := func(name string) string { return param[string](c, name) }
	if !c.Given("schema_registry") {
		for _, k := range []string{"schema_registry_user", "schema_registry_ca", "schema_registry_cert", "schema_registry_key"} {
			if c.Given(k) {
				return nil, argErr("options", "%s needs schema_registry", k)
			}
		}
		return own.SchemaRegistry, nil
	}
	reg := &clientconfig.ProfileRegistry{URL: str("schema_registry"), Username: str("schema_registry_user")}
	if c.Given("schema_registry_ca") || c.Given("schema_registry_cert") || c.Given("schema_registry_key") {
		reg.TLS = &clientconfig.ProfileTLS{CAFile: str("schema_registry_ca"), CertFile: str("schema_registry_cert"), KeyFile: str("schema_registry_key")}
	}
	return reg, nil
}
