package main

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
)

// loginRegistry is an in-memory Schema Registry on loopback that records
// the Authorization header of every request, and lets in only want.
type loginRegistry struct {
	*srfake.Registry
	URL  string
	mu   sync.Mutex
	seen []string
}

func newLoginRegistry(t *testing.T, want string) *loginRegistry {
	t.Helper()
	lr := &loginRegistry{Registry: srfake.NewRegistry()}
	lr.SeedSchema("orders-value", 1, 1, sr.Schema{Schema: `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}`})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		lr.mu.Lock()
		lr.seen = append(lr.seen, got)
		lr.mu.Unlock()
		if want != "" && got != want {
			http.Error(w, `{"error_code":401,"message":"Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		lr.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	lr.URL = srv.URL
	return lr
}

func (lr *loginRegistry) logins() []string {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(lr.seen)))
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// The registry comes from --schema-registry, else KADMIN_SCHEMA_REGISTRY_URL;
// its password from KADMIN_SCHEMA_REGISTRY_PASSWORD, never shown.
func TestSchemaRegistryFromTheFlagAndTheEnvironment(t *testing.T) {
	c := newCluster(t)
	reg := newLoginRegistry(t, basic("ops", "sr-s3cret"))
	cli := newCLI(t)
	cli.env[clientconfig.RegistryURLEnv] = reg.URL
	cli.env[clientconfig.RegistryPasswordEnv] = "sr-s3cret"
	require.Equal(t, 0, cli.run("-b", c.addrs, "--schema-registry-user", "ops", "-o", "json", "-e", "list_subjects()"), cli.stderr.String())
	assert.JSONEq(t, `[{"subject":"orders-value","deleted":false}]`, cli.stdout.String())

	other := newLoginRegistry(t, "")
	require.Equal(t, 0, cli.run("-b", c.addrs, "--schema-registry", other.URL, "-e", "list_subjects()"), cli.stderr.String())
	assert.Equal(t, []string{""}, other.logins(), "the flag's registry, named without a user, gets no credential")

	cli.env[clientconfig.RegistryPasswordEnv] = "wrong-s3cret"
	assert.Equal(t, ExitKafka, cli.run("-b", c.addrs, "--schema-registry-user", "ops", "--verbose", "-e", "list_subjects()"))
	assert.Contains(t, cli.stderr.String(), "AUTH")
	assert.NotContains(t, cli.stderr.String()+cli.stdout.String(), "wrong-s3cret")

	delete(cli.env, clientconfig.RegistryURLEnv)
	assert.Equal(t, ExitUsage, cli.run("-b", c.addrs, "--schema-registry-user", "ops", "-e", "1"), "a user with no registry")
}

// A profile's registry credentials go to its registry only: a registry
// named on the command line does not get them.
func TestProfileRegistryCredentialsStayWithIt(t *testing.T) {
	c := newCluster(t)
	mine := newLoginRegistry(t, basic("ops", "prof-pw"))
	elsewhere := newLoginRegistry(t, "")
	cli := newCLI(t)
	cfg := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"default_profile": "p", "profiles": {"p": {"brokers": ["`+c.ListenAddrs()[0]+`"],
		"schema_registry": {"url": "`+mine.URL+`", "username": "ops", "password_env": "P_SR_PW"}}}}`), 0o600))
	cli.env["P_SR_PW"] = "prof-pw"
	require.Equal(t, 0, cli.run("--config", cfg, "-e", "list_subjects()"), cli.stderr.String())
	assert.Equal(t, []string{basic("ops", "prof-pw")}, mine.logins())

	require.Equal(t, 0, cli.run("--config", cfg, "--schema-registry", elsewhere.URL, "-e", "list_subjects()"), cli.stderr.String())
	assert.Equal(t, []string{""}, elsewhere.logins())
}

// register_schema is audited: the intent names the registry and the
// schema, never the registry's password.
func TestRegisterSchemaIsAuditedWithoutTheRegistrysPassword(t *testing.T) {
	c := newCluster(t)
	reg := newLoginRegistry(t, basic("ops", "audit-s3cret"))
	cli := newCLI(t)
	cli.env[clientconfig.RegistryPasswordEnv] = "audit-s3cret"
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	require.Equal(t, 0, cli.run("-b", c.addrs, "--schema-registry", reg.URL, "--schema-registry-user", "ops", "--audit-log", log,
		"-e", `register_schema("new-value", [[{"type":"record","name":"N","fields":[{"name":"n","type":"long"}]}]])`), cli.stderr.String())
	assert.Equal(t, "2\n", cli.stdout.String())
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"op":"register_schema"`)
	assert.Contains(t, string(b), reg.URL)
	assert.NotContains(t, string(b), "audit-s3cret")
	_, found := reg.GetSchema("new-value", 1)
	assert.True(t, found)
}

func TestEmbeddedClusterHasARegistry(t *testing.T) {
	cli := newCLI(t)
	require.Equal(t, 0, cli.run("--embedded", "-e", "list_subjects()[1].subject"), cli.stderr.String())
	assert.Equal(t, "orders-value\n", cli.stdout.String())
}

func TestRegistrySecretsAreSealed(t *testing.T) {
	assert.Contains(t, startSecrets, clientconfig.RegistryPasswordEnv)
	assert.Contains(t, startSecrets, clientconfig.RegistryTokenEnv)
}
