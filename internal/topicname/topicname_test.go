package topicname

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckIsKafkasRule(t *testing.T) {
	for _, ok := range []string{"orders", "a", "a.b_c-D9", "..a", strings.Repeat("x", MaxLength)} {
		assert.NoError(t, Check(ok), ok)
	}
	for name, why := range map[string]string{
		"":                               "is empty",
		".":                              `cannot be "."`,
		"..":                             `cannot be ".."`,
		strings.Repeat("x", MaxLength+1): "is 250 characters long; Kafka allows at most 249",
		"a b":                            `"a b" has ' '`,
		"caf\u00e9":                      `has 'é'`,
		"a/b":                            `has '/'`,
	} {
		assert.ErrorContains(t, Check(name), why, "%q", name)
	}
}
