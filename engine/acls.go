package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ACLs are written the way kafka-acls prints them, in lower case:
// operation "read", permission "allow", resource_type "topic",
// pattern_type "literal". Parsing accepts any case, dashes or underscores
// ("TRANSACTIONAL_ID", "transactional-id").

// ACL is one access control entry. It is also the row describe_acls
// returns, so a row can be passed back as a delete filter.
type ACL struct {
	Principal    string `json:"principal"`
	Host         string `json:"host"`
	Operation    string `json:"operation"`
	Permission   string `json:"permission"`
	ResourceType string `json:"resource_type"`
	ResourceName string `json:"resource_name"`
	PatternType  string `json:"pattern_type"`
}

// String names the ACL for keys and plans:
// "User:alice allow read on topic orders (literal) from *".
func (a ACL) String() string {
	// Concatenated, not Sprintf: a plan keys 10,000s of ACLs by it.
	return a.Principal + " " + a.Permission + " " + a.Operation + " on " + a.ResourceType + " " + a.ResourceName +
		" (" + a.PatternType + ") from " + a.Host
}

// ACLFilter selects ACLs; a nil field matches anything. PatternType "" is
// "any"; "match" selects the literal, prefixed and wildcard ACLs that
// apply to ResourceName.
type ACLFilter struct {
	Principal    *string `json:"principal,omitempty"`
	Host         *string `json:"host,omitempty"`
	Operation    string  `json:"operation,omitempty"`
	Permission   string  `json:"permission,omitempty"`
	ResourceType string  `json:"resource_type,omitempty"`
	ResourceName *string `json:"resource_name,omitempty"`
	PatternType  string  `json:"pattern_type,omitempty"`
}

