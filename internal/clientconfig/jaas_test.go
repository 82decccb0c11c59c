package clientconfig

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

func load(t *testing.T, props string) (Profile, error) {
	t.Helper()
	return LoadClientProperties(writeTemp(t, "client.properties", props))
}

func TestClientPropertiesOAuthClientCredentials(t *testing.T) {
	p, err := load(t, `security.protocol=SASL_SSL
sasl.mechanism=OAUTHBEARER
sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler
sasl.oauthbearer.token.endpoint.url=https://idp.example.com/oauth2/token
sasl.login.refresh.window.factor=0.9
sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
  clientId="kadmin" clientSecret="s3cr3t" scope="kafka.admin" extension_logicalCluster="lkc-1";
`)
	require.NoError(t, err)
	require.NotNil(t, p.SASL.OAuth)
	o := p.SASL.OAuth
	assert.Equal(t, "OAUTHBEARER", p.SASL.Mechanism)
	assert.Equal(t, "https://idp.example.com/oauth2/token", o.TokenEndpoint)
	assert.Equal(t, "kadmin", o.ClientID)
	assert.Equal(t, "s3cr3t", o.ClientSecret.Reveal())
	assert.Equal(t, "kafka.admin", o.Scope)
	assert.Equal(t, map[string]string{"logicalCluster": "lkc-1"}, o.Extensions)
	assert.Equal(t, 0.9, o.RefreshFactor)
	assert.NotContains(t, fmt.Sprintf("%v %+v", p, *o), "s3cr3t", "the client secret never prints")
	assert.True(t, p.HasCredentials())

	cfg, err := p.Config(func(string) string { return "from-env" }, nil)
	require.NoError(t, err)
	assert.Equal(t, "s3cr3t", cfg.SASL.OAuth.ClientSecret.Reveal(), "the file's secret beats the environment")
	assert.NotNil(t, cfg.TLS)
}

func TestClientPropertiesOAuthVariants(t *testing.T) {
	const module = "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
	t.Run("Kafka 4.1 client credential properties", func(t *testing.T) {
		p, err := load(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"+module+";\n"+
			"sasl.oauthbearer.token.endpoint.url=http://localhost:1/token\nsasl.oauthbearer.client.credentials.client.id=cid\n"+
			"sasl.oauthbearer.client.credentials.client.secret=csec\nsasl.oauthbearer.scope=s1 s2\n")
		require.NoError(t, err)
		assert.Equal(t, "cid", p.SASL.OAuth.ClientID)
		assert.Equal(t, "csec", p.SASL.OAuth.ClientSecret.Reveal())
		assert.Equal(t, "s1 s2", p.SASL.OAuth.Scope)
	})
	t.Run("file token endpoint", func(t *testing.T) {
		p, err := load(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"+module+";\n"+
			"sasl.oauthbearer.token.endpoint.url=file:///var/run/secrets/token\n")
		require.NoError(t, err)
		assert.Equal(t, "/var/run/secrets/token", p.SASL.OAuth.TokenFile)
	})
	t.Run("unsecured", func(t *testing.T) {
		p, err := load(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"+module+
			` unsecuredLoginStringClaim_sub="admin" unsecuredLoginLifetimeSeconds="60" unsecuredLoginExtension_traceId="t1";`+"\n")
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"sub": "admin"}, p.SASL.OAuth.UnsecuredClaims)
		assert.Equal(t, time.Minute, p.SASL.OAuth.UnsecuredLifetime)
		assert.Equal(t, map[string]string{"traceId": "t1"}, p.SASL.OAuth.Extensions)
		cfg, err := p.Config(func(string) string { return "" }, nil)
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"sub": "admin"}, cfg.SASL.OAuth.UnsecuredClaims)
	})
	t.Run("Strimzi's client handler", func(t *testing.T) {
		const strimzi = "security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n" +
			"sasl.login.callback.handler.class=io.strimzi.kafka.oauth.client.JaasClientOauthLoginCallbackHandler\n"
		p, err := load(t, strimzi+module+` oauth.token.endpoint.uri="https://sso/token" oauth.client.id="kadmin" oauth.client.secret="st-secret" oauth.scope="kafka";`+"\n")
		require.NoError(t, err)
		assert.Equal(t, "https://sso/token", p.SASL.OAuth.TokenEndpoint)
		assert.Equal(t, "kadmin", p.SASL.OAuth.ClientID)
		assert.Equal(t, "st-secret", p.SASL.OAuth.ClientSecret.Reveal())
		assert.Equal(t, "kafka", p.SASL.OAuth.Scope)

		p, err = load(t, strimzi+module+` oauth.access.token="static-tok";`+"\n")
		require.NoError(t, err)
		cfg, err := p.Config(func(string) string { return "" }, nil)
		require.NoError(t, err)
		assert.Equal(t, "static-tok", cfg.SASL.OAuth.Token.Reveal())

		p, err = load(t, strimzi+module+` oauth.access.token.location="/run/token";`+"\n")
		require.NoError(t, err)
		assert.Equal(t, "/run/token", p.SASL.OAuth.TokenFile)

		_, err = load(t, strimzi+module+` oauth.token.endpoint.uri="https://sso/token" oauth.refresh.token="r-secret";`+"\n")
		require.ErrorContains(t, err, "oauth.refresh.token and the password grant are not supported")
		assert.NotContains(t, err.Error(), "r-secret")
	})
	t.Run("token from the environment", func(t *testing.T) {
		p, err := load(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"+module+";\n")
		require.NoError(t, err)
		cfg, err := p.Config(func(k string) string { return map[string]string{OAuthTokenEnv: "tok"}[k] }, nil)
		require.NoError(t, err)
		assert.Equal(t, "tok", cfg.SASL.OAuth.Token.Reveal())
		_, err = p.Config(func(string) string { return "" }, nil)
		require.ErrorContains(t, err, "SASL OAUTHBEARER has no token: set KADMIN_SASL_OAUTH_TOKEN")
	})
}

