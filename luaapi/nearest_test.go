package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNearestFunc(t *testing.T) {
	for name, want := range map[string]string{
		"lagg":                    "lag",
		"list_topic":              "list_topics",
		"describe_topcis":         "describe_topics",
		"describe_consumer_grups": "describe_consumer_groups", // an alias
		"slep":                    "kafka.sleep",              // a library function without its prefix
		"kafka.slep":              "kafka.sleep",
		"json.encod":              "kafka.json.encode",
		"xyzzy":                   "",
		"":                        "",
	} {
		assert.Equal(t, want, NearestFunc(name), name)
	}
}
