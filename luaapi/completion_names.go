package luaapi

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// NameSource is the cluster the REPL asks for the names it completes: the
// default client's, or a kafka.connect client's when the call is one of its
// methods. It is comparable (a cache key) and safe to use from another
// goroutine than the Lua state's: it touches only the Go client.
type NameSource struct{ h *clientHandle }

// DefaultNames is the default cluster's NameSource; ok is false when the
// runtime has no default cluster.
func (r *Runtime) DefaultNames() (NameSource, bool) {
	return NameSource{r.dflt}, len(r.dflt.cfg.Brokers) > 0
}

// NamesOf is the NameSource of a client object (kafka.connect's result,
// kafka.default); ok is false for any other value.
func (r *Runtime) NamesOf(v lua.LValue) (NameSource, bool) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return NameSource{}, false
	}
	r.mu.Lock()
	h := r.objects[t]
	r.mu.Unlock()
	if h == nil || len(h.cfg.Brokers) == 0 {
		return NameSource{}, false
	}
	return NameSource{h}, true
}

// Names asks the cluster for the names of one kind, sorted: topics
// (internal ones too), groups, principals (those ACLs name, and User:NAME
// for each SCRAM user), broker ids. Principals are what the caller may
// see: when both questions are refused, the error is returned.
func (s NameSource) Names(ctx context.Context, kind NameKind) ([]string, error) {
	cl, err := s.h.get()
	if err != nil {
		return nil, err
	}
	var out []string
	switch kind {
	case NameTopic:
		ts, err := cl.ListTopics(ctx, engine.ListTopicsOptions{Internal: true})
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			out = append(out, t.Name)
		}
	case NameGroup:
		gs, err := cl.ListGroups(ctx, engine.ListGroupsOptions{})
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			out = append(out, g.Group)
		}
	case NameBroker:
		c, err := s.describe(ctx, cl)
		if err != nil {
			return nil, err
		}
		for _, b := range c.Brokers {
			out = append(out, strconv.Itoa(int(b.ID)))
		}
	case NameConfig:
		return configNames(ctx, s, cl), nil
	case NameSubject:
		subs, err := cl.ListSubjects(ctx, engine.ListSubjectsOptions{})
		if err != nil {
			return nil, err
		}
		for _, sub := range subs {
			out = append(out, sub.Subject)
		}
	case NamePrincipal:
		acls, aerr := cl.DescribeACLs(ctx, engine.ACLFilter{})
		for _, a := range acls {
			out = append(out, a.Principal)
		}
		users, uerr := cl.DescribeUserSCRAMCredentials(ctx, nil)
		for _, u := range users {
			if u.Err == nil {
				out = append(out, "User:"+u.User)
			}
		}
		if aerr != nil && uerr != nil {
			return nil, errors.Join(aerr, uerr)
		}
	default:
		return nil, nil
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// configNames are the config names one topic and one broker report: every
// topic config and every broker config the cluster knows; Kafka's
// documented topic configs when the cluster cannot say.
func configNames(ctx context.Context, s NameSource, cl *engine.Client) []string {
	var rs []engine.ConfigResource
	if ts, err := cl.ListTopics(ctx, engine.ListTopicsOptions{}); err == nil && len(ts) > 0 {
		rs = append(rs, engine.ConfigResource{Type: engine.ConfigTopic, Name: ts[0].Name})
	}
	if c, err := s.describe(ctx, cl); err == nil && len(c.Brokers) > 0 {
		rs = append(rs, engine.ConfigResource{Type: engine.ConfigBroker, Name: strconv.Itoa(int(c.Brokers[0].ID))})
	}
	var out []string
	if described, err := cl.DescribeConfigs(ctx, rs, engine.DescribeConfigsOptions{}); err == nil {
		for _, d := range described {
			for k := range d.Configs {
				out = append(out, k)
			}
		}
	}
	if len(out) == 0 {
		return slices.Clone(engine.TopicConfigNames)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ClusterID asks the cluster for its id (and remembers it: Name and the
// REPL's confirmation question use it when there is no profile).
func (s NameSource) ClusterID(ctx context.Context) (string, error) {
	cl, err := s.h.get()
	if err != nil {
		return "", err
	}
	c, err := s.describe(ctx, cl)
	return c.ClusterID, err
}

func (s NameSource) describe(ctx context.Context, cl *engine.Client) (engine.Cluster, error) {
	c, err := cl.ClusterBrokers(ctx)
	if err == nil && c.ClusterID != "" {
		s.h.mu.Lock()
		s.h.clusterID = c.ClusterID
		s.h.mu.Unlock()
	}
	return c, err
}

// Name names the cluster to the operator: its profile, else its cluster
// id once ClusterID (or Names of brokers) has learnt it, else "". The REPL
// puts it in its prompt.
func (s NameSource) Name() string {
	if s.h == nil {
		return ""
	}
	return s.h.displayName()
}

// displayName is the handle's profile (or the name a fleet gave it), else
// its cluster id when known.
func (h *clientHandle) displayName() string {
	if n := h.profileName(); n != "" {
		return n
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clusterID
}

// profileName is the profile the handle came from: the name it was given
// (kafka.connect{profile=}, a fleet's cluster), or the default cluster's
// profile from the command line or the config file.
func (h *clientHandle) profileName() string {
	if h.cluster != "" {
		return h.cluster
	}
	if h == h.rt.dflt {
		return h.cfg.Profile
	}
	return ""
}

// confirmTarget names the cluster a destructive call is about to change,
// for the REPL's question: "profile prod (kafka-1:9092,kafka-2:9092)",
// "cluster lkc-8f2x (...)" when only its id is known, else its brokers.
func (h *clientHandle) confirmTarget() string {
	brokers := strings.Join(h.cfg.Brokers, ",")
	if n := h.profileName(); n != "" {
		return "profile " + n + " (" + brokers + ")"
	}
	h.mu.Lock()
	id := h.clusterID
	h.mu.Unlock()
	if id != "" {
		return "cluster " + id + " (" + brokers + ")"
	}
	return brokers
}

// Mutations counts the calls of functions that change a cluster this
// runtime has made (dry runs and refused calls included): the REPL
// refreshes the names it completes after a line that made one.
func (r *Runtime) Mutations() int64 { return r.mutations.Load() }
