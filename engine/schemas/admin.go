package schemas

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The registry's REST API as the admin functions use it. Reads retry what
// is retriable; writes are sent once (engine/schemas.go audits them).

// Schema types, as the registry names them.
const (
	TypeAvro     = "AVRO"
	TypeProtobuf = "PROTOBUF"
	TypeJSON     = "JSON"
)

// Types are the schema types, in the registry's order.
var Types = []string{TypeAvro, TypeProtobuf, TypeJSON}

// Reference is a schema's reference to another subject's version.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Schema is a schema's text, type and references.
type Schema struct {
	Type       string      `json:"type"` // TypeAvro, TypeProtobuf or TypeJSON
	Text       string      `json:"schema"`
	References []Reference `json:"references"`
	// File is the local file the schema was read from (LoadFile): a
	// .proto file's imports are found beside it.
	File string `json:"-"`
}

// SubjectSchema is one version of a subject.
type SubjectSchema struct {
	Subject    string      `json:"subject"`
	Version    int         `json:"version"`
	ID         int         `json:"id"`
	Type       string      `json:"type"`
	Text       string      `json:"schema"`
	References []Reference `json:"references"`
	Deleted    bool        `json:"deleted,omitempty"` // soft-deleted (read with deleted=true)
}

// AsSchema is the version's schema.
func (s SubjectSchema) AsSchema() Schema {
	return Schema{Type: s.Type, Text: s.Text, References: s.References}
}

// SubjectVersion names one version of a subject.
type SubjectVersion struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Compatibility levels, as the registry names them.
var Levels = []string{"NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"}

// Global is the subject name of the registry-wide compatibility level.
const Global = ""

// Compatibility is a subject's (or the registry's) compatibility level.
type Compatibility struct {
	Subject string `json:"subject,omitempty"` // "" for the registry's global level
	Global  bool   `json:"global"`            // the registry's level, not a subject's
	Level   string `json:"level"`             // the level in force
	// Own: the subject has a level of its own; false, Level is the
	// global one it inherits.
	Own bool `json:"own"`
}

// CompatibilityCheck is the registry's answer to a compatibility check.
type CompatibilityCheck struct {
	Compatible bool     `json:"compatible"`
	Messages   []string `json:"messages"`
}

func toSR(s Schema) sr.Schema {
	out := sr.Schema{Schema: s.Text}
	switch s.Type {
	case TypeProtobuf:
		out.Type = sr.TypeProtobuf
	case TypeJSON:
		out.Type = sr.TypeJSON
	default:
		out.Type = sr.TypeAvro
	}
	for _, r := range s.References {
		out.References = append(out.References, sr.SchemaReference{Name: r.Name, Subject: r.Subject, Version: r.Version})
	}
	return out
}

func fromSR(s sr.Schema) Schema {
	out := Schema{Type: TypeAvro, Text: s.Schema, References: []Reference{}}
	switch s.Type {
	case sr.TypeProtobuf:
		out.Type = TypeProtobuf
	case sr.TypeJSON:
		out.Type = TypeJSON
	}
	for _, r := range s.References {
		out.References = append(out.References, Reference{Name: r.Name, Subject: r.Subject, Version: r.Version})
	}
	return out
}

func fromSubjectSchema(s sr.SubjectSchema) SubjectSchema {
	sch := fromSR(s.Schema)
	return SubjectSchema{Subject: s.Subject, Version: s.Version, ID: s.ID, Type: sch.Type, Text: sch.Text, References: sch.References}
}

// deletedParam asks for soft-deleted subjects and versions too.
func deletedParam(ctx context.Context, deleted bool) context.Context {
	if deleted {
		return sr.WithParams(ctx, sr.ShowDeleted)
	}
	return ctx
}

// Subjects lists the registry's subjects, sorted; with deleted, the
// soft-deleted ones too.
func (r *Registry) Subjects(ctx context.Context, deleted bool) ([]string, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var out []string
	if e := r.read(ctx, "", func(ctx context.Context) (err error) {
		out, err = r.cl.Subjects(deletedParam(ctx, deleted))
		return err
	}); e != nil {
		return nil, e
	}
	slices.Sort(out)
	return out, nil
}

// Versions lists subject's versions, ascending; with deleted, the
// soft-deleted ones too.
func (r *Registry) Versions(ctx context.Context, subject string, deleted bool) ([]int, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var out []int
	if e := r.read(ctx, subject, func(ctx context.Context) (err error) {
		out, err = r.cl.SubjectVersions(deletedParam(ctx, deleted), subject)
		return err
	}); e != nil {
		return nil, e
	}
	slices.Sort(out)
	return out, nil
}

// Latest is the version that names a subject's newest.
const Latest = -1

