package engine

import (
	"cmp"
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The kinds beyond topics and ACLs (docs/reconcile.md): client quotas,
// SCRAM users, and the configs of groups, client-metrics subscriptions and
// brokers. Each is planned as create, alter or (with prune, inside owns)
// delete, checked for staleness at apply and applied through the audited
// AlterClientQuotas, AlterUserSCRAMCredentials and AlterConfigs.

// The kinds of resource a plan changes, beyond topics and ACLs.
const (
	KindQuota         = "quota"          // a client-quota entity ("user=alice")
	KindSCRAMUser     = "scram_user"     // a user's credential for one mechanism ("alice/SCRAM-SHA-512")
	KindGroupConfig   = "group_config"   // a group's configs
	KindClientMetrics = "client_metrics" // a client-metrics subscription
	KindBrokerConfig  = "broker_config"  // a broker's dynamic configs ("1", or "default")
)

// configKinds maps the config kinds to their config resource types.
var configKinds = map[string]string{KindGroupConfig: ConfigGroup, KindClientMetrics: ConfigClientMetrics, KindBrokerConfig: ConfigBroker}

// QuotaSpec is an entity's quotas, whole: a quota it has that Set does not
// give is removed.
type QuotaSpec struct {
	Entity QuotaEntity        `json:"entity"`
	Set    map[string]float64 `json:"set"`
}

// SCRAMUserSpec is a user's SCRAM credential for one mechanism. The
// password is never in a spec or a plan: it is read from the environment
// variable PasswordEnv or the file PasswordFile, when planning (to
// fingerprint it) and again when applying.
type SCRAMUserSpec struct {
	User         string `json:"user"`
	Mechanism    string `json:"mechanism"`            // SCRAM-SHA-256 or SCRAM-SHA-512
	Iterations   int32  `json:"iterations,omitempty"` // 0: 4096
	PasswordEnv  string `json:"password_env,omitempty"`
	PasswordFile string `json:"password_file,omitempty"`
}

// Key names the credential: "alice/SCRAM-SHA-512".
func (s SCRAMUserSpec) Key() string { return s.User + "/" + s.Mechanism }

func (s SCRAMUserSpec) iterations() int32 { return cmp.Or(s.Iterations, 4096) }

// ConfigSpec is a group's, a client-metrics subscription's or a broker's
// dynamic configs, whole: one set on it that Set does not give goes back
// to its default.
type ConfigSpec struct {
	Kind string            `json:"kind"` // KindGroupConfig, KindClientMetrics or KindBrokerConfig
	Name string            `json:"name"` // the group, the subscription, the broker id or "default"
	Set  map[string]string `json:"set"`
}

// Resource is the config resource a row names.
func (s ConfigSpec) Resource() ConfigResource { return configResourceOf(s.Kind, s.Name) }

func configResourceOf(kind, name string) ConfigResource {
	r := ConfigResource{Type: configKinds[kind], Name: name}
	if kind == KindBrokerConfig && name == "default" {
		r.Name = ""
	}
	return r
}

// configKindName is a config resource's name in a plan ("default" for the
// cluster-wide broker default).
func configKindName(r ConfigResource) string {
	if r.Type == ConfigBroker && r.Name == "" {
		return "default"
	}
	return r.Name
}

// QuotaChange is one quota of a change.
type QuotaChange = ValueChange[float64]

// ownsOf is what a spec owns of a kind beyond topics and ACLs.
func (o Owns) of(kind string) NameSet {
	switch kind {
	case KindQuota:
		return o.Quotas
	case KindSCRAMUser:
		return o.SCRAMUsers
	case KindGroupConfig:
		return o.Groups
	case KindClientMetrics:
		return o.ClientMetrics
	case KindBrokerConfig:
		return o.Brokers
	}
	return nil
}

// ownsKey is the key of owns naming what the spec owns of kind.
var ownsKey = map[string]string{KindQuota: "owns.quotas", KindSCRAMUser: "owns.scram_users", KindGroupConfig: "owns.group_configs",
	KindClientMetrics: "owns.client_metrics", KindBrokerConfig: "owns.broker_configs"}

// checkKinds is Spec.Check for the kinds beyond topics and ACLs.
func (s Spec) checkKinds() []string {
	var errs []string
	outside := func(kind, name, key string) {
		if set := s.Owns.of(kind); set != nil && !set.Contains(name) {
			errs = append(errs, fmt.Sprintf("%s%s %s: outside %s (%s)", s.where(kind, key), kind, key, ownsKey[kind], set))
		}
	}
	for _, q := range s.Quotas {
		outside(KindQuota, q.Entity.String(), q.Entity.String())
	}
	for _, u := range s.SCRAMUsers {
		outside(KindSCRAMUser, u.User, u.Key())
	}
	for _, c := range s.Configs {
		outside(c.Kind, c.Name, c.Name)
		for _, k := range slices.Sorted(maps.Keys(c.Set)) {
			if IsSecretKey(k) {
				errs = append(errs, s.where(c.Kind, c.Name)+sensitiveConfigErr(c.Kind, c.Name, k))
			}
		}
	}
	return errs
}

// wantsKinds says what observe must read for the kinds beyond topics and
// ACLs: quotas, SCRAM credentials, and which config resources.
func (s Spec) wantsKinds(prune bool) (quotas, scram bool, listTypes []string, brokers bool) {
	quotas = len(s.Quotas) > 0 || (prune && s.Owns.Quotas != nil)
	scram = len(s.SCRAMUsers) > 0 || (prune && s.Owns.SCRAMUsers != nil)
	if prune && s.Owns.Groups != nil {
		listTypes = append(listTypes, ConfigGroup)
	}
	if prune && s.Owns.ClientMetrics != nil {
		listTypes = append(listTypes, ConfigClientMetrics)
	}
	return quotas, scram, listTypes, prune && s.Owns.Brokers != nil
}

// observeKinds reads quotas (all, one request), SCRAM credentials (all,
// one request) and the configs of resources, plus for prune the config
// resources of listTypes (one ListConfigResources) and every broker.
func (c *Client) observeKinds(ctx context.Context, st *clusterState, quotas, scram bool, resources []ConfigResource, listTypes []string, brokers bool) error {
	if quotas {
		qs, err := c.DescribeClientQuotas(ctx, nil, false)
		if err != nil {
			return err
		}
		st.quotas = make(map[string]map[string]float64, len(qs))
		for _, q := range qs {
			st.quotas[q.Entity.String()] = q.Quotas
			st.quotaEntities = append(st.quotaEntities, q.Entity)
		}
	}
	if scram {
		creds, err := c.DescribeUserSCRAMCredentials(ctx, nil)
		if err != nil {
			return err
		}
		st.scram = make(map[string]int32, len(creds))
		for _, cr := range creds {
			if cr.Err == nil && cr.Mechanism != "" {
				st.scram[cr.Key()] = cr.Iterations
			}
		}
	}
	if len(listTypes) > 0 {
		listed, err := c.ListConfigResources(ctx, listTypes)
		if err != nil {
			return err
		}
		for _, l := range listed {
			resources = append(resources, ConfigResource{Type: l.Type, Name: l.Name})
		}
	}
	if brokers {
		resources = append(resources, ConfigResource{Type: ConfigBroker})
		for _, b := range st.brokers {
			resources = append(resources, ConfigResource{Type: ConfigBroker, Name: strconv.Itoa(int(b))})
		}
	}
	st.configs = map[string]*Observed{}
	resources = slices.CompactFunc(sortedResources(resources), func(a, b ConfigResource) bool { return a == b })
	if len(resources) == 0 {
		return nil
	}
	ds, err := c.DescribeConfigs(ctx, resources, DescribeConfigsOptions{Dynamic: true})
	if err != nil {
		return err
	}
	for _, d := range ds {
		if d.Err != nil {
			return d.Err
		}
		cfgs, sensitive := observedConfigs(d)
		st.configs[ConfigResource{d.Type, d.Name}.String()] = &Observed{Exists: len(cfgs)+len(sensitive) > 0, Configs: cfgs, Sensitive: sensitive}
	}
	return nil
}

// planKinds is PlanSpec for the kinds beyond topics and ACLs.
func planKinds(spec Spec, st *clusterState, prune bool, salt []byte, env func(string) string) ([]Change, []string) {
	var out []Change
	var errs []string
	if st.quotas != nil {
		out = append(out, planQuotas(spec, st, prune)...)
	}
	if st.scram != nil {
		chs, problems := planSCRAM(spec, st, prune, salt, env)
		out, errs = append(out, chs...), append(errs, problems...)
	}
	listed := map[string]bool{}
	for _, cs := range spec.Configs {
		r := cs.Resource()
		listed[r.String()] = true
		cur := st.configs[r.String()]
		if cur == nil {
			cur = &Observed{}
		}
		var bad []string
		for _, k := range cur.Sensitive {
			if _, ok := cs.Set[k]; ok {
				bad = append(bad, spec.where(cs.Kind, cs.Name)+sensitiveConfigErr(cs.Kind, cs.Name, k))
			}
		}
		if errs = append(errs, bad...); len(bad) > 0 {
			continue
		}
		if cfgs := configChanges(cur.Configs, cs.Set); len(cfgs) > 0 {
			action := ActionAlter
			if !cur.Exists {
				action = ActionCreate
			}
			out = append(out, Change{Kind: cs.Kind, Name: cs.Name, Action: action, Configs: cfgs, Against: *cur})
		}
	}
	if prune {
		for _, key := range slices.Sorted(maps.Keys(st.configs)) {
			cur := st.configs[key]
			typ, name, _ := strings.Cut(key, ":")
			kind := ""
			for k, t := range configKinds {
				if t == typ {
					kind = k
				}
			}
			if listed[key] || !cur.Exists || len(cur.Configs) == 0 || !spec.Owns.of(kind).Contains(name) {
				continue
			}
			out = append(out, Change{Kind: kind, Name: name, Action: ActionDelete, Configs: configChanges(cur.Configs, nil), Against: *cur})
		}
	}
	return out, errs
}

func planQuotas(spec Spec, st *clusterState, prune bool) []Change {
	var out []Change
	listed := map[string]bool{}
	for _, q := range spec.Quotas {
		k := q.Entity.String()
		listed[k] = true
		cur, ok := st.quotas[k]
		if chs := quotaChanges(cur, q.Set); len(chs) > 0 {
			action := ActionAlter
			if !ok {
				action = ActionCreate
			}
			out = append(out, Change{Kind: KindQuota, Name: k, Action: action, Entity: q.Entity, Quotas: chs,
				Against: Observed{Exists: ok, Quotas: cur}})
		}
	}
	if prune && spec.Owns.Quotas != nil {
		for _, e := range st.quotaEntities {
			k := e.String()
			if listed[k] || !spec.Owns.Quotas.Contains(k) {
				continue
			}
			out = append(out, Change{Kind: KindQuota, Name: k, Action: ActionDelete, Entity: e, Quotas: quotaChanges(st.quotas[k], nil),
				Against: Observed{Exists: true, Quotas: st.quotas[k]}})
		}
	}
	return out
}

// quotaChanges is the diff of an entity's quotas; want is whole.
func quotaChanges(cur, want map[string]float64) []QuotaChange { return valueChanges(cur, want) }

func planSCRAM(spec Spec, st *clusterState, prune bool, salt []byte, env func(string) string) ([]Change, []string) {
	var out []Change
	var errs []string
	listed := map[string]bool{}
	for _, u := range spec.SCRAMUsers {
		k := u.Key()
		listed[k] = true
		iters, ok := st.scram[k]
		if ok && iters == u.iterations() {
			continue // Kafka returns no password: a credential with the iterations asked for is as the spec says
		}
		pw, err := u.password(env)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%sscram_user %s: %v", spec.where(KindSCRAMUser, k), k, err))
			continue
		}
		u := u
		action := ActionAlter
		if !ok {
			action = ActionCreate
		}
		out = append(out, Change{Kind: KindSCRAMUser, Name: k, Action: action, SCRAM: &u, PasswordFingerprint: fingerprint(salt, u.User, pw),
			Against: Observed{Exists: ok, Iterations: iters}})
	}
	if prune && spec.Owns.SCRAMUsers != nil {
		for _, k := range slices.Sorted(maps.Keys(st.scram)) {
			user, mech, _ := strings.Cut(k, "/")
			if listed[k] || !spec.Owns.SCRAMUsers.Contains(user) {
				continue
			}
			out = append(out, Change{Kind: KindSCRAMUser, Name: k, Action: ActionDelete, SCRAM: &SCRAMUserSpec{User: user, Mechanism: mech},
				Against: Observed{Exists: true, Iterations: st.scram[k]}})
		}
	}
	return out, errs
}