// String names a filter: its set fields, or "all ACLs".
func (f ACLFilter) String() string {
	var parts []string
	add := func(k string, v *string) {
		if v != nil {
			parts = append(parts, k+"="+*v)
		}
	}
	add("principal", f.Principal)
	add("host", f.Host)
	for _, kv := range [][2]string{{"operation", f.Operation}, {"permission", f.Permission}, {"resource_type", f.ResourceType}} {
		if kv[1] != "" && kv[1] != "any" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	add("resource_name", f.ResourceName)
	if f.PatternType != "" && f.PatternType != "any" {
		parts = append(parts, "pattern_type="+f.PatternType)
	}
	if len(parts) == 0 {
		return "all ACLs"
	}
	return strings.Join(parts, " ")
}

// aclName renders a kmsg enum the way this package writes it.
func aclName(s fmt.Stringer) string { return strings.ToLower(s.String()) }

// parseEnum reads a kmsg enum name, refusing UNKNOWN with the list of
// names allowed.
func parseEnum[T comparable](s, what string, parse func(string) (T, error), names []string) (T, error) {
	var unknown T
	v, err := parse(s)
	if err != nil || v == unknown {
		return unknown, fmt.Errorf("unknown %s %q (one of %s)", what, s, lowerList(names))
	}
	return v, nil
}

// ParseACLOperation and friends read the lower-case (or any-case) names.
func ParseACLOperation(s string) (kmsg.ACLOperation, error) {
	return parseEnum(s, "operation", kmsg.ParseACLOperation, kmsg.ACLOperationStrings())
}

func ParseACLPermission(s string) (kmsg.ACLPermissionType, error) {
	return parseEnum(s, "permission", kmsg.ParseACLPermissionType, kmsg.ACLPermissionTypeStrings())
}

func ParseACLResourceType(s string) (kmsg.ACLResourceType, error) {
	return parseEnum(s, "resource type", kmsg.ParseACLResourceType, kmsg.ACLResourceTypeStrings())
}

func ParseACLPatternType(s string) (kmsg.ACLResourcePatternType, error) {
	return parseEnum(s, "pattern type", kmsg.ParseACLResourcePatternType, kmsg.ACLResourcePatternTypeStrings())
}

func lowerList(ss []string) string { return strings.ToLower(strings.Join(ss, ", ")) }

// NormalizeACL checks a row to create and fills defaults: host "*",
// permission "allow", pattern_type "literal", and resource_name
// "kafka-cluster" for the cluster resource. Enum names come back lower-case.
func NormalizeACL(a ACL) (ACL, error) {
	if a.Host == "" {
		a.Host = "*"
	}
	if a.Permission == "" {
		a.Permission = "allow"
	}
	if a.PatternType == "" {
		a.PatternType = "literal"
	}
	if !strings.Contains(a.Principal, ":") {
		return a, fmt.Errorf("principal must be TYPE:NAME such as \"User:alice\", got %q", a.Principal)
	}
	op, err := ParseACLOperation(a.Operation)
	if err != nil {
		return a, err
	}
	perm, err := ParseACLPermission(a.Permission)
	if err != nil {
		return a, err
	}
	rt, err := ParseACLResourceType(a.ResourceType)
	if err != nil {
		return a, err
	}
	pt, err := ParseACLPatternType(a.PatternType)
	if err != nil {
		return a, err
	}
	switch {
	case op == kmsg.ACLOperationAny:
		return a, fmt.Errorf("operation \"any\" only filters; name an operation (or \"all\")")
	case perm == kmsg.ACLPermissionTypeAny:
		return a, fmt.Errorf("permission must be \"allow\" or \"deny\"")
	case rt == kmsg.ACLResourceTypeAny:
		return a, fmt.Errorf("resource_type \"any\" only filters; name a resource type")
	case pt != kmsg.ACLResourcePatternTypeLiteral && pt != kmsg.ACLResourcePatternTypePrefixed:
		return a, fmt.Errorf("pattern_type must be \"literal\" or \"prefixed\", got %q", a.PatternType)
	}
	if a.ResourceName == "" && rt == kmsg.ACLResourceTypeCluster {
		a.ResourceName = "kafka-cluster"
	}
	if a.ResourceName == "" {
		return a, fmt.Errorf("resource_name is required")
	}
	a.Operation, a.Permission, a.ResourceType, a.PatternType = aclName(op), aclName(perm), aclName(rt), aclName(pt)
	return a, nil
}

// NormalizeACLFilter checks a filter's enum names and lower-cases them.
func NormalizeACLFilter(f ACLFilter) (ACLFilter, error) {
	var err error
	parse := func(s *string, p func(string) (fmt.Stringer, error)) {
		if err != nil {
			return
		}
		if *s == "" {
			*s = "any"
			return
		}
		var v fmt.Stringer
		if v, err = p(*s); err == nil {
			*s = aclName(v)
		}
	}
	parse(&f.Operation, func(s string) (fmt.Stringer, error) { return ParseACLOperation(s) })
	parse(&f.Permission, func(s string) (fmt.Stringer, error) { return ParseACLPermission(s) })
	parse(&f.ResourceType, func(s string) (fmt.Stringer, error) { return ParseACLResourceType(s) })
	parse(&f.PatternType, func(s string) (fmt.Stringer, error) { return ParseACLPatternType(s) })
	return f, err
}

// kmsgFilter is the request form of a normalized filter.
func (f ACLFilter) kmsg() (rt kmsg.ACLResourceType, pt kmsg.ACLResourcePatternType, op kmsg.ACLOperation, perm kmsg.ACLPermissionType) {
	rt, _ = ParseACLResourceType(cmp.Or(f.ResourceType, "any"))
	pt, _ = ParseACLPatternType(cmp.Or(f.PatternType, "any"))
	op, _ = ParseACLOperation(cmp.Or(f.Operation, "any"))
	perm, _ = ParseACLPermission(cmp.Or(f.Permission, "any"))
	return
}

func sortACLs(acls []ACL) []ACL {
	slices.SortFunc(acls, func(a, b ACL) int {
		return cmp.Or(cmp.Compare(a.ResourceType, b.ResourceType), cmp.Compare(a.ResourceName, b.ResourceName),
			cmp.Compare(a.PatternType, b.PatternType), cmp.Compare(a.Principal, b.Principal),
			cmp.Compare(a.Host, b.Host), cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.Permission, b.Permission))
	})
	return slices.Compact(acls)
}

// DescribeACLs lists the ACLs matching f, sorted by resource then principal.
func (c *Client) DescribeACLs(ctx context.Context, f ACLFilter) ([]ACL, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	f, err := NormalizeACLFilter(f)
	if err != nil {
		return nil, Errorf(CodeInvalidArgument, "", "%v", err)
	}
	var out []ACL
	if e := retryCall(ctx, "", func(ctx context.Context) error {
		var err error
		out, err = c.describeACLs(ctx, f)
		return err
	}); e != nil {
		return nil, e
	}
	return out, nil
}

func (c *Client) describeACLs(ctx context.Context, f ACLFilter) ([]ACL, error) {
	return describeACLsWith(ctx, c.kgo, f)
}

// DescribeACLsOn lists the ACLs matching f as broker b alone knows them:
// a broker answers from its own copy of the cluster's metadata, a moment
// behind the controller's after a change (desired state's apply waits
// until each broker shows what it applied). Not retried.
func (c *Client) DescribeACLsOn(ctx context.Context, b int32, f ACLFilter) ([]ACL, error) {
	f, err := NormalizeACLFilter(f)
	if err != nil {
		return nil, Errorf(CodeInvalidArgument, "", "%v", err)
	}
	out, err := describeACLsWith(ctx, c.kgo.Broker(int(b)), f)
	if err != nil {
		return nil, AsError(err, fmt.Sprintf("broker %d", b))
	}
	return out, nil
}

