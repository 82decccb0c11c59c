package luaapi

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
)

// installKafka builds the kafka table (also require("kafka")), binds every
// admin function as a global on the default client, and installs the
// library functions at their dotted paths.
func (r *Runtime) installKafka() {
	L := r.L
	kafka := L.NewTable()
	L.SetGlobal("kafka", kafka)
	r.funcOf = map[*lua.LFunction]*Func{}
	def := r.clientObject(r.dflt)
	kafka.RawSetString("default", def)
	nullUD := L.NewUserData()
	nullMT := L.NewTable()
	nullMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LString("null")); return 1 }))
	nullUD.Metatable = nullMT
	L.SetField(L.Get(lua.RegistryIndex), "kadmin.null", nullUD)

	for _, f := range Funcs() {
		if f.IsAdmin() {
			for _, name := range append([]string{f.Name}, f.Aliases...) {
				fn := r.bind(r.dflt, f, nil)
				L.SetGlobal(name, fn)
				r.funcOf[fn] = f
			}
			continue
		}
		native := f
		fn := L.NewFunction(func(L *lua.LState) int {
			if native.declared() {
				if _, err := parseArgs(native, argsOf(L, 1), r.null()); err != nil {
					raise(L, native.Name, err, nil)
				}
			}
			return native.Native(r, L)
		})
		r.funcOf[fn] = f
		r.installAt(native.Name, fn)
	}
	if json, ok := kafka.RawGetString("json").(*lua.LTable); ok {
		json.RawSetString("null", nullUD)
	}
	// require("kafka") returns the same table.
	if pkg, ok := L.GetGlobal("package").(*lua.LTable); ok {
		if loaded, ok := pkg.RawGetString("loaded").(*lua.LTable); ok {
			loaded.RawSetString("kafka", kafka)
		}
	}
}

// argsOf returns the values on L's stack from index base.
func argsOf(L *lua.LState, base int) []lua.LValue {
	n := L.GetTop() - base + 1
	if n <= 0 {
		return nil
	}
	out := make([]lua.LValue, n)
	for i := range out {
		out[i] = L.Get(base + i)
	}
	return out
}

// installAt sets a dotted path ("kafka.json.encode", "help") to fn.
func (r *Runtime) installAt(path string, fn lua.LValue) {
	parts := strings.Split(path, ".")
	if len(parts) == 1 {
		r.L.SetGlobal(path, fn)
		return
	}
	t, _ := r.L.GetGlobal(parts[0]).(*lua.LTable)
	for _, p := range parts[1 : len(parts)-1] {
		next, ok := t.RawGetString(p).(*lua.LTable)
		if !ok {
			next = r.L.NewTable()
			t.RawSetString(p, next)
		}
		t = next
	}
	t.RawSetString(parts[len(parts)-1], fn)
}

func (r *Runtime) null() lua.LValue {
	return r.L.GetField(r.L.Get(lua.RegistryIndex), "kadmin.null")
}

// libError raises a library function's error, named after it.
func libError(L *lua.LState, name string, err error) int {
	raise(L, name, err, nil)
	return 0
}

