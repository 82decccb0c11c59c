package engine

import (
	"context"
	"strings"
	"sync"

	krbclient "github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"
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
		return nil, Errorf(CodeInvalidArgument, "", "SASL GSSAPI needs a krb5.conf (set KRB5_CONFIG, or krb5_conf in the profile)")
	}
	conf, err := krbconfig.Load(k.Krb5Conf)
	if err != nil {
		return nil, Errorf(CodeInvalidArgument, k.Krb5Conf, "SASL GSSAPI: reading krb5.conf: %v", err)
	}
	settings := []func(*krbclient.Settings){krbclient.DisablePAFXFAST(true)}
	svc := k.service()
	if k.Keytab != "" {
		if k.Principal == "" {
			return nil, Errorf(CodeInvalidArgument, k.Keytab, "SASL GSSAPI with a keytab needs a principal (principal= in Krb5LoginModule)")
		}
		kt, err := keytab.Load(k.Keytab)
		if err != nil {
			return nil, Errorf(CodeInvalidArgument, k.Keytab, "SASL GSSAPI: reading keytab: %v", err)
		}
		user, realm := splitPrincipal(k.Principal, conf.LibDefaults.DefaultRealm)
		if realm == "" {
			return nil, Errorf(CodeInvalidArgument, k.Krb5Conf, "SASL GSSAPI: principal %s has no realm and krb5.conf has no default_realm", k.Principal)
		}
		var once sync.Once
		var cl *krbclient.Client
		return kerberos.Kerberos(func(context.Context) (kerberos.Auth, error) {
			once.Do(func() { cl = krbclient.NewWithKeytab(user, realm, kt, conf, settings...) })
			if err := cl.AffirmLogin(); err != nil {
				return kerberos.Auth{}, authErr("GSSAPI", "logging in as %s with keytab %s: %v", k.Principal, k.Keytab, err)
			}
			return kerberos.Auth{Client: cl, Service: svc, PersistAfterAuth: true}, nil
		}), nil
	}
	if k.CCache == "" {
		return nil, Errorf(CodeInvalidArgument, "", "SASL GSSAPI needs a keytab or a credential cache (KRB5CCNAME, or run kinit)")
	}
	if _, err := k.loadCCache(conf, settings); err != nil {
		return nil, Errorf(CodeInvalidArgument, k.CCache, "%s", err.Message)
	}
	return kerberos.Kerberos(func(context.Context) (kerberos.Auth, error) {
		cl, err := k.loadCCache(conf, settings)
		if err != nil {
			return kerberos.Auth{}, err
		}
		// Not persisted: each login reads the cache again, and the
		// mechanism destroys this client after it.
		return kerberos.Auth{Client: cl, Service: svc}, nil
	}), nil
}

func (k *KerberosConfig) loadCCache(conf *krbconfig.Config, settings []func(*krbclient.Settings)) (*krbclient.Client, *Error) {
	cc, err := credentials.LoadCCache(strings.TrimPrefix(k.CCache, "FILE:"))
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