// SchemaAt reads one version of subject (Latest: the newest); with
// deleted, a soft-deleted version too.
func (r *Registry) SchemaAt(ctx context.Context, subject string, version int, deleted bool) (SubjectSchema, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var s sr.SubjectSchema
	res := subject
	if version != Latest {
		res = subject + " version " + strconv.Itoa(version)
	}
	if e := r.read(ctx, res, func(ctx context.Context) (err error) {
		s, err = r.cl.SchemaByVersion(deletedParam(ctx, deleted), subject, version)
		return err
	}); e != nil {
		return SubjectSchema{}, e
	}
	return fromSubjectSchema(s), nil
}

// SchemaByID reads the schema with id, once per registry client: ids never
// change meaning, so the answer (or a definite "no such schema") is kept.
func (r *Registry) SchemaByID(ctx context.Context, id int) (Schema, error) {
	e := r.entry(ctx, id, false)
	if e.err != nil {
		return Schema{}, e.err
	}
	return e.schema, nil
}

// entry is id's schema (and, with compile, its codec), fetched once. An
// error that may pass (a timeout, a registry that is down) is not kept:
// the next call asks again.
func (r *Registry) entry(ctx context.Context, id int, compile bool) *idEntry {
	r.mu.Lock()
	e := r.byID[id]
	if e == nil {
		e = &idEntry{}
		r.byID[id] = e
	}
	r.mu.Unlock()
	e.once.Do(func() {
		ctx, cancel := r.bounded(ctx)
		defer cancel()
		res := "schema id " + strconv.Itoa(id)
		var s sr.Schema
		if err := r.read(ctx, res, func(ctx context.Context) (err error) {
			s, err = r.cl.SchemaByID(ctx, id)
			return err
		}); err != nil {
			e.err = err
			return
		}
		e.schema = fromSR(s)
	})
	if mayPass(e.err) {
		r.mu.Lock()
		if r.byID[id] == e {
			delete(r.byID, id)
		}
		r.mu.Unlock()
	}
	return e
}

// mayPass reports whether err may pass on its own (a timeout, a registry
// that is down or answers 5xx, a cancelled call): such an answer is not
// kept for the id.
func mayPass(err *vocab.Error) bool {
	return err != nil && (err.Retriable || err.Code == vocab.CodeTimeout || err.Code == vocab.CodeCanceled || err.Code == vocab.CodeNetwork)
}

// SubjectsOfID lists the subject versions that hold schema id.
func (r *Registry) SubjectsOfID(ctx context.Context, id int) ([]SubjectVersion, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var vs []sr.SubjectVersion
	if e := r.read(ctx, "schema id "+strconv.Itoa(id), func(ctx context.Context) (err error) {
		vs, err = r.cl.SchemaVersionsByID(ctx, id)
		return err
	}); e != nil {
		return nil, e
	}
	out := make([]SubjectVersion, 0, len(vs))
	for _, v := range vs {
		out = append(out, SubjectVersion{Subject: v.Subject, Version: v.Version})
	}
	slices.SortFunc(out, func(a, b SubjectVersion) int {
		if c := strings.Compare(a.Subject, b.Subject); c != 0 {
			return c
		}
		return a.Version - b.Version
	})
	return out, nil
}

// Lookup finds schema among subject's versions: found is false when the
// subject does not hold it (or does not exist).
func (r *Registry) Lookup(ctx context.Context, subject string, s Schema) (SubjectSchema, bool, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var got sr.SubjectSchema
	e := r.read(ctx, subject, func(ctx context.Context) (err error) {
		got, err = r.cl.LookupSchema(ctx, subject, toSR(s))
		return err
	})
	switch {
	case e == nil:
		return fromSubjectSchema(got), true, nil
	case e.Code == sr.ErrSubjectNotFound.Name || e.Code == sr.ErrSchemaNotFound.Name || e.Code == vocab.CodeNotFound:
		return SubjectSchema{}, false, nil
	}
	return SubjectSchema{}, false, e
}

// CheckCompatibility asks whether s may be registered under subject, as
// its compatibility level decides, against version (Latest: the newest).
// A subject with no versions accepts any schema.
func (r *Registry) CheckCompatibility(ctx context.Context, subject string, version int, s Schema) (CompatibilityCheck, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var res sr.CheckCompatibilityResult
	e := r.read(ctx, subject, func(ctx context.Context) (err error) {
		res, err = r.cl.CheckCompatibility(sr.WithParams(ctx, sr.Verbose), subject, version, toSR(s))
		return err
	})
	if e != nil {
		if e.Code == sr.ErrSubjectNotFound.Name || (e.Code == sr.ErrVersionNotFound.Name && version == Latest) {
			return CompatibilityCheck{Compatible: true, Messages: []string{}}, nil
		}
		return CompatibilityCheck{}, e
	}
	if res.Messages == nil {
		res.Messages = []string{}
	}
	return CompatibilityCheck{Compatible: res.Is, Messages: res.Messages}, nil
}