func init() {
	register(
		&Func{Name: "kafka.connect", Area: "library", Args: "{brokers=, profile=, sasl_mechanism=, sasl_username=, tls=, timeout=}",
			Returns: "client", Summary: "Connect to another cluster; the client has every admin function as a method.",
			Doc: "Returns a client object: `c:list_topics()`, `c:create_topics{...}`. It connects lazily, on the first call. Credentials stay with their cluster: `kafka.connect{}` is another client to the default cluster with its credentials; `brokers=` names another cluster, reached with no credentials unless the call names them (`sasl_mechanism` with `sasl_username`, whose password comes from KADMIN_SASL_PASSWORD and never from the script; `tls_cert`/`tls_key`) or a `profile` from the config file whose brokers include every seed. timeout is in milliseconds.",
			Example: `local c = kafka.connect{brokers = kafka.default:brokers()}
return #c:list_topics() >= 0`,
			Native: (*Runtime).libConnect},
		&Func{Name: "kafka.json.encode", Area: "library", Args: "(value[, {indent=bool}])", Returns: "string",
			Summary: "Encode a value as JSON with sorted keys; empty tables are [], kafka.json.null is null.",
			Example: `return kafka.json.encode({b = 1, a = {1, 2}})`,
			Native:  (*Runtime).libJSONEncode},
		&Func{Name: "kafka.json.decode", Area: "library", Args: "(string)", Returns: "value",
			Summary: "Decode JSON; null becomes kafka.json.null.",
			Example: `return kafka.json.decode('{"a":[1,2]}').a[2]`,
			Native:  (*Runtime).libJSONDecode},
		&Func{Name: "kafka.pp", Area: "library", Args: "(value...)", Returns: "nothing",
			Summary: "Pretty-print values to stdout: arrays of records as an aligned table, others as indented Lua (JSON under -o json).",
			Example: `kafka.pp(list_topics())`,
			Native:  (*Runtime).libPP},
		&Func{Name: "kafka.sleep", Area: "library", Args: "(ms)", Returns: "nothing",
			Summary: "Sleep; Ctrl-C interrupts it.",
			Example: `kafka.sleep(10)`,
			Native:  (*Runtime).libSleep},
		&Func{Name: "kafka.now", Area: "library", Args: "()", Returns: "number",
			Summary: "Milliseconds since the Unix epoch (Kafka timestamps are in ms).",
			Example: `return kafka.now() > 0`,
			Native:  (*Runtime).libNow},
		&Func{Name: "kafka.env", Area: "library", Args: "(name[, default])", Returns: "string or nil",
			Summary: "Read an environment variable.",
			Example: `return kafka.env("KADMIN_NO_SUCH_VAR", "fallback")`,
			Native:  (*Runtime).libEnv},
		&Func{Name: "kafka.check", Area: "library", Args: "(cond, message)", Returns: "cond",
			Summary: "Record a health check; when any check failed the run exits 4 at the end. Does not stop the script.",
			Example: `kafka.check(#list_topics() > 0, "cluster has topics")`,
			Native:  (*Runtime).libCheck},
		&Func{Name: "kafka.fail", Area: "library", Args: "(message)", Returns: "never",
			Summary: "Stop the script with an error (exit 1).",
			Example: `local ok = pcall(kafka.fail, "stop here")
return ok == false`,
			Native: (*Runtime).libFail},
		&Func{Name: "kafka.dry_run", Area: "library", Args: "([on])", Returns: "boolean",
			Summary: "Turn dry-run on or off for the rest of the run; returns the current setting. In dry-run, mutations validate and print their plan to stderr but change nothing.",
			Example: `kafka.dry_run(true)
local r = create_topics{"dry-run-example"}
kafka.dry_run(false)
return r[1].dry_run`,
			Native: (*Runtime).libDryRun},
		&Func{Name: "kafka.log.info", Area: "library", Args: "(message or {msg=, key=value...})", Returns: "nothing",
			Summary: "Structured log line on stderr (also kafka.log.warn, kafka.log.error, kafka.log.debug).",
			Example: `kafka.log.info{msg = "checked", topics = 3}`,
			Native:  logAt("info")},
		&Func{Name: "kafka.log.warn", Area: "library", Args: "(message or {msg=, ...})", Returns: "nothing", Summary: "Structured warning on stderr.", Native: logAt("warn")},
		&Func{Name: "kafka.log.error", Area: "library", Args: "(message or {msg=, ...})", Returns: "nothing", Summary: "Structured error line on stderr.", Native: logAt("error")},
		&Func{Name: "kafka.log.debug", Area: "library", Args: "(message or {msg=, ...})", Returns: "nothing", Summary: "Structured debug line on stderr.", Native: logAt("debug")},
		&Func{Name: "help", Area: "library", Args: "([fn or name])", Returns: "nothing",
			Summary: "Show the functions, or one function's documentation.",
			Example: `help(create_topics)`,
			Native:  (*Runtime).libHelp},
	)
}

