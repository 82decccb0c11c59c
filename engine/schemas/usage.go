package schemas

import (
	"context"

	"github.com/twmb/franz-go/pkg/sr"
)

// Which subject and version a schema id is: the registry's
// GET /schemas/ids/{id}/versions, soft-deleted versions included (a record
// written before its schema's version was deleted was still written with
// it). Unlike the schema, the subjects holding an id change (a register, a
// delete), so they are not kept for the registry's life: a Decoder asks
// once per id for the records of its call.

// usages is id's subject-versions; a registry that cannot say (an old one
// without the endpoint, a failed request) gives none. Asked once, not
// retried: the subject is a row's aside, and the record decoded already.
func (r *Registry) usages(ctx context.Context, id int) []SubjectVersion {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	got, err := r.cl.SchemaUsagesByID(sr.WithParams(ctx, sr.ShowDeleted), id)
	if err != nil {
		return nil
	}
	out := make([]SubjectVersion, len(got))
	for i, s := range got {
		out[i] = SubjectVersion{Subject: s.Subject, Version: s.Version}
	}
	return out
}

// SubjectOf is the subject and version a record framed with schema id
// was written under, as far as the registry can tell: preferred (the
// subject the topic name strategy names, TOPIC-value or TOPIC-key) when it
// holds the id, else the one subject that does; in either, its highest
// version holding the id. False when no subject holds it, or several do
// and none is preferred: the registry cannot tell which the producer used.
func (r *Registry) SubjectOf(ctx context.Context, id int, preferred string) (SubjectVersion, bool) {
	return pickSubject(r.usages(ctx, id), preferred)
}

// pickSubject chooses among the subject-versions holding one id (a
// handful: no map).
func pickSubject(usages []SubjectVersion, preferred string) (SubjectVersion, bool) {
	pick := ""
	for _, u := range usages {
		switch {
		case u.Subject == preferred:
			pick = preferred
		case pick == "":
			pick = u.Subject
		case pick != u.Subject && pick != preferred:
			pick = "\x00several"
		}
	}
	if pick == "" || pick == "\x00several" {
		return SubjectVersion{}, false
	}
	var best SubjectVersion
	for _, u := range usages {
		if u.Subject == pick && u.Version > best.Version {
			best = u
		}
	}
	return best, true
}

// subjectPick is a Decoder's answer for one id, kept for its other records.
type subjectPick struct {
	at SubjectVersion
	ok bool
}

// SubjectOf is the subject and version the registry says a record d
// decoded with schema id was written under (Registry.SubjectOf with d's
// Subject preferred), asked once per id for d's records. False for a
// local schema file or no registry.
func (d *Decoder) SubjectOf(ctx context.Context, id int) (SubjectVersion, bool) {
	if d.Registry == nil || id <= 0 {
		return SubjectVersion{}, false
	}
	if p, ok := d.subjects[id]; ok {
		return p.at, p.ok
	}
	at, ok := d.Registry.SubjectOf(ctx, id, d.Subject)
	if d.subjects == nil {
		d.subjects = map[int]subjectPick{}
	}
	d.subjects[id] = subjectPick{at, ok}
	return at, ok
}
