package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/internal/testkdc"
)

// gssapiBroker makes a kfake broker accept GSSAPI as Kafka does: it
// verifies the client's AP-REQ with the service keytab, sends a wrap token
// sealed with the ticket's session key, and takes the client's wrap token
// back (RFC 4752). It records who logged in to which service principal
// ("admin@REALM to kafka/localhost"). While *forge is set it seals its
// wrap token with a key of its own instead of the session key.
func gssapiBroker(t *testing.T, serviceKeytab string, forge *atomic.Bool) (*kfake.Cluster, func() []string) {
	kt, err := keytab.Load(serviceKeytab)
	require.NoError(t, err)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "krb"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	var mu sync.Mutex
	var who []string
	c.ControlKey(int16(kmsg.SASLHandshake), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.SASLHandshakeRequest)
		return &kmsg.SASLHandshakeResponse{Version: req.Version, SupportedMechanisms: []string{"GSSAPI"}}, nil, true
	})
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.SASLAuthenticateRequest)
		resp := &kmsg.SASLAuthenticateResponse{Version: req.Version}
		fail := func(err error) (kmsg.Response, error, bool) {
			resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
			msg := err.Error()
			resp.ErrorMessage = &msg
			return resp, nil, true
		}
		b := req.SASLAuthBytes
		if len(b) > 0 && b[0] != 0x60 { // the client's wrap token: done
			var wt gssapi.WrapToken
			if err := wt.Unmarshal(b, false); err != nil {
				return fail(err)
			}
			return resp, nil, true
		}
		// 0x60 len OID(11 bytes) 0x01 0x00 AP-REQ
		i := bytes.Index(b, []byte{6, 9, 42, 134, 72, 134, 247, 18, 1, 2, 2})
		if i < 0 || len(b) < i+13 {
			return fail(fmt.Errorf("not a Kerberos GSS token"))
		}
		var apreq messages.APReq
		if err := apreq.Unmarshal(b[i+13:]); err != nil {
			return fail(err)
		}
		ok, creds, err := service.VerifyAPREQ(&apreq, service.NewSettings(kt, service.DecodePAC(false)))
		if !ok {
			return fail(fmt.Errorf("AP-REQ refused: %v", err))
		}
		key := apreq.Ticket.DecryptedEncPart.Key
		if forge.Load() {
			key.KeyValue = bytes.Repeat([]byte{7}, len(key.KeyValue))
		}
		et, err := crypto.GetEtype(key.KeyType)
		if err != nil {
			return fail(err)
		}
		wt := gssapi.WrapToken{Flags: 0x01, EC: uint16(et.GetHMACBitLength() / 8), Payload: []byte{1, 0, 0, 0}}
		if err := wt.SetCheckSum(key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
			return fail(err)
		}
		out, err := wt.Marshal()
		if err != nil {
			return fail(err)
		}
		mu.Lock()
		who = append(who, creds.UserName()+"@"+creds.Domain()+" to "+apreq.Ticket.SName.PrincipalNameString())
		mu.Unlock()
		resp.SASLAuthBytes = out
		return resp, nil, true
	})
	return c, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), who...) }
}

// TestKerberosAgainstAnMITKDC: the service ticket is for the broker's host
// name as a Java client finds it (login.ServiceHost: 127.0.0.1 is asked for by
// its name, kafka/localhost on most machines), and every failure is an AUTH
// error naming GSSAPI.
func TestKerberosAgainstAnMITKDC(t *testing.T) {
	kdc := testkdc.New(t)
	adminKeytab := kdc.AddPrincipal(t, "admin")
	host := login.ServiceHost(context.Background(), "127.0.0.1")
	t.Logf("127.0.0.1 is asked for as kafka/%s", host)
	var forge atomic.Bool
	broker, who := gssapiBroker(t, kdc.AddPrincipal(t, "kafka/"+host), &forge)
	connect := func(k *login.KerberosConfig) error {
		k.Krb5Conf = kdc.Krb5Conf
		return listTopicsWith(t, Config{Brokers: broker.ListenAddrs(), Timeout: 5 * time.Second,
			SASL: &login.SASLConfig{Mechanism: "GSSAPI", Kerberos: k}})
	}
	// authFailure checks err is an AUTH error whose message (after the
	// mechanism, as the CLI and Lua show it) starts with want.
	authFailure := func(t *testing.T, err error, want string) {
		t.Helper()
		require.Error(t, err)
		e := AsError(err, "")
		assert.Equal(t, CodeAuth, e.Code, "%v", err)
		assert.False(t, e.Retriable)
		assert.True(t, strings.HasPrefix(e.Message, "GSSAPI: "+want), e.Message)
		// As the CLI and Lua show it: the mechanism once, after the code.
		named := WithMechanism(err, "GSSAPI").Error()
		assert.True(t, strings.HasPrefix(named, "AUTH (GSSAPI): "+want), named)
	}

	t.Run("keytab", func(t *testing.T) {
		require.NoError(t, connect(&login.KerberosConfig{Principal: "admin", Keytab: adminKeytab}))
		assert.Contains(t, who(), "admin@"+testkdc.Realm+" to kafka/"+host)
	})
	t.Run("ticket cache filled by kinit", func(t *testing.T) {
		cache := kdc.Kinit(t, "admin", adminKeytab)
		require.NoError(t, connect(&login.KerberosConfig{CCache: cache}))
		require.NoError(t, connect(&login.KerberosConfig{CCache: "FILE:" + cache, Principal: "admin@" + testkdc.Realm}))
		// A cache for someone else is a wrong credential, refused before
		// any broker is dialed.
		err := connect(&login.KerberosConfig{CCache: cache, Principal: "someone-else"})
		authFailure(t, err, "credential cache "+cache+" holds admin@"+testkdc.Realm+", not someone-else")
	})
	t.Run("a keytab that is not the principal's", func(t *testing.T) {
		authFailure(t, connect(&login.KerberosConfig{Principal: "nobody", Keytab: adminKeytab}), "logging in as nobody with keytab")
	})
	t.Run("another service name", func(t *testing.T) {
		// The KDC knows no kafka-other/<host>: refused at the KDC, before
		// the broker is asked.
		err := connect(&login.KerberosConfig{Principal: "admin", Keytab: adminKeytab, ServiceName: "kafka-other"})
		authFailure(t, err, "getting a ticket for kafka-other/"+host+": ")
		assert.Contains(t, err.Error(), "KDC_ERR_S_PRINCIPAL_UNKNOWN")
	})
	t.Run("a broker whose reply does not verify", func(t *testing.T) {
		forge.Store(true)
		defer forge.Store(false)
		authFailure(t, connect(&login.KerberosConfig{Principal: "admin", Keytab: adminKeytab}), "the broker's reply does not verify")
	})
}