// libConnect makes a client. Credentials belong to one cluster
// (internal/clientconfig/credentials.go): kafka.connect{} is the default cluster with the
// default client's credentials; brokers= names another cluster, reached with
// no credentials unless the call names them (sasl_*, tls_cert) or a profile
// whose brokers include every seed.
func (r *Runtime) libConnect(L *lua.LState) int {
	f := newFields(L.OptTable(1, L.NewTable()), "options",
		"brokers", "profile", "command_config", "client_id", "timeout", "sasl_mechanism", "sasl_username",
		"sasl_oauth_token_file", "sasl_oauth_token_endpoint", "sasl_oauth_client_id", "sasl_oauth_scope",
		"sasl_kerberos_principal", "sasl_kerberos_keytab", "sasl_kerberos_service_name", "sasl_kerberos_config",
		"sasl_aws_profile", "sasl_aws_role_arn",
		"tls", "tls_ca", "tls_cert", "tls_key", "tls_server_name", "tls_insecure_skip_verify",
		"tls_truststore", "tls_truststore_type", "tls_keystore", "tls_keystore_type")
	cfg := r.opts.Config
	profile := f.str("profile", false)
	if profile != "" && f.err == nil {
		if r.opts.Resolve == nil {
			return libError(L, "kafka.connect", argErr("profile", "profiles are not configured"))
		}
		c, err := r.opts.Resolve(profile)
		if err != nil {
			return libError(L, "kafka.connect", err)
		}
		cfg = c
	}
	// own is what the call itself names: a client.properties file
	// (command_config) under the sasl_* and tls_* options. Its secrets come
	// from the file or from the KADMIN_* variables, never from the script;
	// a token command cannot be given here (the sandbox runs no commands).
	var own clientconfig.Profile
	if file := f.str("command_config", false); file != "" && f.err == nil {
		p, err := clientconfig.LoadClientProperties(file)
		if err != nil {
			return libError(L, "kafka.connect", err)
		}
		own = p
	}
	mech, user := f.str("sasl_mechanism", false), f.str("sasl_username", false)
	if user != "" && mech == "" && f.err == nil {
		return libError(L, "kafka.connect", argErr("options", "sasl_username needs sasl_mechanism"))
	}
	if mech != "" {
		s := &clientconfig.ProfileSASL{Mechanism: mech, Username: user}
		if f.has("sasl_oauth_token_file") || f.has("sasl_oauth_token_endpoint") {
			s.OAuth = &clientconfig.ProfileOAuth{TokenFile: f.str("sasl_oauth_token_file", false),
				TokenEndpoint: f.str("sasl_oauth_token_endpoint", false), ClientID: f.str("sasl_oauth_client_id", false),
				Scope: f.str("sasl_oauth_scope", false)}
		}
		if f.has("sasl_kerberos_principal") || f.has("sasl_kerberos_keytab") || f.has("sasl_kerberos_service_name") || f.has("sasl_kerberos_config") {
			s.Kerberos = &clientconfig.ProfileKerberos{Principal: f.str("sasl_kerberos_principal", false),
				Keytab: f.str("sasl_kerberos_keytab", false), ServiceName: f.str("sasl_kerberos_service_name", false),
				Krb5Conf: f.str("sasl_kerberos_config", false)}
		}
		if f.has("sasl_aws_profile") || f.has("sasl_aws_role_arn") {
			s.AWS = &clientconfig.ProfileAWS{Profile: f.str("sasl_aws_profile", false), RoleARN: f.str("sasl_aws_role_arn", false)}
		}
		own = clientconfig.Overlay(own, clientconfig.Profile{SASL: s})
	}
	if f.boolean("tls") || f.has("tls_ca") || f.has("tls_cert") || f.has("tls_truststore") || f.has("tls_keystore") {
		t := &clientconfig.ProfileTLS{CAFile: f.str("tls_ca", false), CertFile: f.str("tls_cert", false),
			KeyFile: f.str("tls_key", false), ServerName: f.str("tls_server_name", false),
			InsecureSkipVerify: f.boolean("tls_insecure_skip_verify"),
			Truststore:         f.str("tls_truststore", false), TruststoreType: f.str("tls_truststore_type", false),
			Keystore: f.str("tls_keystore", false), KeystoreType: f.str("tls_keystore_type", false)}
		own = clientconfig.Overlay(own, clientconfig.Profile{TLS: t})
	}
	ownCreds := own.HasCredentials()
	var seeds []string
	for _, b := range f.strings("brokers") {
		seeds = append(seeds, clientconfig.SplitList(b)...)
	}
	if !f.has("brokers") {
		seeds = own.Brokers // the command_config's bootstrap.servers, if any
	}
	if len(seeds) > 0 {
		if profile != "" && cfg.HasCredentials() && !ownCreds && !clientconfig.BrokersWithin(seeds, cfg.Brokers) && f.err == nil {
			return libError(L, "kafka.connect", argErr("brokers", "%s is not among profile %q's brokers (%s), and its credentials go only to them: leave out brokers, or name the credentials for it (sasl_mechanism, sasl_username)",
				strings.Join(seeds, ","), profile, strings.Join(cfg.Brokers, ",")))
		}
		if profile == "" || !clientconfig.BrokersWithin(seeds, cfg.Brokers) {
			cfg = cfg.WithoutCredentials()
		}
		cfg.Brokers = seeds
	}
	if id := cmp.Or(f.str("client_id", false), own.ClientID); id != "" {
		cfg.ClientID = id
	}
	if ms := f.integer("timeout", 1, 0); ms > 0 {
		cfg.Timeout = time.Duration(ms) * time.Millisecond
	}
	if f.err != nil {
		return libError(L, "kafka.connect", f.err)
	}
	if own.SASL != nil || own.TLS != nil {
		// The call names the user, so the password is the one for users
		// named outside a profile: KADMIN_SASL_PASSWORD (or the file's).
		oc, err := own.Config(r.opts.Env, nil)
		if err != nil {
			return libError(L, "kafka.connect", err)
		}
		if own.SASL != nil {
			cfg.SASL = oc.SASL
		}
		if own.TLS != nil {
			cfg.TLS = oc.TLS
		}
	}
	h := &clientHandle{rt: r, cfg: cfg, name: "connect"}
	r.mu.Lock()
	r.clients = append(r.clients, h)
	r.mu.Unlock()
	L.Push(r.clientObject(h))
	return 1
}

