package login

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testerr"
)

func TestOAuthTokenSources(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	ctx := context.Background()

	t.Run("command rerun near expiry", func(t *testing.T) {
		counter := filepath.Join(dir, "n")
		// Prints a JWT whose exp is an hour after the test clock; counts runs.
		cmd := fmt.Sprintf(`echo x >> %s; echo %s`, counter, testJWT(map[string]any{"exp": now.Unix() + 3600}))
		ts := &tokenSource{cfg: &OAuthConfig{TokenCommand: cmd}, now: clock}
		runs := func() int { b, _ := os.ReadFile(counter); return bytes.Count(b, []byte("x")) }
		_, err := ts.get(ctx)
		require.NoError(t, err)
		now = now.Add(2879 * time.Second)
		_, err = ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, runs(), "cached before 80% of the lifetime")
		now = now.Add(2 * time.Second)
		_, err = ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, runs(), "run again after 80% of the lifetime")
	})
	t.Run("command printing a token response", func(t *testing.T) {
		ts := &tokenSource{cfg: &OAuthConfig{TokenCommand: `echo '{"access_token":"opaque","expires_in":10}'`}, now: clock}
		tok, err := ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, "opaque", tok)
		assert.Equal(t, now.Add(5*time.Second), ts.refreshAt, "a short token keeps half its life in hand")
	})
	t.Run("refresh points", func(t *testing.T) {
		assert.Equal(t, 48*time.Minute, refreshAfter(time.Hour, 0.8))
		assert.Equal(t, 5*time.Minute, refreshAfter(10*time.Minute, 0.8), "Kafka's 300 s buffer")
		assert.Equal(t, 2*time.Second, refreshAfter(4*time.Second, 0.8))
	})
	t.Run("failing command", func(t *testing.T) {
		ts := &tokenSource{cfg: &OAuthConfig{TokenCommand: `echo "vault: permission denied" >&2; exit 3`}, now: clock}
		_, err := ts.get(ctx)
		require.Error(t, err)
		assert.Equal(t, vocab.CodeAuth, testerr.As(t, err).Code)
		assert.Contains(t, err.Error(), "OAUTHBEARER: token command failed (exit status 3): vault: permission denied")
	})
	t.Run("file read at every login", func(t *testing.T) {
		f := filepath.Join(dir, "token")
		require.NoError(t, os.WriteFile(f, []byte("one\n"), 0o600))
		ts := &tokenSource{cfg: &OAuthConfig{TokenFile: f}, now: clock}
		tok, err := ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, "one", tok)
		require.NoError(t, os.WriteFile(f, []byte("two"), 0o600))
		tok, err = ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, "two", tok, "a rotated file is picked up")
	})
	t.Run("unsecured JWT as Kafka makes it", func(t *testing.T) {
		ts := &tokenSource{cfg: &OAuthConfig{UnsecuredClaims: map[string]string{"sub": "admin", "scope": "a b"}}, now: clock}
		tok, err := ts.get(ctx)
		require.NoError(t, err)
		parts := strings.Split(tok, ".")
		require.Len(t, parts, 3)
		assert.Empty(t, parts[2], "no signature")
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		require.NoError(t, err)
		var claims map[string]any
		require.NoError(t, json.Unmarshal(payload, &claims))
		assert.Equal(t, "admin", claims["sub"])
		assert.Equal(t, []any{"a", "b"}, claims["scope"])
		assert.InDelta(t, float64(now.Add(time.Hour).Unix()), claims["exp"], 1)
	})
	t.Run("configuration errors", func(t *testing.T) {
		for cfg, want := range map[*OAuthConfig]string{
			{}:                               "has no token",
			{Token: "a", TokenFile: "b"}:     "more than one token source",
			{TokenEndpoint: "https://idp/x"}: "needs a client id",
			{TokenEndpoint: "ftp://x", ClientID: "c"}:          "is not an http(s) URL",
			{UnsecuredClaims: map[string]string{"scope": "x"}}: "needs a subject",
		} {
			_, err := (&SASLConfig{Mechanism: "OAUTHBEARER", OAuth: cfg}).Build()
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
			assert.Equal(t, vocab.CodeInvalidArgument, testerr.As(t, err).Code)
		}
	})
}

