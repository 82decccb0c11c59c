// Package testkdc runs a real MIT Kerberos KDC (Debian's krb5-kdc and
// krb5-admin-server) for one test, on a free loopback port, in a realm of
// its own. Principals and keytabs are made with kadmin.local and tickets
// caches with kinit, as an operator would.
//
// A test that needs it calls New, which skips the test with the reason when
// the tools are missing, unless the environment variable CI is set: there it
// fails, since .ci/run installs them.
package testkdc

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Realm is the test KDC's realm, krb5.conf's default_realm.
const Realm = "KADMIN.TEST"

// Tools are the programs New needs, by the Debian package holding them.
var tools = map[string]string{
	"krb5kdc":      "krb5-kdc",
	"kdb5_util":    "krb5-kdc",
	"kadmin.local": "krb5-admin-server",
	"kinit":        "krb5-user",
}

// KDC is a running krb5kdc with its database, in Dir.
type KDC struct {
	Dir      string
	Krb5Conf string   // the clients' krb5.conf: default_realm Realm, the KDC over TCP
	Env      []string // the test process's environment with KRB5_CONFIG (and the KDC's profile) set
	Port     int      // the KDC's TCP port on 127.0.0.1

	mu    sync.Mutex // serialises kadmin.local and the file names
	tools map[string]string
	seq   int
}

// Missing names the Kerberos tools that are not installed, with their
// Debian packages, or returns "".
func Missing() string {
	var miss []string
	for _, name := range []string{"krb5kdc", "kdb5_util", "kadmin.local", "kinit"} {
		if _, err := lookTool(name); err != nil {
			miss = append(miss, fmt.Sprintf("%s (%s)", name, tools[name]))
		}
	}
	return strings.Join(miss, ", ")
}

func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := "/usr/sbin/" + name // kdb5_util, krb5kdc, kadmin.local are not on a user's PATH
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// New creates a realm and starts its KDC; t.Cleanup stops it. It skips t
// (fails it when CI is set) when a Kerberos tool is missing.
func New(t testing.TB) *KDC {
	t.Helper()
	if miss := Missing(); miss != "" {
		msg := "Kerberos tools not installed: " + miss + "; the KDC test needs them (apt-get install krb5-kdc krb5-admin-server krb5-user)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; .ci/run installs them") // CI must not pass by skipping
		}
		t.Skip(msg)
	}
	k := &KDC{Dir: t.TempDir(), tools: map[string]string{}}
	for name := range tools {
		k.tools[name], _ = lookTool(name)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	k.Port = l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	k.Krb5Conf = filepath.Join(k.Dir, "krb5.conf")
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(k.Dir, name), []byte(content), 0o600))
	}
	write("krb5.conf", fmt.Sprintf(`[libdefaults]
  default_realm = %[1]s
  dns_lookup_kdc = false
  dns_lookup_realm = false
  udp_preference_limit = 1
  default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
  default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
  permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
[realms]
  %[1]s = {
    kdc = 127.0.0.1:%[2]d
  }
`, Realm, k.Port))
	write("kdc.conf", fmt.Sprintf(`[kdcdefaults]
  kdc_ports = %[2]d
  kdc_tcp_ports = %[2]d
[realms]
  %[1]s = {
    database_name = %[3]s/principal
    key_stash_file = %[3]s/stash
    acl_file = %[3]s/kadm5.acl
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
    max_life = 1h
  }
[logging]
  kdc = FILE:%[3]s/kdc.log
`, Realm, k.Port, k.Dir))
	write("kadm5.acl", "")
	k.Env = append(os.Environ(), "KRB5_CONFIG="+k.Krb5Conf, "KRB5_KDC_PROFILE="+filepath.Join(k.Dir, "kdc.conf"))
	k.run(t, "kdb5_util", "-r", Realm, "-P", "master-pw", "create", "-s")
	kdc := exec.Command(k.tools["krb5kdc"], "-n", "-r", Realm)
	kdc.Env = k.Env
	out, err := os.Create(filepath.Join(k.Dir, "krb5kdc.out"))
	require.NoError(t, err)
	defer out.Close() // the child has its own copy
	kdc.Stdout, kdc.Stderr = out, out
	require.NoError(t, kdc.Start())
	t.Cleanup(func() { _ = kdc.Process.Kill(); _ = kdc.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", k.Port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(out.Name())
			t.Fatalf("krb5kdc did not listen on 127.0.0.1:%d: %v\n%s\n%s", k.Port, err, b, k.Log())
		}
	}
	return k
}

func (k *KDC) run(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(k.tools[name], args...)
	cmd.Env = k.Env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v: %s", name, args, out)
}

// AddPrincipal creates principal (user or service/host, in Realm) with a
// random key and returns a new keytab holding it.
func (k *KDC) AddPrincipal(t testing.TB, principal string) (keytab string) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.run(t, "kadmin.local", "-r", Realm, "-q", "addprinc -randkey "+principal)
	return k.ktadd(t, principal)
}

// Rekey gives principal a new random key (its key version goes up) and
// returns a new keytab holding it: keytabs made before hold a key the KDC
// no longer accepts.
func (k *KDC) Rekey(t testing.TB, principal string) (keytab string) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ktadd(t, principal) // ktadd without -norandkey makes a new key
}

func (k *KDC) ktadd(t testing.TB, principal string) string {
	k.seq++
	kt := filepath.Join(k.Dir, fmt.Sprintf("%s-%d.keytab", strings.NewReplacer("/", "_", "@", "_").Replace(principal), k.seq))
	k.run(t, "kadmin.local", "-r", Realm, "-q", "ktadd -k "+kt+" "+principal)
	return kt
}

// Kinit logs principal in with keytab, as `kinit -k -t`, into a new
// credential cache file and returns its path (without the FILE: prefix).
func (k *KDC) Kinit(t testing.TB, principal, keytab string) (ccache string) {
	t.Helper()
	k.mu.Lock()
	k.seq++
	ccache = filepath.Join(k.Dir, fmt.Sprintf("krb5cc_%d", k.seq))
	k.mu.Unlock()
	if !strings.Contains(principal, "@") {
		principal += "@" + Realm
	}
	k.run(t, "kinit", "-k", "-t", keytab, "-c", "FILE:"+ccache, principal)
	return ccache
}

// Log is what the KDC logged: the requests it answered and refused.
func (k *KDC) Log() string {
	b, _ := os.ReadFile(filepath.Join(k.Dir, "kdc.log"))
	return string(b)
}
