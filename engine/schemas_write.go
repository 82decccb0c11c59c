package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// The registry's writes, each through mutate like every change to a
// cluster: an intent line (naming the registry, with the state undo
// restores) before the request, an outcome line after, nothing under
// dry-run, a look at the registry after an unknown outcome. The registry
// belongs to the client's cluster: its intent lines carry that cluster's
// id, and the registry's URLs in their arguments.

// SchemaRegistration is register_schema's result.
type SchemaRegistration struct {
	Subject string `json:"subject"`
	ID      int    `json:"id"`
	Version int    `json:"version"`
	// Created: the subject did not hold the schema before (a new
	// version); false, it was registered already and nothing changed.
	Created bool   `json:"created"`
	Err     *Error `json:"error,omitempty"`
}

func (r SchemaRegistration) Key() string     { return r.Subject }
func (r SchemaRegistration) Failure() *Error { return r.Err }

// registerBefore is register_schema's state before: the version that
// already held the schema, if one did.
type registerBefore struct {
	Existing *schemas.SubjectSchema `json:"existing,omitempty"`
}

// registered is what undo needs of an applied register_schema.
type registered struct {
	ID      int  `json:"id"`
	Version int  `json:"version"`
	Created bool `json:"created"`
}

// schemaArgs is a schema as intent lines record it.
type schemaArgs struct {
	Registry   string              `json:"registry"`
	Subject    string              `json:"subject"`
	Type       string              `json:"type"`
	Schema     string              `json:"schema"`
	References []schemas.Reference `json:"references,omitempty"`
}

// RegisterSchema registers s under subject, or finds it there already,
// and says its id and version.
func (c *Client) RegisterSchema(ctx context.Context, subject string, s schemas.Schema) (SchemaRegistration, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return SchemaRegistration{}, err
	}
	defer cancel()
	return mutate(ctx, c, mutation[registerBefore, SchemaRegistration]{
		op: "register_schema", keys: []string{subject},
		args:       schemaArgs{Registry: reg.Config().String(), Subject: subject, Type: s.Type, Schema: s.Text, References: s.References},
		needBefore: true,
		before: func(ctx context.Context) (registerBefore, error) {
			got, found, err := reg.Lookup(ctx, subject, s)
			if err != nil || !found {
				return registerBefore{}, err
			}
			return registerBefore{Existing: &got}, nil
		},
		send: func(ctx context.Context, b registerBefore) (SchemaRegistration, error) {
			got, err := reg.Register(ctx, subject, s)
			if err != nil {
				return SchemaRegistration{Subject: subject}, err
			}
			return SchemaRegistration{Subject: subject, ID: got.ID, Version: got.Version, Created: b.Existing == nil}, nil
		},
		items: func(r SchemaRegistration) []Item { return []Item{r} },
		look: func(ctx context.Context, b registerBefore, res SchemaRegistration, err error, _ map[string]bool) (SchemaRegistration, error, map[string]string) {
			got, found, lerr := reg.Lookup(ctx, subject, s)
			switch {
			case lerr != nil:
				return res, err, nil
			case found:
				return SchemaRegistration{Subject: subject, ID: got.ID, Version: got.Version, Created: b.Existing == nil}, nil,
					map[string]string{subject: auditlog.FoundApplied}
			}
			return res, err, map[string]string{subject: auditlog.FoundNotApplied}
		},
		detail: func(_ registerBefore, r SchemaRegistration, _ string) any {
			return registered{ID: r.ID, Version: r.Version, Created: r.Created}
		},
	})
}

// PlanRegisterSchema is RegisterSchema under dry-run: it asks whether the
// subject holds s already and whether s is compatible, and says what
// registering would do; nothing changes. The result's ID is the existing
// id, or 0.
func (c *Client) PlanRegisterSchema(ctx context.Context, subject string, s schemas.Schema) (SchemaRegistration, string, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return SchemaRegistration{}, "", err
	}
	defer cancel()
	got, found, err := reg.Lookup(ctx, subject, s)
	if err != nil {
		return SchemaRegistration{}, "", err
	}
	if found {
		return SchemaRegistration{Subject: got.Subject, ID: got.ID, Version: got.Version},
			fmt.Sprintf("%s: already holds this schema (id %d, version %d): nothing would change", subject, got.ID, got.Version), nil
	}
	chk, err := reg.CheckCompatibility(ctx, subject, schemas.Latest, s)
	if err != nil {
		return SchemaRegistration{}, "", err
	}
	if !chk.Compatible {
		return SchemaRegistration{Subject: subject}, "", Errorf("INCOMPATIBLE_SCHEMA", subject, "the schema is not compatible with the subject's: %s", strings.Join(chk.Messages, "; "))
	}
	return SchemaRegistration{Subject: subject, Created: true},
		fmt.Sprintf("%s: would register a new %s version on %s", subject, s.Type, reg.Config()), nil
}

