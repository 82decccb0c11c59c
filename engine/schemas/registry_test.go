package schemas

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testpki"
)

const avroOrder = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}`

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// counted serves h and counts the requests to it.
func counted(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	})
}

func code(t *testing.T, err error) string {
	t.Helper()
	require.Error(t, err)
	e, ok := err.(*vocab.Error)
	require.True(t, ok, "an engine error: %T %v", err, err)
	return e.Code
}

func TestURLWithCredentialsIsRefusedWithoutQuotingThem(t *testing.T) {
	_, err := New(Config{URLs: []string{"http://ops:hunter2@registry:8081"}})
	assert.Equal(t, vocab.CodeInvalidArgument, code(t, err))
	assert.NotContains(t, err.Error(), "hunter2")
	assert.Contains(t, err.Error(), "http://registry:8081")
	for _, bad := range []string{"registry:8081", "ftp://registry", "http://", "http://r:8081/?x=1"} {
		_, err := New(Config{URLs: []string{bad}})
		assert.Equal(t, vocab.CodeInvalidArgument, code(t, err), bad)
	}
	_, err = New(Config{URLs: []string{"http://r:8081"}, Username: "ops"})
	assert.Contains(t, err.Error(), "KADMIN_SCHEMA_REGISTRY_PASSWORD")
	_, err = New(Config{URLs: []string{"http://r:8081"}, Username: "ops", Password: "x", Token: "t"})
	assert.Contains(t, err.Error(), "not both")
}

func TestBasicAuthLogsIn(t *testing.T) {
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("ops:s3cret"))
	reg := srfake.New(srfake.WithAuth(want))
	t.Cleanup(reg.Close)
	reg.SeedSchema("orders-value", 1, 1, sr.Schema{Schema: avroOrder})

	r, err := New(Config{URLs: []string{reg.URL()}, Username: "ops", Password: "s3cret"})
	require.NoError(t, err)
	subs, err := r.Subjects(ctx(t), false)
	require.NoError(t, err)
	assert.Equal(t, []string{"orders-value"}, subs)

	wrong, err := New(Config{URLs: []string{reg.URL()}, Username: "ops", Password: "wrong-pass"})
	require.NoError(t, err)
	_, err = wrong.Subjects(ctx(t), false)
	assert.Equal(t, vocab.CodeAuth, code(t, err))
	assert.NotContains(t, err.Error(), "wrong-pass")
}

func TestBearerTokenLogsIn(t *testing.T) {
	reg := srfake.New(srfake.WithAuth("Bearer tok-123"))
	t.Cleanup(reg.Close)
	r, err := New(Config{URLs: []string{reg.URL()}, Token: "tok-123"})
	require.NoError(t, err)
	_, err = r.Subjects(ctx(t), false)
	require.NoError(t, err)
	anon, err := New(Config{URLs: []string{reg.URL()}})
	require.NoError(t, err)
	_, err = anon.Subjects(ctx(t), false)
	assert.Equal(t, vocab.CodeAuth, code(t, err))
}

func TestTLSWithAClientCertificate(t *testing.T) {
	pki := testpki.New(t)
	reg := srfake.NewRegistry()
	reg.SeedSchema("orders-value", 1, 1, sr.Schema{Schema: avroOrder})
	srv := httptest.NewUnstartedServer(reg.Handler())
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Server}, ClientCAs: pki.Pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	r, err := New(Config{URLs: []string{srv.URL}, TLS: &login.TLSConfig{CAFile: pki.CAFile, CertFile: pki.CertFile, KeyFile: pki.KeyFile}})
	require.NoError(t, err)
	subs, err := r.Subjects(ctx(t), false)
	require.NoError(t, err)
	assert.Equal(t, []string{"orders-value"}, subs)

	noCert, err := New(Config{URLs: []string{srv.URL}, TLS: &login.TLSConfig{CAFile: pki.CAFile}})
	require.NoError(t, err)
	_, err = noCert.Subjects(ctx(t), false)
	require.Error(t, err)
	untrusted, err := New(Config{URLs: []string{srv.URL}})
	require.NoError(t, err)
	_, err = untrusted.Subjects(ctx(t), false)
	assert.Equal(t, vocab.CodeTLS, code(t, err))
}

// A registry that redirects elsewhere is not followed: nothing (and no
// credential) reaches the other origin.
func TestRedirectToAnotherOriginIsNotFollowed(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(counted(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`[]`)) }), &elsewhere))
	t.Cleanup(other.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	r, err := New(Config{URLs: []string{redirecting.URL}, Username: "ops", Password: "s3cret"})
	require.NoError(t, err)
	_, err = r.SchemaByID(ctx(t), 7)
	assert.Equal(t, CodeBadResponse, code(t, err))
	assert.Contains(t, err.Error(), "not the configured registry")
	assert.Zero(t, elsewhere.Load())
}

func TestGarbageAndHugeAnswersAreErrors(t *testing.T) {
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>\x1b[31mnot a registry</html>"))
	}))
	t.Cleanup(garbage.Close)
	r, err := New(Config{URLs: []string{garbage.URL}})
	require.NoError(t, err)
	_, err = r.SchemaByID(ctx(t), 1)
	assert.Equal(t, CodeBadResponse, code(t, err))

	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		chunk := []byte(strings.Repeat("x", 1<<20))
		for range 64 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(huge.Close)
	r, err = New(Config{URLs: []string{huge.URL}})
	require.NoError(t, err)
	_, err = r.SchemaByID(ctx(t), 1)
	assert.Equal(t, CodeBadResponse, code(t, err))
	assert.Contains(t, err.Error(), "larger than")
}

// A registry that accepts connections and never answers ends the call at
// its deadline, as TIMEOUT.
func TestSilentRegistryTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	r, err := New(Config{URLs: []string{"http://" + ln.Addr().String()}, Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	c, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err = r.SchemaByID(c, 1)
	assert.Equal(t, vocab.CodeTimeout, code(t, err))
}

// A schema is asked for once per id, however many records carry it; a
// missing id is remembered too, a registry that is down is not.
func TestSchemaByIDIsFetchedOnce(t *testing.T) {
	reg := srfake.NewRegistry()
	reg.SeedSchema("orders-value", 1, 1, sr.Schema{Schema: avroOrder})
	var n atomic.Int64
	srv := httptest.NewServer(counted(reg.Handler(), &n))
	t.Cleanup(srv.Close)
	r, err := New(Config{URLs: []string{srv.URL}})
	require.NoError(t, err)
	for range 100 {
		s, err := r.SchemaByID(ctx(t), 1)
		require.NoError(t, err)
		assert.Equal(t, TypeAvro, s.Type)
	}
	assert.EqualValues(t, 1, n.Load())
	for range 10 {
		_, err := r.SchemaByID(ctx(t), 99)
		assert.Equal(t, "SCHEMA_NOT_FOUND", code(t, err))
	}
	assert.EqualValues(t, 2, n.Load())
}
