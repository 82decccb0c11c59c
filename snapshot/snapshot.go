// Package snapshot reads a cluster's layout and state into a fixture
// (package fixture): brokers and racks, topics with their replicas, the
// configs set on them and their offsets, consumer groups with their
// committed offsets and members, ACLs, client quotas and SCRAM users. Records
// only when asked, a bounded number per partition, their values redactable.
// Secrets never: a sensitive config is left out, a SCRAM user is its name,
// mechanism and iterations.
//
// Everything is read through the engine's public read functions, the ones
// describe_topics, list_offsets, fetch_offsets... call: a snapshot sends no
// request that changes anything. What it cannot read (no permission, an API
// the cluster lacks) it says in the fixture's Unread list rather than
// leaving it out silently, so a copy made from it cannot pass for whole.
//
// Diff (diff.go) compares two snapshots of one cluster, in the rows of the
// plan table: what a rehearsal changed on the copy.
package snapshot

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/fixture"
)

// Options say what to read.
type Options struct {
	// Match, when set, keeps only the topics, groups, ACLs (by resource
	// name or principal), quota entities and SCRAM users whose name it
	// matches (RE2, unanchored).
	Match *regexp.Regexp
	// Records is how many records to read per partition, from its start;
	// 0 reads none (the offsets are still exact).
	Records int
	// RedactValues leaves records' values and header values out, keeping
	// their sizes: keys stay (they decide partitions and compaction).
	RedactValues bool
	// Source is written into the fixture: where it was taken from.
	Source fixture.Source
}

// MaxRecordsPerPartition bounds Options.Records.
const MaxRecordsPerPartition = engine.PeekMaxCount

// Take reads the cluster c reaches into a fixture. An error reading a part
// that Kafka refuses (authorization, an unsupported API) is noted in
// Unread and the rest is read; any other error (the cluster does not
// answer) fails the snapshot.
func Take(ctx context.Context, c *engine.Client, o Options) (*fixture.Fixture, error) {
	if o.Records < 0 || o.Records > MaxRecordsPerPartition {
		return nil, fmt.Errorf("snapshot: records per partition must be from 0 to %d, got %d", MaxRecordsPerPartition, o.Records)
	}
	s := &taker{c: c, o: o, f: &fixture.Fixture{Format: fixture.Format}}
	src := o.Source
	src.TakenAt = time.Now().UTC().Format(time.RFC3339)
	src.Records, src.RedactedValues = o.Records, o.RedactValues && o.Records > 0
	s.f.Source = &src
	for _, step := range []struct {
		what string
		read func(context.Context) error
	}{
		{"the cluster", s.readCluster},
		{"topics", s.readTopics},
		{"topic configs", s.readConfigs},
		{"offsets", s.readOffsets},
		{"records", s.readRecords},
		{"groups", s.readGroups},
		{"ACLs", s.readACLs},
		{"quotas", s.readQuotas},
		{"SCRAM users", s.readSCRAM},
	} {
		if err := step.read(ctx); err != nil {
			if refused(err) && step.what != "the cluster" && step.what != "topics" {
				s.unread("%s: %v", step.what, err)
				continue
			}
			return nil, fmt.Errorf("snapshot: reading %s: %w", step.what, err)
		}
	}
	s.f.Sorted()
	if err := fixture.Validate(s.f); err != nil {
		// A snapshot of a real cluster that is not a valid fixture is a
		// bug here, or a cluster changing under the reads.
		return nil, fmt.Errorf("snapshot: the cluster read is not a consistent fixture (did it change while it was read?): %w", err)
	}
	return s.f, nil
}

// refused: Kafka answered, and said no (not a network failure).
func refused(err error) bool {
	var e *engine.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case engine.CodeNetwork, engine.CodeTimeout, engine.CodeCanceled, engine.CodeTLS, engine.CodeAuth:
		return false
	}
	return true
}

type taker struct {
	c      *engine.Client
	o      Options
	f      *fixture.Fixture
	topics map[string]*fixture.Topic
	ends   map[string][]int64 // end offset per partition
}

func (s *taker) unread(format string, args ...any) {
	s.f.Unread = append(s.f.Unread, fmt.Sprintf(format, args...))
}

func (s *taker) matches(names ...string) bool {
	if s.o.Match == nil {
		return true
	}
	return slices.ContainsFunc(names, s.o.Match.MatchString)
}

func (s *taker) readCluster(ctx context.Context) error {
	cl, err := s.c.DescribeCluster(ctx)
	if err != nil {
		return err
	}
	s.f.ClusterID = cl.ClusterID
	s.f.Source.ClusterID = cl.ClusterID
	for _, b := range cl.Brokers {
		fb := fixture.Broker{ID: b.ID}
		if b.Rack != nil {
			fb.Rack = *b.Rack
		}
		s.f.Brokers = append(s.f.Brokers, fb)
	}
	return nil
}

func (s *taker) readTopics(ctx context.Context) error {
	listed, err := s.c.ListTopics(ctx, engine.ListTopicsOptions{Match: s.o.Match})
	if err != nil {
		return err
	}
	names := make([]string, 0, len(listed))
	for _, t := range listed {
		names = append(names, t.Name)
	}
	s.topics = map[string]*fixture.Topic{}
	if len(names) == 0 {
		return nil
	}
	described, err := s.c.DescribeTopics(ctx, names)
	if err != nil {
		return err
	}
	for _, d := range described {
		if d.Err != nil {
			return d.Err // deleted between the list and the describe: take the snapshot again
		}
		t := fixture.Topic{Name: d.Name, Partitions: len(d.Partitions)}
		for _, p := range d.Partitions {
			t.Replicas = append(t.Replicas, slices.Clone(p.Replicas))
		}
		if len(t.Replicas) > 0 {
			t.ReplicationFactor = len(t.Replicas[0])
		}
		s.f.Topics = append(s.f.Topics, t)
	}
	for i := range s.f.Topics {
		s.topics[s.f.Topics[i].Name] = &s.f.Topics[i]
	}
	return nil
}

