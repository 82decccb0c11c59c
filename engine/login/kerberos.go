package login

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	krbclient "github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// KerberosConfig logs in with GSSAPI (Kerberos), from a keytab or from a
// credential cache that kinit filled.
type KerberosConfig struct {
	// ServiceName is the brokers' Kerberos service (Kafka's
	// sasl.kerberos.service.name); default "kafka". The ticket asked for is
	// ServiceName/<broker host>.
	ServiceName string
	// Principal is user[/instance][@REALM]; the realm defaults to
	// krb5.conf's default_realm. Needed with a keytab; with a credential
	// cache it must match the cache's principal when set.
	Principal string
	// Keytab logs in with the principal's key, renewing tickets as needed.
	Keytab string
	// CCache is the credential cache used when there is no keytab; it is
	// read again at every login, so a new kinit is picked up.
	CCache string
	// Krb5Conf is the krb5.conf file (realms and KDCs).
	Krb5Conf string
}

func (k *KerberosConfig) service() string {
	if k.ServiceName != "" {
		return k.ServiceName
	}
	return "kafka"
}

// mechanism checks every file now, so a missing keytab or krb5.conf is
// reported before any broker is dialed.
func (k *KerberosConfig) mechanism() (sasl.Mechanism, error) {
	if k.Krb5Conf == "" {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL GSSAPI needs a krb5.conf (set KRB5_CONFIG, or krb5_conf in the profile)")
	}
	conf, err := loadKrb5Conf(k.Krb5Conf)
	if err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, k.Krb5Conf, "SASL GSSAPI: reading krb5.conf: %v", err)
	}
	settings := []func(*krbclient.Settings){krbclient.DisablePAFXFAST(true)}
	svc := k.service()
	if k.Keytab != "" {
		if k.Principal == "" {
			return nil, vocab.Errorf(vocab.CodeInvalidArgument, k.Keytab, "SASL GSSAPI with a keytab needs a principal (principal= in Krb5LoginModule)")
		}
		kt, err := loadKeytab(k.Keytab)
		if err != nil {
			return nil, vocab.Errorf(vocab.CodeInvalidArgument, k.Keytab, "SASL GSSAPI: reading keytab: %v", err)
		}
		user, realm := splitPrincipal(k.Principal, conf.LibDefaults.DefaultRealm)
		if realm == "" {
			return nil, vocab.Errorf(vocab.CodeInvalidArgument, k.Krb5Conf, "SASL GSSAPI: principal %s has no realm and krb5.conf has no default_realm", k.Principal)
		}
		var once sync.Once
		var cl *krbclient.Client
		return newGSSAPI(svc, kerberos.Kerberos(func(context.Context) (kerberos.Auth, error) {
			once.Do(func() { cl = krbclient.NewWithKeytab(user, realm, kt, conf, settings...) })
			if err := cl.AffirmLogin(); err != nil {
				return kerberos.Auth{}, authErr("GSSAPI", "logging in as %s with keytab %s: %v", k.Principal, k.Keytab, err)
			}
			return kerberos.Auth{Client: cl, Service: svc, PersistAfterAuth: true}, nil
		})), nil
	}
	if k.CCache == "" {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL GSSAPI needs a keytab or a credential cache (KRB5CCNAME, or run kinit)")
	}
	// A cache that cannot be read is a setting to fix, as a missing keytab
	// is; one holding another principal or no usable ticket is a wrong
	// credential, refused as a login is (AUTH, naming GSSAPI).
	if _, err := readCCache(k.CCache); err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, k.CCache, "GSSAPI: reading credential cache %s: %v (run kinit, or use a keytab)", k.CCache, err)
	}
	if _, err := k.loadCCache(conf, settings); err != nil {
		return nil, err
	}
	return newGSSAPI(svc, kerberos.Kerberos(func(context.Context) (kerberos.Auth, error) {
		cl, err := k.loadCCache(conf, settings)
		if err != nil {
			return kerberos.Auth{}, err
		}
		// Not persisted: each login reads the cache again, and the
		// mechanism destroys this client after it.
		return kerberos.Auth{Client: cl, Service: svc}, nil
	})), nil
}

// gssapiMech is franz-go's GSSAPI mechanism as Kafka's Java client uses it
// (SaslChannelBuilder): the service ticket is for service/<host>, where
// host is the broker's host name as given, but an IP address is first
// resolved back to its host name (InetAddress.getHostName). So a broker
// listed as 127.0.0.1 is asked for as kafka/localhost, the principal a
// Java client asks for from the same client.properties. It also makes every
// failure of the login an AUTH error naming GSSAPI (a KDC that knows no
// such service, a broker reply that does not verify), never an unknown
// error.
type gssapiMech struct {
	service  string
	inner    sasl.Mechanism
	resolver hostResolver
}

