package engine

import (
	"fmt"
	"slices"
)

// ACLBundle is kafka-acls' --producer and --consumer conveniences: the
// ACLs a producer or a consumer of some topics needs, as AclCommand
// builds them (Apache Kafka, AclCommand):
//   - producer: WRITE, DESCRIBE and CREATE on each topic; WRITE and
//     DESCRIBE on each transactional id; IDEMPOTENT_WRITE on the cluster
//     (literal "kafka-cluster") with Idempotent;
//   - consumer: READ and DESCRIBE on each topic; READ on each group.
//
// Every ACL allows, from each of Hosts ("*" when none), for each
// principal. PatternType ("literal" or "prefixed") applies to topics,
// groups and transactional ids; the cluster is always literal.
type ACLBundle struct {
	Producers        []string `json:"producers,omitempty"`
	Consumers        []string `json:"consumers,omitempty"`
	Topics           []string `json:"topics,omitempty"`
	Groups           []string `json:"groups,omitempty"`
	TransactionalIDs []string `json:"transactional_ids,omitempty"`
	Idempotent       bool     `json:"idempotent,omitempty"`
	Hosts            []string `json:"hosts,omitempty"`
	PatternType      string   `json:"pattern_type,omitempty"`
}

// Rows is the bundle's ACLs, sorted as describe_acls sorts them, each
// checked and filled as create_acls fills a row. Its errors are kafka-acls'
// own refusals: a producer without topics, a consumer without topics or
// a group, idempotent without a producer, a transactional id or a group
// that no role uses.
func (b ACLBundle) Rows() ([]ACL, error) {
	switch {
	case len(b.Producers) == 0 && len(b.Consumers) == 0:
		return nil, fmt.Errorf("name a producer or a consumer (or both)")
	case len(b.Topics) == 0:
		return nil, fmt.Errorf("topics is required (kafka-acls: with --producer or --consumer you must specify a --topic)")
	case len(b.Consumers) > 0 && len(b.Groups) == 0:
		return nil, fmt.Errorf("a consumer needs group (kafka-acls: with --consumer you must specify a --group)")
	case len(b.Consumers) == 0 && len(b.Groups) > 0:
		return nil, fmt.Errorf("group is a consumer's: name the consumer")
	case len(b.Producers) == 0 && b.Idempotent:
		return nil, fmt.Errorf("idempotent is a producer's: name the producer (kafka-acls: the --idempotent option is only available if --producer is set)")
	case len(b.Producers) == 0 && len(b.TransactionalIDs) > 0:
		return nil, fmt.Errorf("transactional_id is a producer's: name the producer")
	}
	pattern := b.PatternType
	if pattern == "" {
		pattern = "literal"
	}
	hosts := b.Hosts
	if len(hosts) == 0 {
		hosts = []string{"*"}
	}
	var out []ACL
	add := func(principals []string, rtype string, names []string, pattern string, ops ...string) error {
		for _, p := range principals {
			for _, n := range names {
				for _, h := range hosts {
					for _, op := range ops {
						a, err := NormalizeACL(ACL{Principal: p, Host: h, Operation: op, Permission: "allow",
							ResourceType: rtype, ResourceName: n, PatternType: pattern})
						if err != nil {
							return err
						}
						out = append(out, a)
					}
				}
			}
		}
		return nil
	}
	for _, err := range []error{
		add(b.Producers, "topic", b.Topics, pattern, "write", "describe", "create"),
		add(b.Producers, "transactional_id", b.TransactionalIDs, pattern, "write", "describe"),
		add(b.Consumers, "topic", b.Topics, pattern, "read", "describe"),
		add(b.Consumers, "group", b.Groups, pattern, "read"),
	} {
		if err != nil {
			return nil, err
		}
	}
	if b.Idempotent {
		if err := add(b.Producers, "cluster", []string{"kafka-cluster"}, "literal", "idempotent_write"); err != nil {
			return nil, err
		}
	}
	return slices.Clip(sortACLs(out)), nil
}