// password reads the credential's password from its environment variable
// or file; errors name the source, never the value.
func (s SCRAMUserSpec) password(env func(string) string) (string, error) {
	switch {
	case s.PasswordEnv != "":
		pw := env(s.PasswordEnv)
		if pw == "" {
			return "", fmt.Errorf("password_env: the environment variable %s is not set", s.PasswordEnv)
		}
		return pw, nil
	case s.PasswordFile != "":
		b, err := os.ReadFile(s.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("password_file: %v", err)
		}
		pw := strings.TrimRight(string(b), "\r\n")
		if pw == "" {
			return "", fmt.Errorf("password_file: %s is empty", s.PasswordFile)
		}
		return pw, nil
	}
	return "", fmt.Errorf("password_env or password_file must be given")
}

// newSalt is a plan's salt for its password fingerprints.
func newSalt() []byte {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return b
}

// fingerprint is what a plan records of a password: PBKDF2-SHA256 (4096
// rounds, as SCRAM's minimum) salted with the plan's salt and the user, so
// a plan file says whether the password at apply is the one planned
// without holding it, and two plans never share a fingerprint.
func fingerprint(salt []byte, user, pw string) string {
	k, _ := pbkdf2.Key(sha256.New, pw, append(slices.Clone(salt), user...), 4096, 32)
	return "pbkdf2-sha256:4096:" + base64.RawStdEncoding.EncodeToString(k)
}

