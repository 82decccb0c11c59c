package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// Reverting the registry's changes. A registry change is reverted only on
// the registry it was made on: the undo's client must have the same URLs
// as the intent's arguments name, else the change is refused.

// registryOf reads the registry an intent names and checks that the
// undo's client has it.
func (u *undoer) registryOf() (*schemas.Registry, string, bool) {
	var args struct {
		Registry string `json:"registry"`
	}
	_ = auditlog.DecodeField(u.ch.Intent.Args, &args)
	reg, err := u.c.Registry()
	if err != nil {
		u.step("", UndoRefused, "made on the schema registry %s, and this undo has none: pass --schema-registry %s", args.Registry, args.Registry)
		return nil, "", false
	}
	if !schemas.SameRegistry(schemas.SplitURLs(args.Registry), reg.Config().URLs) {
		u.step("", UndoRefused, "made on the schema registry %s; this undo's registry is %s", args.Registry, reg.Config())
		return nil, "", false
	}
	return reg, args.Registry, true
}

// registeredSchema soft-deletes the version a register_schema created, if
// it is still the subject's newest with the same id.
func (u *undoer) registeredSchema(applied map[string]auditlog.ItemOutcome) error {
	reg, _, ok := u.registryOf()
	if !ok {
		return nil
	}
	for subject, it := range applied {
		var d registered
		if err := auditlog.DecodeField(it.Detail, &d); err != nil {
			return err
		}
		if !d.Created {
			u.step(subject, UndoSkipped, "the subject held the schema already (id %d, version %d): nothing was registered", d.ID, d.Version)
			continue
		}
		latest, err := reg.SchemaAt(u.ctx, subject, schemas.Latest, false)
		switch {
		case err != nil && registryNotFound(err):
			u.step(subject, UndoSkipped, "already as before: version %d is gone", d.Version)
			continue
		case err != nil:
			u.step(subject, UndoFailed, "reading the subject: %v", err)
			continue
		case latest.Version != d.Version || latest.ID != d.ID:
			u.step(subject, UndoRefused, "changed since: its newest version is %d (id %d), not the registered %d (id %d)", latest.Version, latest.ID, d.Version, d.ID)
			continue
		}
		u.revert(subject, fmt.Sprintf("soft-delete version %d (id %d stays readable)", d.Version, d.ID), func(ctx context.Context) error {
			_, err := u.c.DeleteSchemaVersion(ctx, subject, d.Version, false)
			return err
		})
	}
	return nil
}

// schemaCompatibility sets a subject's (or the global) level back, or
// removes the subject's own level when it had none.
func (u *undoer) schemaCompatibility(applied map[string]auditlog.ItemOutcome) error {
	reg, _, ok := u.registryOf()
	if !ok {
		return nil
	}
	var before schemas.Compatibility
	if err := auditlog.DecodeField(u.ch.Intent.Before, &before); err != nil {
		return err
	}
	key := compatKey(before.Subject)
	it, ok := applied[key]
	if !ok {
		return nil
	}
	var d struct {
		Level string `json:"level"`
	}
	if err := auditlog.DecodeField(it.Detail, &d); err != nil {
		return err
	}
	now, err := reg.Compatibilities(u.ctx, []string{before.Subject})
	if err != nil {
		u.step(key, UndoFailed, "reading its compatibility level: %v", err)
		return nil
	}
	cur := now[0]
	switch {
	case cur.Level == before.Level && cur.Own == before.Own:
		u.step(key, UndoSkipped, "already as before: %s", before.Level)
	case cur.Level != d.Level:
		u.step(key, UndoRefused, "changed since: its level is %s, not the %s set", cur.Level, d.Level)
	case before.Own:
		u.revert(key, "set the level back to "+before.Level, func(ctx context.Context) error {
			_, err := u.c.SetSchemaCompatibility(ctx, before.Subject, before.Level)
			return err
		})
	default:
		u.revert(key, "remove the subject's own level: it inherits the global "+before.Level+" again", func(ctx context.Context) error {
			return u.c.resetSchemaCompatibility(ctx, reg, before.Subject)
		})
	}
	return nil
}

// resetSchemaCompatibility removes subject's own level, audited as
// set_schema_compatibility to the global level would not be: the
// subject inherits again.
func (c *Client) resetSchemaCompatibility(ctx context.Context, reg *schemas.Registry, subject string) error {
	_, err := mutate(ctx, c, mutation[schemas.Compatibility, CompatibilitySet]{
		op: "set_schema_compatibility", keys: []string{compatKey(subject)},
		args: struct {
			Registry string `json:"registry"`
			Subject  string `json:"subject,omitempty"`
			Reset    bool   `json:"reset"`
		}{reg.Config().String(), subject, true},
		send: func(ctx context.Context, _ schemas.Compatibility) (CompatibilitySet, error) {
			return CompatibilitySet{Subject: subject}, reg.ResetCompatibility(ctx, subject)
		},
		items: func(r CompatibilitySet) []Item { return []Item{r} },
	})
	return err
}

// deletedSchemas registers a soft delete's versions again, oldest first:
// the registry gives a schema it knows its old id back (the version
// numbers are new). A permanent delete is refused: the registry forgot
// the ids.
func (u *undoer) deletedSchemas(applied map[string]auditlog.ItemOutcome) error {
	reg, _, ok := u.registryOf()
	if !ok {
		return nil
	}
	var before deletedBefore
	if err := auditlog.DecodeField(u.ch.Intent.Before, &before); err != nil {
		return err
	}
	for subject, it := range applied {
		var d struct {
			Permanent bool `json:"permanent"`
		}
		if err := auditlog.DecodeField(it.Detail, &d); err != nil {
			return err
		}
		if d.Permanent {
			u.step(subject, UndoRefused, "a permanent delete cannot be undone: the registry forgot the ids (the intent line has the schemas, which register_schema can register again under new ids)")
			continue
		}
		var todo []schemas.SubjectSchema
		var ids []string
		for _, v := range before.Versions {
			if v.Deleted {
				continue
			}
			if _, found, err := reg.Lookup(u.ctx, subject, v.AsSchema()); err != nil {
				u.step(subject, UndoFailed, "looking for version %d's schema: %v", v.Version, err)
				return nil
			} else if !found {
				todo = append(todo, v)
				ids = append(ids, fmt.Sprint(v.ID))
			}
		}
		if len(todo) == 0 {
			u.step(subject, UndoSkipped, "already as before: the subject holds its schemas again")
			continue
		}
		slices.SortFunc(todo, func(a, b schemas.SubjectSchema) int { return a.Version - b.Version })
		what := fmt.Sprintf("register the deleted schemas again (ids %s; the registry numbers the versions anew)", strings.Join(ids, ", "))
		if u.o.DryRun {
			u.step(subject, UndoWould, "%s", what)
			continue
		}
		for i, v := range todo {
			_, err := u.c.RegisterSchema(u.ctx, subject, v.AsSchema())
			if e := AsError(err, subject); e != nil && i == 0 && e.Code == "SUBJECT_NOT_FOUND" {
				// Confluent's registry registers under a soft-deleted
				// subject; some registries (and franz-go's srfake) do
				// not: nothing was changed, and it is said so.
				u.step(subject, UndoRefused, "the registry does not register under a soft-deleted subject (%s): register the schemas again elsewhere, or delete the subject permanently first", e.Message)
				break
			} else if err != nil {
				u.step(subject, UndoFailed, "%s: %v", what, err)
				break
			}
			if i == len(todo)-1 {
				u.step(subject, UndoReverted, "%s", what)
			}
		}
	}
	return nil
}