func describeACLsWith(ctx context.Context, to kmsg.Requestor, f ACLFilter) ([]ACL, error) {
	req := kmsg.NewPtrDescribeACLsRequest()
	req.ResourceType, req.ResourcePatternType, req.Operation, req.PermissionType = f.kmsg()
	req.ResourceName, req.Principal, req.Host = f.ResourceName, f.Principal, f.Host
	resp, err := req.RequestWith(ctx, to)
	if err != nil {
		return nil, err
	}
	if e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, ""); e != nil {
		return nil, e
	}
	out := []ACL{}
	for _, r := range resp.Resources {
		for _, a := range r.ACLs {
			out = append(out, ACL{Principal: a.Principal, Host: a.Host, Operation: aclName(a.Operation),
				Permission: aclName(a.PermissionType), ResourceType: aclName(r.ResourceType),
				ResourceName: r.ResourceName, PatternType: aclName(r.ResourcePatternType)})
		}
	}
	return sortACLs(out), nil
}

// CreatedACL is one result of CreateACLs: the ACL as created (defaults
// filled in) and its error.
type CreatedACL struct {
	Principal    string `json:"principal"`
	Host         string `json:"host"`
	Operation    string `json:"operation"`
	Permission   string `json:"permission"`
	ResourceType string `json:"resource_type"`
	ResourceName string `json:"resource_name"`
	PatternType  string `json:"pattern_type"`
	Err          *Error `json:"error,omitempty"`
}

// NewCreatedACL is the result row for a, with its error.
func NewCreatedACL(a ACL, err *Error) CreatedACL {
	return CreatedACL{Principal: a.Principal, Host: a.Host, Operation: a.Operation, Permission: a.Permission,
		ResourceType: a.ResourceType, ResourceName: a.ResourceName, PatternType: a.PatternType, Err: err}
}

func (a CreatedACL) acl() ACL {
	return ACL{Principal: a.Principal, Host: a.Host, Operation: a.Operation, Permission: a.Permission,
		ResourceType: a.ResourceType, ResourceName: a.ResourceName, PatternType: a.PatternType}
}

func (a CreatedACL) Key() string     { return a.acl().String() }
func (a CreatedACL) Failure() *Error { return a.Err }

// CreateACLs creates ACLs, one result per ACL in the order given. Creating
// an ACL that exists is a no-op in Kafka, so retrying after an unknown
// outcome (REQUEST_TIMED_OUT) is safe and is done. With an audit log the
// ACLs that existed already are recorded: undo deletes only the others.
func (c *Client) CreateACLs(ctx context.Context, acls []ACL) ([]CreatedACL, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	idx := make([]int, len(acls))
	keys := make([]string, len(acls))
	for i := range acls {
		a, err := NormalizeACL(acls[i])
		if err != nil {
			return nil, Errorf(CodeInvalidArgument, "", "acl #%d: %v", i+1, err)
		}
		acls[i], idx[i], keys[i] = a, i, a.String()
	}
	return mutate(ctx, c, mutation[ACLsBefore, []CreatedACL]{
		op: "create_acls", keys: keys,
		args: struct {
			ACLs []ACL `json:"acls"`
		}{acls},
		before: func(ctx context.Context) (ACLsBefore, error) { return c.aclsBefore(ctx, acls) },
		send: func(ctx context.Context, _ ACLsBefore) ([]CreatedACL, error) {
			return c.createACLs(ctx, acls, idx), nil
		},
		items: asItems[CreatedACL],
		look:  c.lookCreatedACLs,
		detail: func(before ACLsBefore, _ []CreatedACL, key string) any {
			return CreatedACLDetail{Existed: slices.ContainsFunc(before.Existing, func(a ACL) bool { return a.String() == key })}
		},
	})
}

func (c *Client) createACLs(ctx context.Context, acls []ACL, idx []int) []CreatedACL {
	errs := retryItems(ctx, idx, func(i int) string { return acls[i].String() }, func(ctx context.Context, pending []int) (map[int]*Error, error) {
		req := kmsg.NewPtrCreateACLsRequest()
		for _, i := range pending {
			a := acls[i]
			cr := kmsg.NewCreateACLsRequestCreation()
			cr.ResourceType, cr.ResourcePatternType, cr.Operation, cr.PermissionType = ACLFilter{
				ResourceType: a.ResourceType, PatternType: a.PatternType, Operation: a.Operation, Permission: a.Permission}.kmsg()
			cr.ResourceName, cr.Principal, cr.Host = a.ResourceName, a.Principal, a.Host
			req.Creations = append(req.Creations, cr)
		}
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return nil, err
		}
		answers := map[int]*Error{}
		for j, r := range resp.Results {
			if j >= len(pending) {
				break
			}
			i := pending[j]
			e := kafkaErr(r.ErrorCode, r.ErrorMessage, acls[i].String())
			if e != nil && r.ErrorCode == kerr.RequestTimedOut.Code {
				e.Retriable = true // re-creating an ACL is a no-op
			}
			answers[i] = e
		}
		return answers, nil
	})
	out := make([]CreatedACL, len(acls))
	for i, a := range acls {
		out[i] = NewCreatedACL(a, errs[i])
	}
	return out
}

