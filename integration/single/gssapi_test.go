package single

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
	"github.com/kadmin-lua/kadmin-lua/internal/testkdc"
)

// TestGSSAPI starts a real MIT KDC on loopback (internal/testkdc) and one
// more node whose GSSAPI listener logs in with the service principal
// kafka/<host>, host being 127.0.0.1's name as a Java client finds it
// (kafka/localhost on most machines). The principal kadmin is a super user;
// alice (mapped to User:alice by Kafka's DEFAULT rules) has no rights until
// an ACL gives her some. kadmin-lua logs in from a keytab and from a
// ticket cache filled by kinit, through client.properties, the
// --sasl-mechanism flag and kafka.connect, and does real admin work, checked
// through the node's PLAINTEXT listener; Kafka's TopicCommand reads the same
// client.properties. Wrong credentials exit 3 naming GSSAPI, with no key
// material in the output.
func TestGSSAPI(t *testing.T) {
	need(t)
	kdc := testkdc.New(t) // skips, printing why, without the krb5 packages (fails under CI)
	host := javaHostName(t, "127.0.0.1")
	t.Logf("the broker's service principal: kafka/%s@%s", host, testkdc.Realm)
	brokerKeytab := kdc.AddPrincipal(t, "kafka/"+host)
	kadminKeytab := kdc.AddPrincipal(t, "kadmin")
	aliceKeytab := kdc.AddPrincipal(t, "alice")
	staleKeytab := kdc.AddPrincipal(t, "rotated")
	kdc.Rekey(t, "rotated") // staleKeytab now holds a key the KDC no longer has
	krb5Env := "KRB5_CONFIG=" + kdc.Krb5Conf

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel) // after the parallel subtests
	start := time.Now()
	c, err := kafkatest.StartSingleWith(ctx, kafkatest.Extra{Kerberos: &kafkatest.KerberosListener{
		Krb5Conf: kdc.Krb5Conf, Principal: "kafka/" + host + "@" + testkdc.Realm, Keytab: brokerKeytab,
		SuperUsers: []string{"kadmin"},
	}})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- kafka node log tail ---\n%s\n--- KDC log ---\n%s", c.LogTail(1, 40), kdc.Log())
		}
		c.Close()
	})
	t.Logf("node with a GSSAPI listener at %s started in %s", c.KerberosBootstrap(), time.Since(start).Round(100*time.Millisecond))

	// props writes a client.properties for the GSSAPI listener with this
	// Krb5LoginModule configuration.
	props := func(t *testing.T, login string) string {
		f := filepath.Join(t.TempDir(), "client.properties")
		require.NoError(t, os.WriteFile(f, []byte(fmt.Sprintf(`bootstrap.servers=%s
security.protocol=SASL_PLAINTEXT
sasl.mechanism=GSSAPI
sasl.kerberos.service.name=kafka
sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required %s;
`, c.KerberosBootstrap(), login)), 0o600))
		return f
	}
	withKeytab := func(t *testing.T, principal, kt string) string {
		return props(t, fmt.Sprintf(`useKeyTab=true storeKey=true keyTab="%s" principal="%s@%s"`, kt, principal, testkdc.Realm))
	}
	run := func(t *testing.T, env []string, args ...string) kafkatest.BinResult {
		t.Helper()
		return kafkatest.RunBinary(ctx, t, bin, append([]string{krb5Env}, env...), "", append([]string{"--timeout", "20s"}, args...)...)
	}
	// adminWork creates a topic through kadmin-lua run with args, checks
	// it through the node's PLAINTEXT listener, and deletes it again.
	adminWork := func(t *testing.T, env []string, args ...string) {
		t.Helper()
		topic := unique("gss")
		r := run(t, env, append(args, "-o", "json", "-e", fmt.Sprintf(`return create_topics{{name = %q, partitions = 2}}`, topic))...)
		require.Equal(t, 0, r.Code, r.Stderr)
		var created []struct {
			Name       string `json:"name"`
			Partitions int    `json:"partitions"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &created), r.Stdout)
		require.Len(t, created, 1)
		assert.Equal(t, topic, created[0].Name)
		assert.Equal(t, 2, created[0].Partitions)
		waitTopicIn(t, c, topic, 2)
		r = run(t, env, append(args, "-e", fmt.Sprintf(`delete_topics{%q}`, topic))...)
		require.Equal(t, 0, r.Code, r.Stderr)
		waitTopicIn(t, c, topic, gone)
	}

	t.Run("logins", func(t *testing.T) { // side by side; returns when all have ended
		t.Run("keytab in client.properties", func(t *testing.T) {
			t.Parallel()
			adminWork(t, nil, "--command-config", withKeytab(t, "kadmin", kadminKeytab))
		})
		t.Run("ticket cache in client.properties", func(t *testing.T) {
			t.Parallel()
			cache := kdc.Kinit(t, "kadmin", kadminKeytab)
			adminWork(t, []string{"KRB5CCNAME=FILE:" + cache}, "--command-config", props(t, "useTicketCache=true"))
		})
		t.Run("--sasl-mechanism GSSAPI with the ticket cache", func(t *testing.T) {
			t.Parallel()
			cache := kdc.Kinit(t, "kadmin", kadminKeytab)
			adminWork(t, []string{"KRB5CCNAME=" + cache},
				"-b", c.KerberosBootstrap(), "--sasl-mechanism", "GSSAPI", "--sasl-username", "kadmin")
		})
		t.Run("kafka.connect with a keytab", func(t *testing.T) {
			t.Parallel()
			topic := unique("gss-connect")
			// The default client is the PLAINTEXT listener's (ANONYMOUS, a super user).
			r := runtimeWith(t, engine.Config{Brokers: c.Brokers(), Timeout: 20 * time.Second}, map[string]string{})
			r.Run(fmt.Sprintf(`local k = kafka.connect{brokers = %q, sasl_mechanism = "GSSAPI",
	sasl_kerberos_principal = "kadmin", sasl_kerberos_keytab = %q, sasl_kerberos_config = %q}
k:create_topics{{name = %q, partitions = 3}}`, c.KerberosBootstrap(), kadminKeytab, kdc.Krb5Conf, topic))
			waitTopicIn(t, c, topic, 3)
			r.Run(fmt.Sprintf(`delete_topics{%q}`, topic))
			waitTopicIn(t, c, topic, gone)
		})
		t.Run("Kafka's TopicCommand with the same client.properties", func(t *testing.T) {
			t.Parallel()
			cfg := withKeytab(t, "kadmin", kadminKeytab)
			topic := unique("gss-java")
			out, err := c.RunJava(ctx, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", c.KerberosBootstrap(),
				"--command-config", cfg, "--create", "--topic", topic, "--partitions", "3", "--replication-factor", "1")
			require.NoError(t, err, "TopicCommand: %s", out)
			// kadmin-lua, with the file Java read, sees the topic once the broker has it.
			r := run(t, nil, "--command-config", cfg, "-e", fmt.Sprintf(`for i = 1, 200 do
	local ok, d = pcall(describe_topics, %q)
	if ok then delete_topics{%[1]q}; return #d[1].partitions end
	kafka.sleep(100)
end`, topic))
			require.Equal(t, 0, r.Code, r.Stderr)
			assert.Equal(t, "3\n", r.Stdout)
			waitTopicIn(t, c, topic, gone)
		})
		t.Run("alice needs an ACL", func(t *testing.T) {
			t.Parallel()
			cfg := withKeytab(t, "alice", aliceKeytab)
			prefix := unique("gss-alice") + "-"
			r := run(t, nil, "--command-config", cfg, "-e", fmt.Sprintf(`create_topics{%q}`, prefix+"refused"))
			assert.Equal(t, 3, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, "TOPIC_AUTHORIZATION_FAILED")
			// Kafka maps alice@REALM to User:alice: ACLs for that user let her
			// create (kadmin-lua reads a topic's state before changing it,
			// which takes DESCRIBE).
			admin := runtimeWith(t, engine.Config{Brokers: c.Brokers(), Timeout: 20 * time.Second}, map[string]string{})
			admin.Run(fmt.Sprintf(`create_acls{
	{principal = "User:alice", operation = "create", resource_type = "topic", resource_name = %[1]q, pattern_type = "prefixed"},
	{principal = "User:alice", operation = "describe", resource_type = "topic", resource_name = %[1]q, pattern_type = "prefixed"},
}`, prefix))
			// The broker applies ACLs from the metadata log: kadmin-lua retries until it has.
			topic := prefix + "granted"
			r = run(t, nil, "--command-config", cfg, "-e", fmt.Sprintf(`for i = 1, 200 do
	local ok, err = pcall(create_topics, %q)
	if ok then return "created" end
	if err.code ~= "TOPIC_AUTHORIZATION_FAILED" then error(err) end
	kafka.sleep(100)
end
error("still refused after 20 s")`, topic))
			require.Equal(t, 0, r.Code, r.Stderr)
			assert.Equal(t, "created\n", r.Stdout)
			waitTopicIn(t, c, topic, 1)
		})

		t.Run("a keytab with an old key", func(t *testing.T) {
			t.Parallel()
			r := run(t, nil, "--command-config", withKeytab(t, "rotated", staleKeytab), "-e", `return #list_topics()`)
			assert.Equal(t, 3, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, "kadmin-lua: list_topics: AUTH (GSSAPI): logging in as rotated@"+testkdc.Realm)
			assert.Contains(t, r.Stderr, "keytab incorrect") // the KDC's answer did not decrypt with the old key
			assert.NotContains(t, r.Stderr, "TIMEOUT")
			noKeysIn(t, r, staleKeytab)
		})
		t.Run("a principal the KDC does not know", func(t *testing.T) {
			t.Parallel()
			r := run(t, nil, "--command-config", withKeytab(t, "nobody", kadminKeytab), "-e", `return #list_topics()`)
			assert.Equal(t, 3, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, "kadmin-lua: list_topics: AUTH (GSSAPI): logging in as nobody@"+testkdc.Realm)
			assert.Contains(t, r.Stderr, "C_PRINCIPAL_UNKNOWN")
			noKeysIn(t, r, kadminKeytab)
		})
		t.Run("a ticket cache for someone else", func(t *testing.T) {
			t.Parallel()
			cache := kdc.Kinit(t, "alice", aliceKeytab)
			r := run(t, []string{"KRB5CCNAME=FILE:" + cache},
				"-b", c.KerberosBootstrap(), "--sasl-mechanism", "GSSAPI", "--sasl-username", "kadmin", "-e", `return #list_topics()`)
			assert.Equal(t, 3, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, "kadmin-lua: list_topics: AUTH (GSSAPI): credential cache FILE:"+cache+" holds alice@"+testkdc.Realm+", not kadmin")
		})
	})

	// Last, as it spoils the node's logins: the broker's key changes at the
	// KDC, so clients get tickets the broker (holding the old key) cannot
	// read, and the real broker refuses them.
	t.Run("the broker refuses a ticket it cannot read", func(t *testing.T) {
		kdc.Rekey(t, "kafka/"+host)
		r := run(t, nil, "--command-config", withKeytab(t, "kadmin", kadminKeytab), "-e", `return #list_topics()`)
		assert.Equal(t, 3, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "kadmin-lua: list_topics: SASL_AUTHENTICATION_FAILED (GSSAPI): ")
		assert.NotContains(t, r.Stderr, "TIMEOUT")
		noKeysIn(t, r, kadminKeytab)
		noKeysIn(t, r, brokerKeytab)
	})
}