// configs reads the configs set on each topic (what kafka-configs
// --describe shows without --all); a sensitive one is left out and named.
func (s *taker) readConfigs(ctx context.Context) error {
	if len(s.topics) == 0 {
		return nil
	}
	var res []engine.ConfigResource
	for _, t := range s.f.Topics {
		res = append(res, engine.ConfigResource{Type: engine.ConfigTopic, Name: t.Name})
	}
	described, err := s.c.DescribeConfigs(ctx, res, engine.DescribeConfigsOptions{Dynamic: true})
	if err != nil {
		return err
	}
	for _, d := range described {
		if d.Err != nil {
			s.unread("topic %s configs: %v", d.Name, d.Err)
			continue
		}
		t := s.topics[d.Name]
		for k, e := range d.Configs {
			switch {
			case e.Sensitive || e.Value == nil || redact.IsSecretKey(k):
				s.unread("topic %s: config %s is sensitive: left out", d.Name, k)
			default:
				if t.Configs == nil {
					t.Configs = map[string]string{}
				}
				t.Configs[k] = *e.Value
			}
		}
	}
	return nil
}

func (s *taker) readOffsets(ctx context.Context) error {
	if len(s.topics) == 0 {
		return nil
	}
	names := make([]string, 0, len(s.topics))
	for _, t := range s.f.Topics {
		names = append(names, t.Name)
	}
	starts, err := s.c.ListOffsets(ctx, names, engine.OffsetQuery{Kind: engine.OffsetAtEarliest})
	if err != nil {
		return err
	}
	ends, err := s.c.ListOffsets(ctx, names, engine.OffsetQuery{Kind: engine.OffsetAtLatest})
	if err != nil {
		return err
	}
	s.ends = map[string][]int64{}
	startOf := map[string]int64{}
	for _, o := range starts {
		if o.Err != nil {
			return o.Err
		}
		startOf[fmt.Sprintf("%s[%d]", o.Topic, o.Partition)] = o.Offset
	}
	for _, o := range ends {
		if o.Err != nil {
			return o.Err
		}
		t := s.topics[o.Topic]
		if t == nil || o.Partition < 0 {
			continue
		}
		if s.ends[o.Topic] == nil {
			s.ends[o.Topic] = make([]int64, t.Partitions)
		}
		s.ends[o.Topic][o.Partition] = o.Offset
		if start := startOf[fmt.Sprintf("%s[%d]", o.Topic, o.Partition)]; o.Offset > 0 {
			t.Offsets = append(t.Offsets, fixture.PartitionOffsets{Partition: o.Partition, Start: start, End: o.Offset})
		}
	}
	for _, t := range s.f.Topics {
		slices.SortFunc(t.Offsets, func(a, b fixture.PartitionOffsets) int { return int(a.Partition - b.Partition) })
	}
	return nil
}

// records reads up to Options.Records records of each partition, from its
// start.
func (s *taker) readRecords(ctx context.Context) error {
	if s.o.Records == 0 {
		return nil
	}
	for i := range s.f.Topics {
		t := &s.f.Topics[i]
		for p := range t.Partitions {
			peeked, err := s.c.Peek(ctx, t.Name, int32(p), engine.PeekFrom{Kind: engine.PeekFromEarliest},
				engine.PeekOptions{Count: s.o.Records, Values: true, MaxBytes: fixture.MaxRecordBytes / 4})
			if err != nil {
				return err
			}
			for _, r := range peeked.Records {
				if r.Err != nil {
					return r.Err
				}
				t.Records.List = append(t.Records.List, s.record(t.Name, int32(p), r))
			}
		}
	}
	return nil
}

func (s *taker) record(topic string, p int32, r engine.PeekedRecord) fixture.Record {
	out := fixture.Record{Partition: p, Timestamp: r.Timestamp}
	out.Key, out.KeyBase64 = textOrBase64(r.Key)
	switch {
	case r.NullValue:
	case s.o.RedactValues:
		out.ValueBytes = len(r.Value)
		if out.ValueBytes == 0 {
			empty := ""
			out.Value = &empty
		}
	default:
		out.Value, out.ValueBase64 = textOrBase64(r.Value)
		if out.Value == nil && out.ValueBase64 == "" {
			empty := ""
			out.Value = &empty
		}
	}
	for _, h := range r.Headers {
		if out.Headers == nil {
			out.Headers = map[string]string{}
		}
		switch {
		case s.o.RedactValues:
			out.Headers[h.Key] = ""
		case utf8.Valid(h.Value):
			out.Headers[h.Key] = string(h.Value)
		default:
			s.unread("%s[%d] offset %d: header %s is not text: left out", topic, p, r.Offset, h.Key)
		}
	}
	return out
}

// textOrBase64 is b as text when it is UTF-8, else as base64; nil, "" for
// a null.
func textOrBase64(b []byte) (*string, string) {
	switch {
	case b == nil:
		return nil, ""
	case utf8.Valid(b):
		s := string(b)
		return &s, ""
	}
	return nil, base64.StdEncoding.EncodeToString(b)
}