func TestClientPropertiesKerberos(t *testing.T) {
	p, err := load(t, `security.protocol=SASL_PLAINTEXT
sasl.mechanism=GSSAPI
sasl.kerberos.service.name=kafka-svc
sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true \
  keyTab="/etc/security/keytabs/admin.keytab" principal="admin/host@EXAMPLE.COM";
`)
	require.NoError(t, err)
	assert.Equal(t, &ProfileKerberos{ServiceName: "kafka-svc", Principal: "admin/host@EXAMPLE.COM",
		Keytab: "/etc/security/keytabs/admin.keytab"}, p.SASL.Kerberos)
	cfg, err := p.Config(func(k string) string { return map[string]string{"KRB5_CONFIG": "/k/krb5.conf"}[k] }, nil)
	require.NoError(t, err)
	assert.Equal(t, &login.KerberosConfig{ServiceName: "kafka-svc", Principal: "admin/host@EXAMPLE.COM",
		Keytab: "/etc/security/keytabs/admin.keytab", Krb5Conf: "/k/krb5.conf"}, cfg.SASL.Kerberos)

	// The ticket cache: sasl.mechanism unset is Java's default, GSSAPI.
	p, err = load(t, "security.protocol=SASL_PLAINTEXT\n"+
		`sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true;`+"\n")
	require.NoError(t, err)
	cfg, err = p.Config(func(k string) string { return map[string]string{"KRB5CCNAME": "/tmp/cc"}[k] }, nil)
	require.NoError(t, err)
	assert.Equal(t, &login.KerberosConfig{CCache: "/tmp/cc", Krb5Conf: "/etc/krb5.conf"}, cfg.SASL.Kerberos)
}

