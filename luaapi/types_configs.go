package luaapi

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// Types shared by the admin areas of configs, ACLs, SCRAM users and
// features: names Kafka tools spell several ways, and secrets.

// spelledEnum is an Enum that also accepts the other spellings Kafka's
// tools use for the same name ("DescribeConfigs", "describe-configs",
// "SHA-512"): same reports whether a spelling names a declared name. The
// value given back is always the declared name; a refused value gets
// Enum's error (the allowed names, the nearest one).
func spelledEnum(same func(spelling, name string) bool, names ...string) *CustomType {
	e := Enum(names...)
	c := Custom("", strconv.Quote(names[0]), func(r *reader, v lua.LValue, at string) (any, error) {
		if s, ok := v.(lua.LString); ok && len(s) <= maxKafkaString {
			for _, n := range names {
				if same(string(s), n) {
					return n, nil
				}
			}
		}
		return e.read(r, v, at)
	}, lua.LTString).Like(e)
	c.docFn = e.Doc // worked out when asked (help, docs), not at start-up
	return c
}

// secretStr reads a secret (a password): a non-empty string. Its errors
// never show the value, whatever its type.
var secretStr = Custom("non-empty string (never shown)", `"example-only"`, func(_ *reader, v lua.LValue, at string) (any, error) {
	s, ok := v.(lua.LString)
	switch {
	case !ok || s == "":
		return nil, argErr(at, "must be a non-empty string (the value is not shown)")
	case len(s) > maxKafkaString:
		return nil, argErr(at, "is %d bytes long; at most %d are allowed", len(s), maxKafkaString)
	}
	return string(s), nil
}, lua.LTString)