// CompatibilitySet is set_schema_compatibility's result.
type CompatibilitySet struct {
	Subject string `json:"subject,omitempty"` // "" for the registry's global level
	Global  bool   `json:"global"`
	Level   string `json:"level"`
	Before  string `json:"before"` // the level in force before
	Err     *Error `json:"error,omitempty"`
}

func (r CompatibilitySet) Key() string     { return compatKey(r.Subject) }
func (r CompatibilitySet) Failure() *Error { return r.Err }

func compatKey(subject string) string {
	if subject == schemas.Global {
		return "(global)"
	}
	return subject
}

// SetSchemaCompatibility sets subject's compatibility level (schemas.Global:
// the registry's).
func (c *Client) SetSchemaCompatibility(ctx context.Context, subject, level string) (CompatibilitySet, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return CompatibilitySet{}, err
	}
	defer cancel()
	key := compatKey(subject)
	return mutate(ctx, c, mutation[schemas.Compatibility, CompatibilitySet]{
		op: "set_schema_compatibility", keys: []string{key},
		args: struct {
			Registry string `json:"registry"`
			Subject  string `json:"subject,omitempty"`
			Level    string `json:"level"`
		}{reg.Config().String(), subject, level},
		needBefore: true,
		before: func(ctx context.Context) (schemas.Compatibility, error) {
			cs, err := reg.Compatibilities(ctx, []string{subject})
			if err != nil {
				return schemas.Compatibility{}, err
			}
			return cs[0], nil
		},
		send: func(ctx context.Context, b schemas.Compatibility) (CompatibilitySet, error) {
			res := CompatibilitySet{Subject: subject, Global: subject == schemas.Global, Level: level, Before: b.Level}
			return res, reg.SetCompatibility(ctx, subject, level)
		},
		items: func(r CompatibilitySet) []Item { return []Item{r} },
		look: func(ctx context.Context, b schemas.Compatibility, res CompatibilitySet, err error, _ map[string]bool) (CompatibilitySet, error, map[string]string) {
			cs, lerr := reg.Compatibilities(ctx, []string{subject})
			if lerr != nil {
				return res, err, nil
			}
			if cs[0].Level == level && (cs[0].Own || b.Level != level) {
				return res, nil, map[string]string{key: auditlog.FoundApplied}
			}
			return res, err, map[string]string{key: auditlog.FoundNotApplied}
		},
		detail: func(_ schemas.Compatibility, r CompatibilitySet, _ string) any {
			return map[string]string{"level": r.Level}
		},
	})
}

// SubjectDeletion is delete_subject's and delete_schema_version's result.
type SubjectDeletion struct {
	Subject   string `json:"subject"`
	Versions  []int  `json:"versions"` // the versions deleted
	Permanent bool   `json:"permanent"`
	Err       *Error `json:"error,omitempty"`
}

func (r SubjectDeletion) Key() string     { return r.Subject }
func (r SubjectDeletion) Failure() *Error { return r.Err }

// deletedBefore is a delete's state before: the versions it would delete,
// with their schemas (undo registers them again).
type deletedBefore struct {
	Versions []schemas.SubjectSchema `json:"versions"`
}

// DeleteSubject deletes subject: soft (its versions hidden, their ids still
// readable, undo registers them again), or with permanent soft then hard
// (the registry forgets them: undo cannot bring the ids back).
func (c *Client) DeleteSubject(ctx context.Context, subject string, permanent bool) (SubjectDeletion, error) {
	return c.deleteSchemas(ctx, "delete_subject", subject, schemas.Latest, permanent)
}

// DeleteSchemaVersion deletes one version of subject, soft or (with
// permanent) soft then hard.
func (c *Client) DeleteSchemaVersion(ctx context.Context, subject string, version int, permanent bool) (SubjectDeletion, error) {
	return c.deleteSchemas(ctx, "delete_schema_version", subject, version, permanent)
}