func TestClientPropertiesAWS(t *testing.T) {
	p, err := load(t, `bootstrap.servers=b-1.msk.kafka.eu-west-1.amazonaws.com:9098
security.protocol=SASL_SSL
sasl.mechanism=AWS_MSK_IAM
sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName="ops" \
  awsRoleArn="arn:aws:iam::123456789012:role/kafka-admin" awsRoleSessionName="kadmin" awsStsRegion="eu-west-1" awsDebugCreds=true;
sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler
`)
	require.NoError(t, err)
	assert.Equal(t, &ProfileAWS{Profile: "ops", RoleARN: "arn:aws:iam::123456789012:role/kafka-admin", RoleSessionName: "kadmin",
		STSRegion: "eu-west-1"}, p.SASL.AWS)
	cfg, err := p.Config(func(string) string { return "" }, nil)
	require.NoError(t, err)
	assert.Equal(t, "AWS_MSK_IAM", cfg.SASL.Mechanism)
	assert.Equal(t, &login.AWSConfig{Profile: "ops", RoleARN: "arn:aws:iam::123456789012:role/kafka-admin",
		RoleSessionName: "kadmin", STSRegion: "eu-west-1"}, cfg.SASL.AWS)
}

func TestClientPropertiesKeyStores(t *testing.T) {
	p, err := load(t, `security.protocol=SSL
ssl.truststore.location=/s/truststore.jks
ssl.truststore.password=trust-pw
ssl.keystore.location=/s/keystore.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=store-pw
ssl.key.password=key-pw
`)
	require.NoError(t, err)
	assert.Equal(t, "/s/truststore.jks", p.TLS.Truststore)
	assert.Equal(t, "", p.TLS.TruststoreType, "recognized from the file, as Java does")
	assert.True(t, p.HasCredentials(), "a key store is a client certificate")
	assert.NotContains(t, fmt.Sprintf("%v %+v", p, *p.TLS), "-pw")
	cfg, err := p.Config(func(string) string { return "" }, nil)
	require.NoError(t, err)
	assert.Equal(t, &login.KeyStore{File: "/s/truststore.jks", Password: "trust-pw"}, cfg.TLS.TrustStore)
	assert.Equal(t, &login.KeyStore{File: "/s/keystore.p12", Type: "PKCS12", Password: "store-pw", KeyPassword: "key-pw"}, cfg.TLS.KeyStore)

	bare := p.WithoutCredentials()
	assert.False(t, bare.HasCredentials())
	assert.Equal(t, "/s/truststore.jks", bare.TLS.Truststore, "trust is not a credential")
	assert.Empty(t, bare.TLS.KeystorePassword)
}

