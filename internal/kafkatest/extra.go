package kafkatest

import (
	"context"
	"net"
	"strconv"
	"strings"
)

// The extra client listeners and features a single test node can have
// (StartSingleWith), and their addresses.

// TLSListener is the SSL client listener of StartSingleTLS: the broker's
// key store and the trust store it checks client certificates against
// (JKS or PKCS12 files, as keytool makes them).
type TLSListener struct {
	KeyStore, KeyStoreType, KeyStorePassword       string
	TrustStore, TrustStoreType, TrustStorePassword string
}

// KerberosListener is the GSSAPI client listener of StartSingleWith: the
// broker logs in to the KDC with its service principal's keytab, as Kafka's
// documentation sets it up.
type KerberosListener struct {
	// Krb5Conf is the krb5.conf naming the KDC, the broker JVM's (and
	// RunJava's) -Djava.security.krb5.conf.
	Krb5Conf string
	// Principal is the broker's service principal, service/host@REALM:
	// clients ask the KDC for a ticket to service/<the broker's host name>
	// (Kafka's Java client reverse-resolves an IP address to its host
	// name, so for 127.0.0.1 that is kafka/localhost). Its service part is
	// sasl.kerberos.service.name.
	Principal string
	// Keytab holds Principal's key.
	Keytab string
	// SuperUsers, when set, turn on the StandardAuthorizer on the node,
	// with these users (Kerberos principals map to their first component,
	// Kafka's DEFAULT sasl.kerberos.principal.to.local.rules, when in the
	// krb5.conf's default realm) and ANONYMOUS (the PLAINTEXT listeners'
	// clients) as super users; other principals have no rights until
	// given ACLs.
	SuperUsers []string
}

// Extra are the client listeners StartSingleWith adds.
type Extra struct {
	// TLS: an SSL listener with client authentication required
	// (ssl.client.auth=required); TLSBootstrap is its address.
	TLS *TLSListener
	// JWKS: a SASL_PLAINTEXT listener for OAUTHBEARER alone whose tokens
	// are signed JWTs, checked by Kafka's OAuthBearerValidatorCallbackHandler
	// against the keys at this URL (allowed by the system property
	// org.apache.kafka.sasl.oauthbearer.allowed.urls); sessions last 3 s.
	// OAuthBootstrap is its address.
	JWKS string
	// Audience and Issuer are the aud and iss claims the JWKS listener
	// requires of a token (sasl.oauthbearer.expected.audience and
	// .issuer). Kafka 4.4 refuses to start such a listener without them,
	// unless told to accept any.
	Audience, Issuer string
	// AllowURLs are more OAuth URLs for that system property, such as a
	// token endpoint for the Java clients RunJava starts.
	AllowURLs []string
	// Kerberos: a SASL_PLAINTEXT listener for GSSAPI alone, advertised as
	// 127.0.0.1. KerberosBootstrap is its address.
	Kerberos *KerberosListener
	// DynamicQuorum formats the nodes with --initial-controllers (KIP-853,
	// kraft.version 1) and points them at controller.quorum.bootstrap.servers
	// instead of a static controller.quorum.voters: the quorum's voters can
	// be added and removed. DirectoryID tells each node's directory id.
	DynamicQuorum bool
	// TieredStorage turns on remote log storage (KIP-405) with Kafka's
	// LocalTieredStorage in a directory of the cluster's (tiered.go);
	// topics opt in with remote.storage.enable=true. Its jar is fetched
	// by TieredStorageJar.
	TieredStorage bool
	// Properties are more server properties, written after the harness's
	// own (a later line wins); StorageTool format reads them too (Kafka
	// 4.1's unstable.feature.versions.enable then finalizes streams.version).
	Properties [][2]string
}

// StartSingleWith starts one node with a PLAINTEXT client listener (as
// StartThree's nodes, without an authorizer) and x's listeners besides.
func StartSingleWith(ctx context.Context, x Extra) (*Cluster, error) {
	return start(ctx, 1, false, x)
}

// StartSingleTLS is StartSingleWith an SSL listener made from l.
func StartSingleTLS(ctx context.Context, l TLSListener) (*Cluster, error) {
	return StartSingleWith(ctx, Extra{TLS: &l})
}

// OAuthBootstrap is the address of the JWKS-validating OAUTHBEARER
// listener (Extra.JWKS), or "".
func (c *Cluster) OAuthBootstrap() string {
	var out []string
	for _, n := range c.nodes {
		if n.oport != 0 {
			out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(n.oport)))
		}
	}
	return strings.Join(out, ",")
}

// TLSBootstrap is the address of the SSL listener (StartSingleTLS), or "".
func (c *Cluster) TLSBootstrap() string {
	var out []string
	for _, n := range c.nodes {
		if n.sport != 0 {
			out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(n.sport)))
		}
	}
	return strings.Join(out, ",")
}

// KerberosBootstrap is the address of the GSSAPI listener (Extra.Kerberos),
// or "".
func (c *Cluster) KerberosBootstrap() string {
	var out []string
	for _, n := range c.nodes {
		if n.kport != 0 {
			out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(n.kport)))
		}
	}
	return strings.Join(out, ",")
}