// Compatibilities reads each subject's level (Global: the registry's),
// saying whether it is the subject's own or the global one inherited.
func (r *Registry) Compatibilities(ctx context.Context, subjects []string) ([]Compatibility, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var global string
	if e := r.read(ctx, "global compatibility", func(ctx context.Context) error {
		res := r.cl.Compatibility(ctx)
		global = res[0].Level.String()
		return res[0].Err
	}); e != nil {
		return nil, e
	}
	out := make([]Compatibility, 0, len(subjects))
	for _, s := range subjects {
		if s == Global {
			out = append(out, Compatibility{Subject: Global, Global: true, Level: global, Own: true})
			continue
		}
		c := Compatibility{Subject: s, Level: global}
		e := r.read(ctx, s, func(ctx context.Context) error {
			// Only the subject's own level: without defaultToGlobal=false
			// some registries answer the global one for a subject with
			// none, and it would read as the subject's.
			res := r.cl.Compatibility(sr.WithParams(ctx, sr.RawParams(url.Values{"defaultToGlobal": {"false"}})), s)
			if res[0].Err == nil {
				c.Level, c.Own = res[0].Level.String(), true
			}
			return res[0].Err
		})
		if e != nil && e.Code != sr.ErrSubjectLevelCompatibilityNotConfigured.Name && e.Code != sr.ErrSubjectNotFound.Name && e.Code != vocab.CodeNotFound {
			return nil, e
		}
		out = append(out, c)
	}
	return out, nil
}

// Register registers s under subject and returns what the registry holds:
// the new version, or the existing one when subject already has s.
func (r *Registry) Register(ctx context.Context, subject string, s Schema) (SubjectSchema, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var got sr.SubjectSchema
	if e := r.write(ctx, subject, func(ctx context.Context) (err error) {
		got, err = r.cl.CreateSchema(ctx, subject, toSR(s))
		return err
	}); e != nil {
		return SubjectSchema{}, e
	}
	out := fromSubjectSchema(got)
	out.Subject = subject
	return out, nil
}

// SetCompatibility sets subject's level (Global: the registry's).
func (r *Registry) SetCompatibility(ctx context.Context, subject, level string) error {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var l sr.CompatibilityLevel
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return vocab.Errorf(vocab.CodeInvalidArgument, subject, "compatibility level must be one of %s, got %q", strings.Join(Levels, ", "), level)
	}
	return nilIfNone(r.write(ctx, subjectName(subject), func(ctx context.Context) error {
		var subs []string
		if subject != Global {
			subs = []string{subject}
		}
		return r.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: l}, subs...)[0].Err
	}))
}

// ResetCompatibility removes subject's own level: it inherits the global
// one again.
func (r *Registry) ResetCompatibility(ctx context.Context, subject string) error {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	e := r.write(ctx, subjectName(subject), func(ctx context.Context) error {
		return r.cl.ResetCompatibility(ctx, subject)[0].Err
	})
	if e != nil && e.Code == sr.ErrSubjectLevelCompatibilityNotConfigured.Name {
		return nil // it had none: as asked
	}
	return nilIfNone(e)
}

// DeleteSubject deletes subject's versions (soft, or with permanent those
// soft-deleted before) and returns the versions deleted.
func (r *Registry) DeleteSubject(ctx context.Context, subject string, permanent bool) ([]int, error) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	how := sr.SoftDelete
	if permanent {
		how = sr.HardDelete
	}
	var out []int
	if e := r.write(ctx, subject, func(ctx context.Context) (err error) {
		out, err = r.cl.DeleteSubject(ctx, subject, how)
		return err
	}); e != nil {
		return nil, e
	}
	slices.Sort(out)
	return out, nil
}

// DeleteVersion deletes one version of subject (soft, or with permanent
// one soft-deleted before).
func (r *Registry) DeleteVersion(ctx context.Context, subject string, version int, permanent bool) error {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	how := sr.SoftDelete
	if permanent {
		how = sr.HardDelete
	}
	return nilIfNone(r.write(ctx, subject+" version "+strconv.Itoa(version), func(ctx context.Context) error {
		return r.cl.DeleteSchema(ctx, subject, version, how)
	}))
}

// nilIfNone keeps a nil *vocab.Error from becoming a non-nil error.
func nilIfNone(e *vocab.Error) error {
	if e == nil {
		return nil
	}
	return e
}

func subjectName(s string) string {
	if s == Global {
		return "global compatibility"
	}
	return s
}