// stalenessKinds is staleness for the kinds beyond topics and ACLs.
func stalenessKinds(ch Change, st *clusterState) string {
	var was, now Observed
	was = ch.Against
	switch ch.Kind {
	case KindQuota:
		q, ok := st.quotas[ch.Name]
		now = Observed{Exists: ok, Quotas: q}
	case KindSCRAMUser:
		it, ok := st.scram[ch.Name]
		now = Observed{Exists: ok, Iterations: it}
	default:
		if o := st.configs[configResourceOf(ch.Kind, ch.Name).String()]; o != nil {
			now = *o
		}
	}
	switch {
	case !was.Exists && now.Exists:
		return "it was created"
	case was.Exists && !now.Exists:
		return "it was deleted"
	}
	var diffs []string
	if was.Iterations != now.Iterations {
		diffs = append(diffs, fmt.Sprintf("iterations %d, now %d", was.Iterations, now.Iterations))
	}
	for _, k := range slices.Compact(slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(was.Quotas)), slices.Collect(maps.Keys(now.Quotas))...)))) {
		w, wok := was.Quotas[k]
		n, nok := now.Quotas[k]
		if w != n || wok != nok {
			diffs = append(diffs, fmt.Sprintf("%s %s, now %s", k, showQuota(optionalF(w, wok)), showQuota(optionalF(n, nok))))
		}
	}
	diffs = append(diffs, configDiffs(was, now)...)
	if len(diffs) == 0 {
		return ""
	}
	return "was " + strings.Join(diffs, "; ")
}