// deleteSchemas deletes subject (version schemas.Latest) or one version.
func (c *Client) deleteSchemas(ctx context.Context, op, subject string, version int, permanent bool) (SubjectDeletion, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return SubjectDeletion{}, err
	}
	defer cancel()
	whole := version == schemas.Latest
	args := struct {
		Registry  string `json:"registry"`
		Subject   string `json:"subject"`
		Version   int    `json:"version,omitempty"`
		Permanent bool   `json:"permanent,omitempty"`
	}{reg.Config().String(), subject, max(version, 0), permanent}
	return mutate(ctx, c, mutation[deletedBefore, SubjectDeletion]{
		op: op, keys: []string{subject}, args: args, needBefore: true,
		before: func(ctx context.Context) (deletedBefore, error) {
			return c.schemasBefore(ctx, reg, subject, version, permanent)
		},
		send: func(ctx context.Context, b deletedBefore) (SubjectDeletion, error) {
			res := SubjectDeletion{Subject: subject, Permanent: permanent, Versions: []int{}}
			for _, v := range b.Versions {
				res.Versions = append(res.Versions, v.Version)
			}
			live := false
			for _, v := range b.Versions {
				live = live || !v.Deleted
			}
			var err error
			switch {
			case whole && live:
				_, err = reg.DeleteSubject(ctx, subject, false)
			case !whole && live:
				err = reg.DeleteVersion(ctx, subject, version, false)
			}
			if err == nil && permanent {
				if whole {
					_, err = reg.DeleteSubject(ctx, subject, true)
				} else {
					err = reg.DeleteVersion(ctx, subject, version, true)
				}
			}
			return res, err
		},
		items: func(r SubjectDeletion) []Item { return []Item{r} },
		look: func(ctx context.Context, b deletedBefore, res SubjectDeletion, err error, _ map[string]bool) (SubjectDeletion, error, map[string]string) {
			after, lerr := c.schemasBefore(ctx, reg, subject, version, false)
			if lerr != nil && !registryNotFound(lerr) {
				return res, err, nil
			}
			for _, v := range after.Versions {
				if !v.Deleted {
					return res, err, map[string]string{subject: auditlog.FoundNotApplied}
				}
			}
			return res, nil, map[string]string{subject: auditlog.FoundApplied}
		},
		detail: func(_ deletedBefore, r SubjectDeletion, _ string) any {
			return map[string]any{"versions": r.Versions, "permanent": r.Permanent}
		},
	})
}

// schemasBefore reads the versions a delete would remove, with their
// schemas: the live ones, and with permanent the soft-deleted ones too.
func (c *Client) schemasBefore(ctx context.Context, reg *schemas.Registry, subject string, version int, permanent bool) (deletedBefore, error) {
	var versions []int
	if version != schemas.Latest {
		versions = []int{version}
	} else {
		vs, err := reg.Versions(ctx, subject, true)
		if err != nil {
			return deletedBefore{}, err
		}
		versions = vs
	}
	live := map[int]bool{}
	if vs, err := reg.Versions(ctx, subject, false); err == nil {
		for _, v := range vs {
			live[v] = true
		}
	} else if !registryNotFound(err) {
		return deletedBefore{}, err
	}
	out := deletedBefore{Versions: []schemas.SubjectSchema{}}
	for _, v := range versions {
		if !live[v] && !permanent {
			continue
		}
		s, err := reg.SchemaAt(ctx, subject, v, true)
		if err != nil {
			return deletedBefore{}, err
		}
		s.Deleted = !live[v]
		out.Versions = append(out.Versions, s)
	}
	if len(out.Versions) == 0 {
		what := "subject " + subject + " has no versions"
		if version != schemas.Latest {
			what = fmt.Sprintf("subject %s has no version %d", subject, version)
		}
		if !permanent {
			what += " that are not deleted already"
		}
		return out, Errorf(CodeNotFound, subject, "%s", what)
	}
	return out, nil
}

// PlanDeleteSchemas says what a delete would remove; nothing changes.
func (c *Client) PlanDeleteSchemas(ctx context.Context, subject string, version int, permanent bool) (SubjectDeletion, string, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return SubjectDeletion{}, "", err
	}
	defer cancel()
	b, err := c.schemasBefore(ctx, reg, subject, version, permanent)
	if err != nil {
		return SubjectDeletion{}, "", err
	}
	res := SubjectDeletion{Subject: subject, Permanent: permanent, Versions: []int{}}
	var ids []string
	for _, v := range b.Versions {
		res.Versions = append(res.Versions, v.Version)
		ids = append(ids, fmt.Sprintf("version %d (id %d)", v.Version, v.ID))
	}
	how := "soft-delete (ids stay readable)"
	if permanent {
		how = "permanently delete (the registry forgets them)"
	}
	return res, fmt.Sprintf("%s: would %s %s", subject, how, strings.Join(ids, ", ")), nil
}
