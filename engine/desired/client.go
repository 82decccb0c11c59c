package desired

import "github.com/kadmin-lua/kadmin-lua/engine"

// client is the admin core's client as desired state drives it: every read
// and change goes through the core's methods (and so through its mutate,
// audit log and dry-run); this package only plans and orders them.
type client struct{ *engine.Client }