func TestClientPropertiesSASLRefusalsNameTheProperty(t *testing.T) {
	const oauth = "security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n"
	for name, tc := range map[string]struct{ props, want string }{
		"unknown mechanism": {"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-1\n", "sasl.mechanism SCRAM-SHA-1 is not supported"},
		"module mismatch": {"security.protocol=SASL_SSL\nsasl.mechanism=AWS_MSK_IAM\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2";`, "uses PlainLoginModule but sasl.mechanism is AWS_MSK_IAM"},
		"custom handler": {oauth + "sasl.login.callback.handler.class=com.example.MyHandler\n", "sasl.login.callback.handler.class com.example.MyHandler is a Java class"},
		"endpoint without client": {oauth + "sasl.oauthbearer.token.endpoint.url=https://idp/token\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientSecret="hunter2";`, "has no clientId"},
		"jwt bearer retriever": {oauth + "sasl.oauthbearer.jwt.retriever.class=org.apache.kafka.common.security.oauthbearer.JwtBearerJwtRetriever\n", "sasl.oauthbearer.jwt.retriever.class"},
		"keytab without path": {"security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n" +
			`sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true principal="a@B";`, "no keyTab"},
		"kerberos password": {"security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n" +
			`sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required principal="a@B";`, "cannot prompt"},
		"msk handler": {"security.protocol=SASL_SSL\nsasl.mechanism=AWS_MSK_IAM\nsasl.client.callback.handler.class=com.example.X\n", "sasl.client.callback.handler.class com.example.X"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, tc.props)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func TestProfileJSONNewMechanisms(t *testing.T) {
	cf, err := ParseConfigFile("config.json", []byte(`{"profiles": {
		"oauth": {"brokers": ["o:9093"], "sasl": {"mechanism": "OAUTHBEARER",
			"oauth": {"token_endpoint": "https://idp/token", "client_id": "kadmin", "client_secret_env": "IDP_SECRET", "scope": "kafka"}}},
		"krb": {"brokers": ["k:9093"], "sasl": {"mechanism": "GSSAPI",
			"kerberos": {"principal": "admin@EXAMPLE.COM", "keytab": "/k/admin.keytab", "krb5_conf": "/k/krb5.conf"}}},
		"msk": {"brokers": ["m:9098"], "sasl": {"mechanism": "AWS_MSK_IAM", "aws": {"profile": "ops", "role_arn": "arn:r"}},
			"tls": {"truststore": "/t.p12", "truststore_type": "PKCS12", "keystore": "/k.jks", "keystore_password_env": "KS_PW"}}
	}}`))
	require.NoError(t, err)
	env := func(k string) string {
		return map[string]string{"IDP_SECRET": "idp-secret", "KS_PW": "ks-pw", KeyPasswordEnv: "key-pw", TruststorePasswordEnv: "ts-pw"}[k]
	}
	p, err := cf.Profile("oauth")
	require.NoError(t, err)
	cfg, err := p.Config(env, nil)
	require.NoError(t, err)
	assert.Equal(t, "idp-secret", cfg.SASL.OAuth.ClientSecret.Reveal())
	assert.Equal(t, "https://idp/token", cfg.SASL.OAuth.TokenEndpoint)

	p, err = cf.Profile("krb")
	require.NoError(t, err)
	cfg, err = p.Config(env, nil)
	require.NoError(t, err)
	assert.Equal(t, "/k/admin.keytab", cfg.SASL.Kerberos.Keytab)
	assert.Equal(t, "/k/krb5.conf", cfg.SASL.Kerberos.Krb5Conf)

	p, err = cf.Profile("msk")
	require.NoError(t, err)
	cfg, err = p.Config(env, nil)
	require.NoError(t, err)
	assert.Equal(t, "arn:r", cfg.SASL.AWS.RoleARN)
	assert.Equal(t, &login.KeyStore{File: "/t.p12", Type: "PKCS12", Password: "ts-pw"}, cfg.TLS.TrustStore)
	assert.Equal(t, &login.KeyStore{File: "/k.jks", Password: "ks-pw", KeyPassword: "key-pw"}, cfg.TLS.KeyStore)

	// Secrets are never written in the file.
	for _, key := range []string{"client_secret", "token", "truststore_password"} {
		_, err = ParseConfigFile("config.json", []byte(`{"profiles": {"p": {"sasl": {"oauth": {"`+key+`": "x"}}}}}`))
		if key == "truststore_password" {
			_, err = ParseConfigFile("config.json", []byte(`{"profiles": {"p": {"tls": {"`+key+`": "x"}}}}`))
		}
		require.Error(t, err, key)
		assert.Contains(t, err.Error(), `profiles cannot hold secrets: set "`+key+`_env"`)
	}
}

func TestOverlayMovesTokenLoginsAsAUnit(t *testing.T) {
	profile := Profile{Brokers: []string{"p:1"}, SASL: &ProfileSASL{Mechanism: "OAUTHBEARER",
		OAuth: &ProfileOAuth{TokenEndpoint: "https://idp/token", ClientID: "prod", ClientSecretEnv: "PROD_SECRET"}}}
	got := Overlay(profile, Profile{SASL: &ProfileSASL{Mechanism: "AWS_MSK_IAM", AWS: &ProfileAWS{Profile: "x"}}})
	assert.Equal(t, &ProfileSASL{Mechanism: "AWS_MSK_IAM", AWS: &ProfileAWS{Profile: "x"}}, got.SASL, "nothing of the OAuth login stays")
	assert.False(t, SameCredentials(profile, got))
	assert.True(t, SameCredentials(profile, Overlay(profile, Profile{SASL: &ProfileSASL{Mechanism: "OAUTHBEARER"}})))
	assert.True(t, Profile{SASL: &ProfileSASL{Mechanism: "AWS_MSK_IAM"}}.HasCredentials(), "the AWS chain's credentials are credentials")
}
