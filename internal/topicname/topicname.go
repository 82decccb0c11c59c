// Package topicname is Kafka's rule for topic names, in one place: the Lua
// argument reader (luaapi) and fixture validation must refuse exactly the
// names a broker refuses, and neither imports the other.
package topicname

import "fmt"

// MaxLength is the longest topic name Kafka accepts.
const MaxLength = 249

// Check says why Kafka would refuse s as a topic name
// (org.apache.kafka.common.internals.Topic.validate): empty, "." or "..",
// longer than MaxLength, or a character outside [a-zA-Z0-9._-]. Nil when
// Kafka accepts it. The message follows the name: "name is empty".
func Check(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("is empty")
	case s == "." || s == "..":
		return fmt.Errorf("cannot be %q (Kafka refuses it as a topic name)", s)
	case len(s) > MaxLength:
		return fmt.Errorf("is %d characters long; Kafka allows at most %d in a topic name", len(s), MaxLength)
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("%q has %q; Kafka allows only ASCII letters, digits, '.', '_' and '-' in a topic name", s, r)
		}
	}
	return nil
}