// A token command runs with a minimal environment plus the variables its
// configuration names; a failing one's stderr reaches the error as one
// short line with the credentials in it hidden.
func TestOAuthTokenCommandEnvironmentAndErrors(t *testing.T) {
	ctx := context.Background()
	t.Setenv("OTHER_CLUSTER_PASSWORD", "other-pa55")
	t.Setenv("VAULT_TOKEN", "hvs.vault-secret-123")
	t.Setenv("VAULT_ADDR", "https://vault.example:8200")

	t.Run("minimal environment and named variables", func(t *testing.T) {
		cmd := `echo "{\"access_token\":\"$(env | sort | tr '\n' ' ')\"}"`
		tok, _, err := runTokenCommand(ctx, cmd, []string{"VAULT_TOKEN", "VAULT_ADDR", "NOT_SET_ANYWHERE"}, nil)
		require.NoError(t, err)
		assert.Contains(t, tok, "VAULT_TOKEN=hvs.vault-secret-123 ")
		assert.Contains(t, tok, "VAULT_ADDR=https://vault.example:8200 ")
		assert.Contains(t, tok, "PATH=")
		assert.NotContains(t, tok, "OTHER_CLUSTER_PASSWORD")
		assert.NotContains(t, tok, "NOT_SET_ANYWHERE")
		tok, _, err = runTokenCommand(ctx, `echo "[$VAULT_TOKEN][$OTHER_CLUSTER_PASSWORD]"`, nil, nil)
		require.NoError(t, err)
		assert.Equal(t, "[][]", tok, "nothing beyond the base set unless named")
	})

	t.Run("stderr summarized and redacted", func(t *testing.T) {
		for name, tc := range map[string]struct {
			stderr string
			want   string
			hidden []string
		}{
			"named variable's value": {`echo "denied for token $VAULT_TOKEN" >&2`, "denied for token ***", []string{"hvs.vault-secret-123"}},
			"secret assignment":      {`echo "login failed: password=hunter22 user=ops" >&2`, "login failed: password=*** user=ops", []string{"hunter22"}},
			"bearer and JWT": {`echo "Authorization: Bearer abc.def-ghi rejected, got eyJhbGciOi.eyJzdWIiOiJ4In0.c2ln" >&2`,
				"Authorization: Bearer *** rejected, got ***", []string{"abc.def-ghi", "eyJzdWIiOiJ4In0"}},
			"URL credentials": {`echo "GET https://ops:s3cret@idp.example/token?client_secret=zz9 failed" >&2`,
				"GET https://***@idp.example/token?client_secret=*** failed", []string{"s3cret", "zz9"}},
			"first line only": {`echo "" >&2; echo "  first problem  " >&2; echo "second secret-line" >&2; echo third >&2`,
				"first problem (2 more stderr lines not shown)", []string{"second"}},
		} {
			t.Run(name, func(t *testing.T) {
				_, _, err := runTokenCommand(ctx, tc.stderr+"; exit 2", []string{"VAULT_TOKEN"}, nil)
				require.Error(t, err)
				assert.Equal(t, vocab.CodeAuth, testerr.As(t, err).Code)
				assert.Equal(t, "OAUTHBEARER: token command failed (exit status 2): "+tc.want, testerr.As(t, err).Message)
				for _, h := range tc.hidden {
					assert.NotContains(t, err.Error(), h)
				}
			})
		}
		_, _, err := runTokenCommand(ctx, `head -c 5000 /dev/zero | tr '\0' 'x' >&2; exit 1`, nil, nil)
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 300, "length-capped")
		assert.Contains(t, err.Error(), "xxx...")
	})

	t.Run("endpoint URLs redacted", func(t *testing.T) {
		o := &OAuthConfig{TokenEndpoint: "https://kadmin:pa55@idp.example/oauth2/token?api_key=k3y#frag", ClientID: "c"}
		assert.Equal(t, "token endpoint https://***@idp.example/oauth2/token?api_key=***", o.Source())
		o.HTTPClient = &http.Client{Timeout: time.Second}
		o.TokenEndpoint = "http://kadmin:pa55@127.0.0.1:1/oauth2/token?api_key=k3y"
		_, _, err := o.clientCredentials(ctx)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "token endpoint http://***@127.0.0.1:1/oauth2/token?api_key=***: ")
		bad := &OAuthConfig{TokenEndpoint: "ftp://kadmin:pa55@idp.example/t", ClientID: "c"}
		_, err = (&SASLConfig{Mechanism: "OAUTHBEARER", OAuth: bad}).Build()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "ftp://***@idp.example/t is not an http(s) URL")
		for _, e := range []string{o.Source(), err.Error()} {
			assert.NotContains(t, e, "pa55")
			assert.NotContains(t, e, "k3y")
		}
	})
}

// A token file that is not a regular file is refused at the login, at
// once, naming the file (internal/boundedfile).
func TestOAuthTokenFileMustBeRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "token")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, path := range []string{fifo, "/dev/zero", t.TempDir()} {
		ts := &tokenSource{cfg: &OAuthConfig{TokenFile: path}, now: time.Now}
		_, err := ts.get(context.Background())
		require.Error(t, err)
		assert.Equal(t, vocab.CodeAuth, testerr.As(t, err).Code)
		assert.Contains(t, err.Error(), "reading token file: read "+path+": is ")
		assert.Contains(t, err.Error(), "not a regular file")
	}
}

func testJWT(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString(b) + "."
}