func optionalF(f float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &f
}

func showQuota(v *float64) string {
	if v == nil {
		return "(none)"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// passwordFor reads a SCRAM change's password again at apply and checks
// it is the one planned.
func passwordFor(ch Change, salt []byte, env func(string) string) (string, *Error) {
	pw, err := ch.SCRAM.password(env)
	if err != nil {
		return "", Errorf(CodeInvalidArgument, ch.Name, "%v", err)
	}
	if fingerprint(salt, ch.SCRAM.User, pw) != ch.PasswordFingerprint {
		src := "$" + ch.SCRAM.PasswordEnv
		if ch.SCRAM.PasswordEnv == "" {
			src = ch.SCRAM.PasswordFile
		}
		return "", Errorf("STALE_PLAN", ch.Name, "scram_user %s: the password in %s is not the one planned; plan again", ch.Name, src)
	}
	return pw, nil
}

// applyKinds sends one step of the kinds beyond topics and ACLs.
func (c *Client) applyKinds(ctx context.Context, p Plan, kind, action string, chs []AppliedChange, idx []int, errs map[int]*Error, note func(string, *Error), env func(string) string) error {
	switch kind {
	case KindQuota:
		alts := make([]QuotaAlteration, 0, len(idx))
		for _, i := range idx {
			a := QuotaAlteration{Entity: chs[i].Entity, Set: map[string]float64{}}
			for _, q := range chs[i].Quotas {
				if q.After == nil {
					a.Remove = append(a.Remove, q.Key)
				} else {
					a.Set[q.Key] = *q.After
				}
			}
			alts = append(alts, a)
		}
		res, err := c.AlterClientQuotas(ctx, alts, false)
		for _, r := range res {
			note(r.Key(), r.Err)
		}
		return err
	case KindSCRAMUser:
		var ups []SCRAMUpsert
		var dels []SCRAMDeletion
		users := map[string][]int{}
		salt, _ := base64.RawStdEncoding.DecodeString(p.Salt)
		for _, i := range idx {
			s := chs[i].SCRAM
			mech, err := ParseSCRAMMechanism(s.Mechanism)
			if err != nil {
				errs[i] = Errorf(CodeInvalidArgument, chs[i].Name, "%v", err)
				continue
			}
			if action == ActionDelete {
				dels = append(dels, SCRAMDeletion{User: s.User, Mechanism: mech})
			} else {
				pw, e := passwordFor(chs[i].Change, salt, env)
				if e != nil {
					errs[i] = e
					continue
				}
				ups = append(ups, SCRAMUpsert{User: s.User, Mechanism: mech, Iterations: s.Iterations, Password: Secret(pw)})
			}
			users[s.User] = append(users[s.User], i)
		}
		if len(ups)+len(dels) == 0 {
			return nil
		}
		res, err := c.AlterUserSCRAMCredentials(ctx, ups, dels)
		for _, r := range res {
			for _, i := range users[r.User] {
				if r.Err != nil {
					errs[i] = r.Err
				}
			}
		}
		return err
	}
	alts := make([]ConfigAlteration, 0, len(idx))
	for _, i := range idx {
		alts = append(alts, configAlteration(configResourceOf(kind, chs[i].Name), chs[i].Configs))
	}
	res, err := c.AlterConfigs(ctx, alts, AlterConfigsOptions{})
	for _, r := range res {
		note(configKindName(ConfigResource{r.Type, r.Name}), r.Err)
	}
	return err
}

// configAlteration is the AlterConfigs alteration of a change's configs.
func configAlteration(r ConfigResource, cfgs []ConfigChange) ConfigAlteration {
	a := ConfigAlteration{Resource: r}
	for _, cc := range cfgs {
		if cc.After == nil {
			a.Delete = append(a.Delete, cc.Key)
			continue
		}
		if a.Set == nil {
			a.Set = map[string]string{}
		}
		a.Set[cc.Key] = *cc.After
	}
	return a
}

// kindString is Change.String for the kinds beyond topics and ACLs.
func (ch Change) kindString() string {
	switch ch.Kind {
	case KindQuota:
		parts := make([]string, len(ch.Quotas))
		for i, q := range ch.Quotas {
			parts[i] = fmt.Sprintf("%s: %s -> %s", q.Key, showQuota(q.Before), showQuota(q.After))
		}
		return fmt.Sprintf("%s quota %s: %s", ch.Action, ch.Name, strings.Join(parts, ", "))
	case KindSCRAMUser:
		if ch.Action == ActionDelete {
			return "delete scram_user " + ch.Name
		}
		src := "$" + ch.SCRAM.PasswordEnv
		if ch.SCRAM.PasswordEnv == "" {
			src = ch.SCRAM.PasswordFile
		}
		if ch.Action == ActionAlter {
			return fmt.Sprintf("alter scram_user %s iterations %d -> %d (password from %s)", ch.Name, ch.Against.Iterations, ch.SCRAM.iterations(), src)
		}
		return fmt.Sprintf("create scram_user %s (iterations %d, password from %s)", ch.Name, ch.SCRAM.iterations(), src)
	}
	parts := make([]string, len(ch.Configs))
	for i, c := range ch.Configs {
		parts[i] = fmt.Sprintf("%s: %s -> %s", c.Key, showConfig(c.Key, c.Before), showConfig(c.Key, c.After))
	}
	return fmt.Sprintf("%s %s %s configs: %s", ch.Action, ch.Kind, ch.Name, strings.Join(parts, ", "))
}
