package jsonschema

import (
	"os"
	"strings"
	"testing"
)

// compiledAtStart: whether any draft's metaschema was compiled before the
// first test ran (by init, before PATCHES.md 1).
var compiledAtStart bool

func TestMain(m *testing.M) {
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		compiledAtStart = compiledAtStart || d.sch != nil
	}
	os.Exit(m.Run())
}

// PATCHES.md, 1: the drafts' metaschemas are compiled when a schema is
// first compiled, not when the package is initialised; a schema is still
// checked against its draft.
func TestDraftsCompiledOnFirstUse(t *testing.T) {
	if compiledAtStart {
		t.Fatal("a draft's metaschema was compiled at init")
	}
	c := NewCompiler()
	doc, err := UnmarshalJSON(strings.NewReader(`{"$schema": "http://json-schema.org/draft-07/schema#", "type": 5}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("bad.json", doc); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("bad.json"); err == nil || !strings.Contains(err.Error(), "jsonschema validation failed") {
		t.Fatalf(`"type": 5 was not refused by its draft's metaschema: %v`, err)
	}
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch == nil {
			t.Fatalf("draft %d not compiled after first use", d.version)
		}
	}
}
