package engine

import (
	"context"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// What create_acls and delete_acls record: the ACLs to create that existed
// already (undo leaves them), and the ACLs each delete filter matched
// (undo recreates those it deleted).

// ACLsBefore is create_acls' before-state.
type ACLsBefore struct {
	Existing []ACL `json:"existing"` // of the ACLs to create, those already there
}

// CreatedACLDetail is an applied create_acls item's detail.
type CreatedACLDetail struct {
	Existed bool `json:"existed,omitempty"` // there before the call: not created by it
}

// ACLFilterMatches is one delete_acls filter and the ACLs it matched before.
type ACLFilterMatches struct {
	Filter  ACLFilter `json:"filter"`
	Matches []ACL     `json:"matches"`
}

// DeletedACLsDetail is an applied delete_acls item's detail.
type DeletedACLsDetail struct {
	Deleted []ACL `json:"deleted"`
}

// exactFilter matches the ACLs on a's resource (same name and pattern).
func exactFilter(a ACL) ACLFilter {
	name := a.ResourceName
	return ACLFilter{ResourceType: a.ResourceType, ResourceName: &name, PatternType: a.PatternType}
}

// presentACLs reports which of acls exist now, describing each resource
// once.
func (c *Client) presentACLs(ctx context.Context, acls []ACL) (map[ACL]bool, error) {
	seen := map[string]bool{}
	out := map[ACL]bool{}
	for _, a := range acls {
		f, err := NormalizeACLFilter(exactFilter(a))
		if err != nil {
			return nil, err
		}
		if seen[f.String()] {
			continue
		}
		seen[f.String()] = true
		var got []ACL
		if e := retryCall(ctx, a.String(), func(ctx context.Context) error {
			var err error
			got, err = c.describeACLs(ctx, f)
			return err
		}); e != nil {
			return nil, e
		}
		for _, g := range got {
			out[g] = true
		}
	}
	return out, nil
}

func (c *Client) aclsBefore(ctx context.Context, acls []ACL) (ACLsBefore, error) {
	present, err := c.presentACLs(ctx, acls)
	if err != nil {
		return ACLsBefore{}, err
	}
	b := ACLsBefore{Existing: []ACL{}}
	for _, a := range acls {
		if present[a] {
			b.Existing = append(b.Existing, a)
		}
	}
	return b, nil
}

// lookCreatedACLs resolves creations whose outcome stayed unknown.
func (c *Client) lookCreatedACLs(ctx context.Context, _ ACLsBefore, res []CreatedACL, err error, unknown map[string]bool) ([]CreatedACL, error, map[string]string) {
	found := map[string]string{}
	var ask []ACL
	for _, r := range res {
		if unknown[r.Key()] {
			ask = append(ask, r.acl())
		}
	}
	present, perr := c.presentACLs(ctx, ask)
	if perr != nil {
		return res, err, found
	}
	for i, r := range res {
		if !unknown[r.Key()] {
			continue
		}
		if present[r.acl()] {
			found[r.Key()], res[i].Err = auditlog.FoundApplied, nil
		} else {
			found[r.Key()], res[i].Err = auditlog.FoundNotApplied, looked(r.Err, "the ACL does not exist")
		}
	}
	return res, err, found
}

// filterMatches describes what each filter matches now.
func (c *Client) filterMatches(ctx context.Context, filters []ACLFilter) ([]ACLFilterMatches, error) {
	out := make([]ACLFilterMatches, len(filters))
	for i, f := range filters {
		out[i].Filter = f
		if e := retryCall(ctx, f.String(), func(ctx context.Context) error {
			var err error
			out[i].Matches, err = c.describeACLs(ctx, f)
			return err
		}); e != nil {
			return nil, e
		}
	}
	return out, nil
}

// lookDeletedACLs resolves deletions whose outcome stayed unknown: the
// ACLs a filter matched before and that are gone now were deleted.
func (c *Client) lookDeletedACLs(ctx context.Context, before []ACLFilterMatches, res []DeletedACLs, err error, unknown map[string]bool) ([]DeletedACLs, error, map[string]string) {
	found := map[string]string{}
	for i, r := range res {
		if !unknown[r.Key()] || i >= len(before) {
			continue
		}
		now, ferr := c.filterMatches(ctx, []ACLFilter{r.Filter})
		if ferr != nil {
			continue
		}
		var gone []ACL
		for _, a := range before[i].Matches {
			if !slices.Contains(now[0].Matches, a) {
				gone = append(gone, a)
			}
		}
		switch {
		case len(gone) == len(before[i].Matches):
			found[r.Key()] = auditlog.FoundApplied
			res[i].Deleted, res[i].Err = sortACLs(append([]ACL{}, gone...)), nil
		case len(gone) == 0:
			found[r.Key()], res[i].Err = auditlog.FoundNotApplied, looked(r.Err, "the ACLs it matched are all still there")
		default:
			found[r.Key()] = auditlog.FoundUndetermined
			res[i].Deleted = sortACLs(gone)
			res[i].Err = looked(r.Err, "some of the ACLs it matched are gone")
		}
	}
	return res, err, found
}
