package schemas

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
)

// A schema id's subject and version: the topic's subject when it holds
// the id, else the only subject that does; none when several do and none
// is the topic's. Asked once per id for a decoder's records.
func TestSubjectOfASchemaID(t *testing.T) {
	r, _, n := codecRegistry(t)
	// The same schema registered under three more subjects: one id (2).
	cl, err := sr.NewClient(sr.URLs(r.cfg.URLs...))
	require.NoError(t, err)
	for _, subject := range []string{"shop.Order", "audit-value"} {
		s, err := cl.CreateSchema(ctx(t), subject, sr.Schema{Schema: avroFullOrder,
			References: []sr.SchemaReference{{Name: "shop.Money", Subject: "money", Version: 1}}})
		require.NoError(t, err)
		require.Equal(t, 2, s.ID, "one schema, one id, in every subject")
	}

	d := &Decoder{Mode: DecodeAuto, Registry: r, Subject: "orders-value"}
	got, ok := d.SubjectOf(ctx(t), 2)
	require.True(t, ok)
	assert.Equal(t, SubjectVersion{Subject: "orders-value", Version: 1}, got)
	before := n.Load()
	for range 3 {
		again, ok := d.SubjectOf(ctx(t), 2)
		assert.True(t, ok)
		assert.Equal(t, got, again)
	}
	assert.Equal(t, before, n.Load(), "asked once per id")

	// Three subjects hold id 2, none is this topic's: the registry cannot tell.
	_, ok = (&Decoder{Registry: r, Subject: "elsewhere-value"}).SubjectOf(ctx(t), 2)
	assert.False(t, ok)
	// One subject holds id 4 (porders-value): it, whatever the topic.
	got, ok = (&Decoder{Registry: r, Subject: "elsewhere-value"}).SubjectOf(ctx(t), 4)
	require.True(t, ok)
	assert.Equal(t, SubjectVersion{Subject: "porders-value", Version: 1}, got)
	// A soft-deleted version still says which subject a record was written under.
	err = cl.DeleteSchema(ctx(t), "porders-value", 1, sr.SoftDelete)
	require.NoError(t, err)
	got, ok = (&Decoder{Registry: r, Subject: "porders-value"}).SubjectOf(ctx(t), 4)
	require.True(t, ok)
	assert.Equal(t, SubjectVersion{Subject: "porders-value", Version: 1}, got)
	// An unknown id, no registry, a local file (id 0): none.
	_, ok = (&Decoder{Registry: r}).SubjectOf(ctx(t), 999)
	assert.False(t, ok)
	_, ok = (&Decoder{}).SubjectOf(ctx(t), 2)
	assert.False(t, ok)
	_, ok = (&Decoder{Registry: r}).SubjectOf(ctx(t), 0)
	assert.False(t, ok)
}

// The highest version of the chosen subject holding the id; the topic's
// subject wins over others.
func TestPickSubject(t *testing.T) {
	usages := []SubjectVersion{{"a", 1}, {"t-value", 2}, {"a", 3}, {"t-value", 5}}
	got, ok := pickSubject(usages, "t-value")
	assert.True(t, ok)
	assert.Equal(t, SubjectVersion{"t-value", 5}, got)
	_, ok = pickSubject(usages, "x-value")
	assert.False(t, ok)
	got, ok = pickSubject([]SubjectVersion{{"a", 1}, {"a", 3}}, "x-value")
	assert.True(t, ok)
	assert.Equal(t, SubjectVersion{"a", 3}, got)
	_, ok = pickSubject(nil, "x-value")
	assert.False(t, ok)
}
