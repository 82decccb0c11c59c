package snapshot

import (
	"context"
	"fmt"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/fixture"
)

// groups reads the classic and consumer groups: their committed offsets on
// the snapshot's topics and their members. Offsets on topics left out
// (--match) and members beyond the fixture's bound are named in Unread.
func (s *taker) readGroups(ctx context.Context) error {
	listed, err := s.c.ListGroups(ctx, engine.ListGroupsOptions{Types: []string{"classic", "consumer"}})
	if err != nil {
		return err
	}
	var names []string
	for _, g := range listed {
		if s.matches(g.Group) {
			names = append(names, g.Group)
		}
	}
	if len(names) == 0 {
		return nil
	}
	described, err := s.c.DescribeGroups(ctx, names)
	if err != nil {
		return err
	}
	members := 0
	for _, d := range described {
		if d.Err != nil {
			s.unread("group %s: %v", d.Group, d.Err)
			continue
		}
		g := fixture.Group{Name: d.Group}
		committed, err := s.c.FetchOffsets(ctx, d.Group, nil)
		if err != nil {
			if !refused(err) {
				return err
			}
			s.unread("group %s offsets: %v", d.Group, err)
		}
		var outside []string
		for _, o := range committed {
			switch {
			case o.Err != nil:
				s.unread("group %s offset of %s[%d]: %v", d.Group, o.Topic, o.Partition, o.Err)
			case o.Offset < 0:
			case s.topics[o.Topic] == nil:
				if !slices.Contains(outside, o.Topic) {
					outside = append(outside, o.Topic)
				}
			case int(o.Partition) >= len(s.ends[o.Topic]) || o.Offset > s.ends[o.Topic][o.Partition]:
				s.unread("group %s: offset %d of %s[%d] is past the partition's end: left out", d.Group, o.Offset, o.Topic, o.Partition)
			default:
				g.Offsets = append(g.Offsets, fixture.GroupOffset{Topic: o.Topic, Partition: o.Partition, Offset: o.Offset, Metadata: o.Metadata})
			}
		}
		if len(outside) > 0 {
			s.unread("group %s: offsets on topics not in the snapshot left out: %v", d.Group, outside)
		}
		for _, m := range d.Members {
			var topics []string
			for _, tp := range m.Assignment {
				if s.topics[tp.Topic] != nil && !slices.Contains(topics, tp.Topic) {
					topics = append(topics, tp.Topic)
				}
			}
			switch {
			case len(topics) == 0:
				s.unread("group %s: member %s has no partition of the snapshot's topics: left out", d.Group, m.ClientID)
			case members >= fixture.MaxMembers:
				s.unread("group %s: member %s left out (a copy runs at most %d live members)", d.Group, m.ClientID, fixture.MaxMembers)
			default:
				slices.Sort(topics)
				g.Members = append(g.Members, fixture.Member{ClientID: m.ClientID, Topics: topics})
				members++
			}
		}
		s.f.Groups = append(s.f.Groups, g)
	}
	return nil
}

func (s *taker) readACLs(ctx context.Context) error {
	acls, err := s.c.DescribeACLs(ctx, engine.ACLFilter{})
	if err != nil {
		return err
	}
	for _, a := range acls {
		if s.matches(a.ResourceName, a.Principal) {
			s.f.ACLs = append(s.f.ACLs, a)
		}
	}
	return nil
}

func (s *taker) readQuotas(ctx context.Context) error {
	quotas, err := s.c.DescribeClientQuotas(ctx, nil, false)
	if err != nil {
		return err
	}
	for _, q := range quotas {
		var names []string
		for _, n := range q.Entity {
			names = append(names, n)
		}
		if s.matches(names...) {
			s.f.Quotas = append(s.f.Quotas, q)
		}
	}
	return nil
}

// scram reads each user's mechanisms and iterations: never a password
// (Kafka returns none, and a copy gives each user a random one).
func (s *taker) readSCRAM(ctx context.Context) error {
	creds, err := s.c.DescribeUserSCRAMCredentials(ctx, nil)
	if err != nil {
		return err
	}
	for _, c := range creds {
		switch {
		case c.Err != nil:
			s.unread("SCRAM user %s: %v", c.User, c.Err)
		case c.Mechanism == "" || !s.matches(c.User):
		default:
			s.f.SCRAMUsers = append(s.f.SCRAMUsers, fixture.SCRAMUser{User: c.User, Mechanism: c.Mechanism, Iterations: c.Iterations})
		}
	}
	return nil
}

// Summary sums up a fixture for a person: what a snapshot holds.
func Summary(f *fixture.Fixture) string {
	partitions, records := 0, 0
	for _, t := range f.Topics {
		partitions += t.PartitionCount()
		records += len(t.Records.List)
	}
	s := fmt.Sprintf("%d brokers, %d topics (%d partitions, %d records), %d groups, %d ACLs, %d quotas, %d SCRAM users",
		len(f.Brokers), len(f.Topics), partitions, records, len(f.Groups), len(f.ACLs), len(f.Quotas), len(f.SCRAMUsers))
	if n := len(f.Unread); n > 0 {
		s += fmt.Sprintf("; %d things could not be read (the file's \"unread\" list)", n)
	}
	return s
}