// hostResolver is net.Resolver's part serviceHost uses; tests fake it.
type hostResolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

func newGSSAPI(service string, inner sasl.Mechanism) *gssapiMech {
	return &gssapiMech{service: service, inner: inner, resolver: net.DefaultResolver}
}

func (g *gssapiMech) Name() string { return "GSSAPI" }

func (g *gssapiMech) Authenticate(ctx context.Context, addr string) (sasl.Session, []byte, error) {
	if host, port, err := net.SplitHostPort(addr); err == nil {
		addr = net.JoinHostPort(serviceHost(ctx, g.resolver, host), port)
	}
	s, first, err := g.inner.Authenticate(ctx, addr)
	if err != nil {
		if e := (*vocab.Error)(nil); errors.As(err, &e) {
			return nil, nil, err // the login's own error (authErr)
		}
		host, _, _ := net.SplitHostPort(addr)
		return nil, nil, authErr("GSSAPI", "getting a ticket for %s/%s: %v", g.service, host, err)
	}
	return gssapiSession{s}, first, nil
}

type gssapiSession struct{ sasl.Session }

func (s gssapiSession) Challenge(resp []byte) (bool, []byte, error) {
	done, out, err := s.Session.Challenge(resp)
	if err != nil {
		return false, nil, authErr("GSSAPI", "the broker's reply does not verify: %v", err)
	}
	return done, out, nil
}

// ServiceHost is serviceHost through the system's resolver: the host a
// GSSAPI login to a broker at host asks a ticket for (kafka/<host>).
func ServiceHost(ctx context.Context, host string) string {
	return serviceHost(ctx, net.DefaultResolver, host)
}

// serviceHost is the host of the broker's service principal for a broker
// at host, as Java's InetAddress.getHostName finds it: a host name as it
// is; an IP address resolved to its first name, kept only when that name
// resolves back to the address (else, or when nothing answers within 5 s,
// the address itself).
func serviceHost(ctx context.Context, r hostResolver, host string) string {
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	names, err := r.LookupAddr(ctx, host)
	if err != nil || len(names) == 0 {
		return host
	}
	name := strings.TrimSuffix(names[0], ".")
	addrs, err := r.LookupIPAddr(ctx, name)
	if err != nil {
		return host
	}
	for _, a := range addrs {
		if a.IP.Equal(ip) {
			return name
		}
	}
	return host
}

// loadKrb5Conf, loadKeytab and readCCache are gokrb5's loaders on bounded
// reads of regular files.
func loadKrb5Conf(path string) (*krbconfig.Config, error) {
	b, err := boundedfile.Read(path, boundedfile.Credentials)
	if err != nil {
		return nil, err
	}
	return krbconfig.NewFromString(string(b))
}

func loadKeytab(path string) (*keytab.Keytab, error) {
	b, err := boundedfile.Read(path, boundedfile.Credentials)
	if err != nil {
		return nil, err
	}
	kt := keytab.New()
	if err := kt.Unmarshal(b); err != nil {
		return nil, err
	}
	return kt, nil
}

func readCCache(name string) (*credentials.CCache, error) {
	b, err := boundedfile.Read(strings.TrimPrefix(name, "FILE:"), boundedfile.Credentials)
	if err != nil {
		return nil, err
	}
	cc := new(credentials.CCache)
	if err := cc.Unmarshal(b); err != nil {
		return nil, err
	}
	return cc, nil
}

func (k *KerberosConfig) loadCCache(conf *krbconfig.Config, settings []func(*krbclient.Settings)) (*krbclient.Client, *vocab.Error) {
	cc, err := readCCache(k.CCache)
	if err != nil {
		return nil, authErr("GSSAPI", "reading credential cache %s: %v (run kinit, or use a keytab)", k.CCache, err)
	}
	if k.Principal != "" {
		user, realm := splitPrincipal(k.Principal, conf.LibDefaults.DefaultRealm)
		name := cc.GetClientPrincipalName().PrincipalNameString()
		if name != user || cc.GetClientRealm() != realm {
			return nil, authErr("GSSAPI", "credential cache %s holds %s@%s, not %s", k.CCache, name, cc.GetClientRealm(), k.Principal)
		}
	}
	cl, err := krbclient.NewFromCCache(cc, conf, settings...)
	if err != nil {
		return nil, authErr("GSSAPI", "credential cache %s: %v (run kinit again?)", k.CCache, err)
	}
	return cl, nil
}

// splitPrincipal splits user/instance@REALM; the realm defaults to def.
func splitPrincipal(p, def string) (user, realm string) {
	if i := strings.LastIndexByte(p, '@'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, def
}