// noKeysIn checks that none of keytab kt's keys shows in r's output, in
// the forms a key could be printed in.
func noKeysIn(t *testing.T, r kafkatest.BinResult, kt string) {
	t.Helper()
	k, err := keytab.Load(kt)
	require.NoError(t, err)
	raw, err := os.ReadFile(kt)
	require.NoError(t, err)
	out := r.Stdout + r.Stderr
	assert.NotContains(t, out, string(raw))
	require.NotEmpty(t, k.Entries)
	for _, e := range k.Entries {
		v := e.Key.KeyValue
		for _, form := range []string{string(v), hex.EncodeToString(v), strings.ToUpper(hex.EncodeToString(v)),
			base64.StdEncoding.EncodeToString(v), fmt.Sprint(v)} {
			assert.NotContains(t, out, form)
		}
	}
}

// javaHostName is what Kafka's Java client puts in the service principal
// for a broker at the address ip (InetAddress.getHostName): the name the
// address resolves back to, when that name resolves to it.
func javaHostName(t *testing.T, ip string) string {
	names, err := net.LookupAddr(ip)
	if err != nil || len(names) == 0 {
		return ip
	}
	name := strings.TrimSuffix(names[0], ".")
	addrs, err := net.LookupHost(name)
	if err != nil {
		t.Logf("%s resolves to %s, which does not resolve: %v", ip, name, err)
		return ip
	}
	for _, a := range addrs {
		if net.ParseIP(a).Equal(net.ParseIP(ip)) {
			return name
		}
	}
	return ip
}
