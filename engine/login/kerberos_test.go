package login

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testerr"
)

// fakeResolver answers reverse lookups from names and forward ones from
// addrs; anything else is not found.
type fakeResolver struct {
	names map[string][]string
	addrs map[string][]string
}

func (f fakeResolver) LookupAddr(_ context.Context, addr string) ([]string, error) {
	if n, ok := f.names[addr]; ok {
		return n, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (f fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	a, ok := f.addrs[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []net.IPAddr
	for _, s := range a {
		out = append(out, net.IPAddr{IP: net.ParseIP(s)})
	}
	return out, nil
}

// As Java's InetAddress.getHostName: names stay, addresses become the name
// they resolve back to when that name resolves to them.
func TestKerberosServiceHost(t *testing.T) {
	r := fakeResolver{
		names: map[string][]string{
			"127.0.0.1": {"localhost", "vm"},
			"10.0.0.5":  {"kafka-1.example.com."}, // DNS answers end with a dot
			"10.0.0.6":  {"spoofed.example.com."}, // a name that does not resolve back
			"10.0.0.7":  {},
			"::1":       {"ip6-localhost"},
			"10.0.0.8":  {"gone.example.com."},
		},
		addrs: map[string][]string{
			"localhost":           {"::1", "127.0.0.1"},
			"kafka-1.example.com": {"10.0.0.5"},
			"spoofed.example.com": {"10.9.9.9"},
			"ip6-localhost":       {"::1"},
			"kafka-2.example.com": {"10.0.0.9"},
		},
	}
	for host, want := range map[string]string{
		"127.0.0.1":           "localhost",
		"10.0.0.5":            "kafka-1.example.com",
		"10.0.0.6":            "10.0.0.6", // not confirmed: the address, as Java does
		"10.0.0.7":            "10.0.0.7",
		"10.0.0.8":            "10.0.0.8", // the name does not resolve
		"10.0.0.99":           "10.0.0.99",
		"::1":                 "ip6-localhost",
		"kafka-2.example.com": "kafka-2.example.com", // a name is never looked up
		"localhost":           "localhost",
	} {
		assert.Equal(t, want, serviceHost(context.Background(), r, host), host)
	}
}

func TestKerberosFilesAreCheckedBeforeDialing(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "krb5.conf")
	require.NoError(t, os.WriteFile(conf, []byte("[libdefaults]\n  default_realm = EXAMPLE.COM\n[realms]\n  EXAMPLE.COM = {\n    kdc = 127.0.0.1:1\n  }\n"), 0o600))
	for name, tc := range map[string]struct {
		k    KerberosConfig
		want string
	}{
		"missing keytab":    {KerberosConfig{Principal: "admin", Keytab: filepath.Join(dir, "admin.keytab"), Krb5Conf: conf}, "SASL GSSAPI: reading keytab"},
		"keytab, no user":   {KerberosConfig{Keytab: filepath.Join(dir, "admin.keytab"), Krb5Conf: conf}, "needs a principal"},
		"missing krb5.conf": {KerberosConfig{Principal: "admin", Keytab: "/x", Krb5Conf: filepath.Join(dir, "none.conf")}, "reading krb5.conf"},
		"missing ccache":    {KerberosConfig{CCache: filepath.Join(dir, "krb5cc_0"), Krb5Conf: conf}, "reading credential cache"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := (&SASLConfig{Mechanism: "GSSAPI", Kerberos: &tc.k}).Build()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, vocab.CodeInvalidArgument, testerr.As(t, err).Code)
		})
	}
}