// DeletedACLs is one result of DeleteACLs: a filter and the ACLs it
// deleted.
type DeletedACLs struct {
	Filter  ACLFilter `json:"filter"`
	Deleted []ACL     `json:"deleted"`
	Err     *Error    `json:"error,omitempty"`
}

func (d DeletedACLs) Key() string     { return d.Filter.String() }
func (d DeletedACLs) Failure() *Error { return d.Err }

// DeleteACLs deletes the ACLs matching each filter and says which were
// deleted, per filter in the order given.
//
// Deleting is idempotent, but after REQUEST_TIMED_OUT the first attempt may
// have deleted ACLs that a retry no longer finds. So each filter's matches
// are described first (the audit log's before-state, which undo recreates);
// for a filter retried after a timeout, those count as deleted along with
// whatever the retry deleted.
func (c *Client) DeleteACLs(ctx context.Context, filters []ACLFilter) ([]DeletedACLs, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	idx := make([]int, len(filters))
	keys := make([]string, len(filters))
	for i := range filters {
		f, err := NormalizeACLFilter(filters[i])
		if err != nil {
			return nil, Errorf(CodeInvalidArgument, "", "filter #%d: %v", i+1, err)
		}
		filters[i], idx[i], keys[i] = f, i, f.String()
	}
	return mutate(ctx, c, mutation[[]ACLFilterMatches, []DeletedACLs]{
		op: "delete_acls", keys: keys, needBefore: true,
		args: struct {
			Filters []ACLFilter `json:"filters"`
		}{filters},
		before: func(ctx context.Context) ([]ACLFilterMatches, error) { return c.filterMatches(ctx, filters) },
		send: func(ctx context.Context, before []ACLFilterMatches) ([]DeletedACLs, error) {
			return c.deleteACLs(ctx, filters, idx, before), nil
		},
		items: asItems[DeletedACLs],
		look:  c.lookDeletedACLs,
		detail: func(_ []ACLFilterMatches, res []DeletedACLs, key string) any {
			for _, d := range res {
				if d.Key() == key {
					return DeletedACLsDetail{Deleted: d.Deleted}
				}
			}
			return nil
		},
	})
}

func (c *Client) deleteACLs(ctx context.Context, filters []ACLFilter, idx []int, before []ACLFilterMatches) []DeletedACLs {
	deleted := make([][]ACL, len(filters))
	timedOut := map[int]bool{}
	errs := retryItems(ctx, idx, func(i int) string { return filters[i].String() }, func(ctx context.Context, pending []int) (map[int]*Error, error) {
		req := kmsg.NewPtrDeleteACLsRequest()
		for _, i := range pending {
			f := filters[i]
			rf := kmsg.NewDeleteACLsRequestFilter()
			rf.ResourceType, rf.ResourcePatternType, rf.Operation, rf.PermissionType = f.kmsg()
			rf.ResourceName, rf.Principal, rf.Host = f.ResourceName, f.Principal, f.Host
			req.Filters = append(req.Filters, rf)
		}
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return nil, err
		}
		answers := map[int]*Error{}
		for j, r := range resp.Results {
			if j >= len(pending) {
				break
			}
			i := pending[j]
			e := kafkaErr(r.ErrorCode, r.ErrorMessage, filters[i].String())
			if e == nil {
				var got []ACL
				if timedOut[i] {
					got = append(got, before[i].Matches...)
				}
				for _, m := range r.MatchingACLs {
					got = append(got, ACL{Principal: m.Principal, Host: m.Host, Operation: aclName(m.Operation),
						Permission: aclName(m.PermissionType), ResourceType: aclName(m.ResourceType),
						ResourceName: m.ResourceName, PatternType: aclName(m.ResourcePatternType)})
				}
				deleted[i] = sortACLs(got)
			}
			if r.ErrorCode == kerr.RequestTimedOut.Code {
				timedOut[i] = true
				e.Retriable = true // deleting again is harmless
			}
			answers[i] = e
		}
		return answers, nil
	})
	out := make([]DeletedACLs, len(filters))
	for i, f := range filters {
		d := deleted[i]
		if d == nil {
			d = []ACL{}
		}
		out[i] = DeletedACLs{Filter: f, Deleted: d, Err: errs[i]}
	}
	return out
}
