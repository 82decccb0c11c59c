package engine

import (
	"context"
	"regexp"

	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// The Schema Registry as an admin area: the reads here, the audited
// writes in schemas_write.go. The registry client itself (HTTP, its
// credentials, the codecs) is engine/schemas; a client has the registry
// its configuration names (Config.Registry), made on first use and kept
// for its life, so that a schema is fetched once per id per run.

// Registry is the client's Schema Registry: NO_SCHEMA_REGISTRY when its
// configuration names none.
func (c *Client) Registry() (*schemas.Registry, error) {
	c.registryOnce.Do(func() {
		if c.cfg.Registry == nil {
			c.registryErr = Errorf(schemas.CodeNoRegistry, "", "no schema registry: pass --schema-registry URL, set KADMIN_SCHEMA_REGISTRY_URL, or give the profile a schema_registry")
			return
		}
		rc := *c.cfg.Registry
		if rc.Timeout == 0 {
			rc.Timeout = c.cfg.timeout()
		}
		c.registry, c.registryErr = schemas.New(rc)
	})
	return c.registry, c.registryErr
}

// registryCall bounds one registry call by the client's timeout.
func (c *Client) registryCall(ctx context.Context) (*schemas.Registry, context.Context, context.CancelFunc, error) {
	reg, err := c.Registry()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout())
	return reg, ctx, cancel, nil
}

// ListedSubject is one subject of the registry.
type ListedSubject struct {
	Subject string `json:"subject"`
	Deleted bool   `json:"deleted"` // soft-deleted: every version is
}

// ListSubjectsOptions filter ListSubjects.
type ListSubjectsOptions struct {
	Deleted bool           // the soft-deleted subjects too
	Match   *regexp.Regexp // only the subjects it matches
}

// ListSubjects lists the registry's subjects, sorted.
func (c *Client) ListSubjects(ctx context.Context, o ListSubjectsOptions) ([]ListedSubject, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	live, err := reg.Subjects(ctx, false)
	if err != nil {
		return nil, err
	}
	names := live
	if o.Deleted {
		if names, err = reg.Subjects(ctx, true); err != nil {
			return nil, err
		}
	}
	isLive := map[string]bool{}
	for _, s := range live {
		isLive[s] = true
	}
	out := make([]ListedSubject, 0, len(names))
	for _, s := range names {
		if o.Match == nil || o.Match.MatchString(s) {
			out = append(out, ListedSubject{Subject: s, Deleted: !isLive[s]})
		}
	}
	return out, nil
}

// SchemaVersion is one version of a subject.
type SchemaVersion struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
	Deleted bool   `json:"deleted"`
}

// ListSchemaVersions lists subject's versions, ascending; with deleted,
// the soft-deleted ones too, marked.
func (c *Client) ListSchemaVersions(ctx context.Context, subject string, deleted bool) ([]SchemaVersion, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	live, err := reg.Versions(ctx, subject, false)
	if err != nil && !(deleted && registryNotFound(err)) {
		return nil, err
	}
	all := live
	if deleted {
		if all, err = reg.Versions(ctx, subject, true); err != nil {
			return nil, err
		}
	}
	isLive := map[int]bool{}
	for _, v := range live {
		isLive[v] = true
	}
	out := make([]SchemaVersion, 0, len(all))
	for _, v := range all {
		out = append(out, SchemaVersion{Subject: subject, Version: v, Deleted: !isLive[v]})
	}
	return out, nil
}

// registryNotFound: the registry has no such subject or version.
func registryNotFound(err error) bool {
	e := AsError(err, "")
	switch e.Code {
	case "SUBJECT_NOT_FOUND", "VERSION_NOT_FOUND", "SCHEMA_NOT_FOUND", CodeNotFound:
		return true
	}
	return false
}

// DescribeSchema reads one version of subject (schemas.Latest: the
// newest); with deleted, a soft-deleted one too.
func (c *Client) DescribeSchema(ctx context.Context, subject string, version int, deleted bool) (schemas.SubjectSchema, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return schemas.SubjectSchema{}, err
	}
	defer cancel()
	s, err := reg.SchemaAt(ctx, subject, version, deleted)
	if err != nil {
		return s, err
	}
	if deleted {
		if _, lerr := reg.SchemaAt(ctx, subject, s.Version, false); lerr != nil && registryNotFound(lerr) {
			s.Deleted = true
		}
	}
	return s, nil
}

// SchemaOfID is a schema read by its id, with the subject versions that
// hold it.
type SchemaOfID struct {
	ID         int                      `json:"id"`
	Type       string                   `json:"type"`
	Text       string                   `json:"schema"`
	References []schemas.Reference      `json:"references"`
	Subjects   []schemas.SubjectVersion `json:"subjects"`
}

// DescribeSchemaID reads the schema with id and where it is registered.
func (c *Client) DescribeSchemaID(ctx context.Context, id int) (SchemaOfID, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return SchemaOfID{}, err
	}
	defer cancel()
	s, err := reg.SchemaByID(ctx, id)
	if err != nil {
		return SchemaOfID{}, err
	}
	subs, err := reg.SubjectsOfID(ctx, id)
	if err != nil {
		return SchemaOfID{}, err
	}
	return SchemaOfID{ID: id, Type: s.Type, Text: s.Text, References: s.References, Subjects: subs}, nil
}

// CheckCompatibility asks the registry whether s may be registered under
// subject: against version (schemas.Latest: the newest), as the
// subject's compatibility level says.
func (c *Client) CheckCompatibility(ctx context.Context, subject string, s schemas.Schema, version int) (schemas.CompatibilityCheck, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return schemas.CompatibilityCheck{}, err
	}
	defer cancel()
	return reg.CheckCompatibility(ctx, subject, version, s)
}

// DescribeSchemaCompatibility reads each subject's compatibility level
// (schemas.Global: the registry's).
func (c *Client) DescribeSchemaCompatibility(ctx context.Context, subjects []string) ([]schemas.Compatibility, error) {
	reg, ctx, cancel, err := c.registryCall(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	return reg.Compatibilities(ctx, subjects)
}
