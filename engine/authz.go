package engine

import (
	"cmp"
	"crypto/x509"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Authorization failures. Kafka refuses a request its ACLs do not allow
// with a *_AUTHORIZATION_FAILED code and, for the cluster-level checks,
// a message that is its internal request object printed by Scala
// ("Request Request(processor=1, connectionId=..., session=...,
// ...) needs DESCRIBE permission."). ExplainDenied rewrites such an error into
// what an operator needs: which function, which Kafka operation on which
// resource, and who kadmin-lua was logged in as. The broker's own words
// are kept only under --verbose.

// Principal is who the config logs in as, the way Kafka's default
// principal builder names it: "User:alice" for SASL PLAIN and SCRAM,
// "User:CN=alice,O=corp" for a TLS client certificate, "User:ANONYMOUS"
// without credentials. OAUTHBEARER, GSSAPI and AWS_MSK_IAM principals are
// decided by the broker (a token's subject, a Kerberos mapping, an IAM
// role): those say what kadmin-lua logged in with.
func (c Config) Principal() string {
	if s := c.SASL; s != nil {
		switch mech := strings.ToUpper(s.Mechanism); {
		case mech == "OAUTHBEARER":
			if s.OAuth != nil && s.OAuth.ClientID != "" {
				return "the OAUTHBEARER token's subject (client id " + s.OAuth.ClientID + ")"
			}
			return "the OAUTHBEARER token's subject"
		case mech == "GSSAPI":
			if s.Kerberos != nil && s.Kerberos.Principal != "" {
				return "Kerberos principal " + s.Kerberos.Principal
			}
			return "a Kerberos principal"
		case mech == "AWS_MSK_IAM":
			if s.AWS != nil && s.AWS.RoleARN != "" {
				return "IAM role " + s.AWS.RoleARN
			}
			return "AWS IAM credentials"
		case s.Username != "":
			return "User:" + s.Username
		}
	}
	if c.TLS != nil && (c.TLS.CertFile != "" || c.TLS.KeyStore != nil) {
		if tc, err := c.TLS.Build(); err == nil && len(tc.Certificates) > 0 && len(tc.Certificates[0].Certificate) > 0 {
			if cert, err := x509.ParseCertificate(tc.Certificates[0].Certificate[0]); err == nil {
				return "User:" + cert.Subject.String()
			}
		}
		return "the TLS client certificate's subject"
	}
	return "User:ANONYMOUS"
}

// aclNeeds is the Kafka ACL operation each function needs, where one
// operation decides (Kafka's "Operations and Resources on Protocols").
var aclNeeds = map[string]string{
	"alter_client_quotas": "ALTER_CONFIGS", "alter_configs": "ALTER_CONFIGS",
	"alter_partition_reassignments": "ALTER", "alter_replica_log_dirs": "ALTER",
	"alter_user_scram_credentials": "ALTER", "cancel_partition_reassignments": "ALTER",
	"commit_offsets": "READ", "create_acls": "ALTER", "create_partitions": "ALTER",
	"create_topics": "CREATE", "delete_acls": "ALTER", "delete_group_offsets": "DELETE",
	"delete_groups": "DELETE", "delete_records": "DELETE", "delete_topics": "DELETE",
	"describe_acls": "DESCRIBE", "describe_client_quotas": "DESCRIBE_CONFIGS",
	"describe_configs": "DESCRIBE_CONFIGS", "describe_groups": "DESCRIBE",
	"describe_log_dirs": "DESCRIBE", "describe_quorum": "DESCRIBE", "describe_topics": "DESCRIBE",
	"describe_user_scram_credentials": "DESCRIBE", "elect_leaders": "ALTER",
	"fetch_offsets": "DESCRIBE", "lag": "DESCRIBE", "list_groups": "DESCRIBE",
	"list_offsets": "DESCRIBE", "list_partition_reassignments": "DESCRIBE",
	"list_topics": "DESCRIBE", "produce": "WRITE", "reset_offsets": "READ",
	"topic_sizes": "DESCRIBE", "broker_sizes": "DESCRIBE", "skew": "DESCRIBE",
	"unregister_broker": "ALTER", "update_features": "ALTER",
}

// aclNeedsOn is the operation where it depends on the resource refused:
// "op kind".
var aclNeedsOn = map[string]string{
	// An idempotent producer's InitProducerID (brokers before KIP-679).
	"produce cluster":      "IDEMPOTENT_WRITE",
	"commit_offsets group": "READ", "reset_offsets group": "READ",
}

// deniedOn is what each authorization code refuses: the resource type,
// and Kafka's stock description (a message saying no more than the code).
var deniedOn = map[string]struct {
	kind string
	err  *kerr.Error
}{
	"TOPIC_AUTHORIZATION_FAILED":            {"topic", kerr.TopicAuthorizationFailed},
	"GROUP_AUTHORIZATION_FAILED":            {"group", kerr.GroupAuthorizationFailed},
	"CLUSTER_AUTHORIZATION_FAILED":          {"cluster", kerr.ClusterAuthorizationFailed},
	"TRANSACTIONAL_ID_AUTHORIZATION_FAILED": {"transactional id", kerr.TransactionalIDAuthorizationFailed},
	"DELEGATION_TOKEN_AUTHORIZATION_FAILED": {"delegation token", kerr.DelegationTokenAuthorizationFailed},
}

// javaRequestDump is Kafka's Scala request object in a
// ClusterAuthorizationException: "Request Request(processor=2, ...,
// envelope=None) needs DESCRIBE permission." (4.1), "... is not
// authorized." (before).
var javaRequestDump = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)^Request Request\(.*\) (is not authorized|needs [A-Z_]+ permission)\.?$`)
})

// IsDenied reports whether e is an authorization failure (the ACLs said no).
// A function, not a method of Error: the error type lives in engine/vocab,
// which knows no Kafka codes.
func IsDenied(e *Error) bool {
	if e == nil {
		return false
	}
	_, ok := deniedOn[e.Code]
	return ok
}

// ExplainDenied rewrites an authorization failure of function op so that
// it names the Kafka operation and resource refused and the principal the
// client logged in as; the broker's message is dropped when it is a Java
// request dump or Kafka's stock description, unless verbose. Any other
// error comes back as it is. It is idempotent.
func ExplainDenied(err error, op, principal string, verbose bool) error {
	if err == nil {
		return nil
	}
	e := AsError(err, "")
	if !IsDenied(e) || strings.HasPrefix(e.Message, "not authorized: ") {
		return err
	}
	c := *e
	c.Message = deniedMessage(e, op, principal, verbose)
	return &c
}

// ExplainDeniedItem rewrites an item's error in place (see ExplainDenied).
func ExplainDeniedItem(e *Error, op, principal string, verbose bool) {
	if IsDenied(e) && !strings.HasPrefix(e.Message, "not authorized: ") {
		e.Message = deniedMessage(e, op, principal, verbose)
	}
}

func deniedMessage(e *Error, op, principal string, verbose bool) string {
	var b strings.Builder
	b.WriteString("not authorized: ")
	on := deniedOn[e.Code]
	kind := on.kind
	what := "the cluster"
	switch {
	case kind == "cluster":
	case e.Resource != "":
		name, _, _ := strings.Cut(e.Resource, "[") // "orders[3]" is topic orders
		if kind == "topic" {
			// "orders record 2" (produce's items) too: a topic name has no spaces.
			name, _, _ = strings.Cut(name, " ")
		}
		what = kind + " " + name
	default:
		what = "the " + kind
	}
	need := cmp.Or(aclNeedsOn[op+" "+kind], aclNeeds[op])
	switch {
	case op != "" && need != "":
		fmt.Fprintf(&b, "%s needs %s on %s", op, need, what)
	case op != "":
		fmt.Fprintf(&b, "%s is refused on %s", op, what)
	default:
		fmt.Fprintf(&b, "refused on %s", what)
	}
	fmt.Fprintf(&b, "; logged in as %s", principal)
	said := strings.TrimSpace(e.Message)
	stock := said == "" || (on.err != nil && strings.EqualFold(said, on.err.Description))
	dump := javaRequestDump().MatchString(said)
	switch {
	case verbose && !stock:
		fmt.Fprintf(&b, " (broker: %s)", said)
	case !stock && !dump:
		fmt.Fprintf(&b, " (broker: %s)", said)
	}
	return b.String()
}