func (r *Runtime) libJSONEncode(L *lua.LState) int {
	indent := ""
	if opts, ok := L.Get(2).(*lua.LTable); ok && lua.LVAsBool(opts.RawGetString("indent")) {
		indent = "  "
	}
	s, err := encodeJSON(L.Get(1), r.null(), indent)
	if err != nil {
		return libError(L, "kafka.json.encode", argErr("value", "%v", err))
	}
	L.Push(lua.LString(s))
	return 1
}

func (r *Runtime) libJSONDecode(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if !ok {
		return libError(L, "kafka.json.decode", argErr("argument #1", "must be a string, got %s", describe(L.Get(1))))
	}
	v, err := r.decodeJSON(string(s), r.null())
	if err != nil {
		return libError(L, "kafka.json.decode", argErr("", "invalid JSON: %v", err))
	}
	L.Push(v)
	return 1
}

func (r *Runtime) libPP(L *lua.LState) int {
	vals := make([]lua.LValue, 0, L.GetTop())
	for i := 1; i <= L.GetTop(); i++ {
		vals = append(vals, L.Get(i))
	}
	s, err := r.Format(vals, r.opts.Output)
	if err != nil {
		return libError(L, "kafka.pp", argErr("value", "%v", err))
	}
	_, _ = io.WriteString(r.opts.Stdout, s)
	return 0
}

func (r *Runtime) libSleep(L *lua.LState) int {
	ms, ok := toInt(L.Get(1))
	if !ok || ms < 0 {
		return libError(L, "kafka.sleep", argErr("ms", "must be a non-negative integer, got %s", describe(L.Get(1))))
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	ctx := L.Context()
	if ctx == nil {
		<-t.C
		return 0
	}
	select {
	case <-t.C:
	case <-ctx.Done():
		return libError(L, "kafka.sleep", engine.AsError(ctx.Err(), ""))
	}
	return 0
}

func (r *Runtime) libNow(L *lua.LState) int {
	L.Push(lua.LNumber(time.Now().UnixMilli()))
	return 1
}

func (r *Runtime) libEnv(L *lua.LState) int {
	name := L.CheckString(1)
	if v := r.opts.Env(name); v != "" {
		L.Push(lua.LString(v))
	} else {
		L.Push(L.Get(2))
	}
	return 1
}

func (r *Runtime) libCheck(L *lua.LState) int {
	cond := L.Get(1)
	if !lua.LVAsBool(cond) {
		msg := L.OptString(2, "check failed")
		r.failures = append(r.failures, msg)
		fmt.Fprintf(r.opts.Stderr, "check failed: %s\n", msg)
	}
	L.Push(cond)
	return 1
}

func (r *Runtime) libFail(L *lua.LState) int {
	msg := L.ToStringMeta(L.Get(1)).String()
	L.Error(errorTable(L, "", &engine.Error{Code: "FAIL", Message: msg}, nil), 0)
	return 0
}

func (r *Runtime) libDryRun(L *lua.LState) int {
	if L.GetTop() >= 1 {
		r.dryRun = lua.LVAsBool(L.Get(1))
	}
	L.Push(lua.LBool(r.dryRun))
	return 1
}

// logAt writes "time level msg key=value ..." lines to stderr; secret-named
// keys are redacted.
func logAt(level string) func(r *Runtime, L *lua.LState) int {
	return func(r *Runtime, L *lua.LState) int {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", time.Now().UTC().Format(time.RFC3339), strings.ToUpper(level))
		switch v := L.Get(1).(type) {
		case *lua.LTable:
			if m := v.RawGetString("msg"); m != lua.LNil {
				fmt.Fprintf(&b, " %s", lua.LVAsString(m))
			}
			var keys []string
			v.ForEach(func(k, _ lua.LValue) {
				if ks, ok := k.(lua.LString); ok && ks != "msg" {
					keys = append(keys, string(ks))
				}
			})
			slices.Sort(keys)
			for _, k := range keys {
				val := compactValue(fromLua(v.RawGetString(k)))
				if engine.IsSecretKey(k) {
					val = `"***"`
				}
				fmt.Fprintf(&b, " %s=%s", k, val)
			}
		default:
			fmt.Fprintf(&b, " %s", L.ToStringMeta(v).String())
		}
		b.WriteByte('\n')
		_, _ = io.WriteString(r.opts.Stderr, b.String())
		return 0
	}
}
