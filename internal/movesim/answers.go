package movesim

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The sim's answers to the requests it models (s.mu held in each).

func (s *Sim) live() []int32 {
	var out []int32
	for _, b := range s.nodes {
		if !s.dead[b] {
			out = append(out, b)
		}
	}
	return out
}

func (s *Sim) metadata(r kmsg.Request) kmsg.Response {
	req := r.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	resp.ClusterID = kmsg.StringPtr("movesim")
	resp.ControllerID = s.live()[0]
	for _, b := range s.live() {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port = b, s.hosts[b][0], port(s.hosts[b][1])
		resp.Brokers = append(resp.Brokers, mb)
	}
	var names []string
	if req.Topics == nil {
		for t := range s.topics {
			names = append(names, t)
		}
		slices.Sort(names)
	}
	for _, t := range req.Topics {
		if t.Topic != nil {
			names = append(names, *t.Topic)
		}
	}
	for _, name := range names {
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic = kmsg.StringPtr(name)
		id, ok := s.topics[name]
		if !ok {
			mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		mt.TopicID = id
		for p := int32(0); ; p++ {
			pt, ok := s.parts[TP{name, p}]
			if !ok {
				break
			}
			mp := kmsg.NewMetadataResponseTopicPartition()
			mp.Partition, mp.Leader, mp.LeaderEpoch = p, pt.leader, 1
			mp.Replicas = slices.Clone(pt.replicas)
			for _, b := range pt.replicas {
				switch {
				case s.dead[b]:
					mp.OfflineReplicas = append(mp.OfflineReplicas, b)
				case s.moving[TP{name, p}] != nil && slices.Contains(s.moving[TP{name, p}].adding, b):
				default:
					mp.ISR = append(mp.ISR, b)
				}
			}
			if s.dead[pt.leader] {
				mp.Leader = -1
			}
			mt.Partitions = append(mt.Partitions, mp)
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}

func (s *Sim) list(r kmsg.Request) kmsg.Response {
	if s.onPoll > 0 {
		s.advance(s.onPoll)
	}
	resp := r.(*kmsg.ListPartitionReassignmentsRequest).ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
	var last *kmsg.ListPartitionReassignmentsResponseTopic
	for _, tp := range sortedKeys(s.moving) {
		m := s.moving[tp]
		if last == nil || last.Topic != tp.Topic {
			resp.Topics = append(resp.Topics, kmsg.NewListPartitionReassignmentsResponseTopic())
			last = &resp.Topics[len(resp.Topics)-1]
			last.Topic = tp.Topic
		}
		p := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
		p.Partition = tp.Partition
		p.Replicas = slices.Clone(s.parts[tp].replicas)
		p.AddingReplicas, p.RemovingReplicas = slices.Clone(m.adding), slices.Clone(m.removing)
		last.Partitions = append(last.Partitions, p)
	}
	return resp
}

func (s *Sim) alter(r kmsg.Request) kmsg.Response {
	req := r.(*kmsg.AlterPartitionAssignmentsRequest)
	resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
	moved := false
	for _, rt := range req.Topics {
		st := kmsg.NewAlterPartitionAssignmentsResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
			sp.Partition = rp.Partition
			tp := TP{rt.Topic, rp.Partition}
			_, ok := s.parts[tp]
			switch e, refused := s.refuse[tp]; {
			case !ok:
				sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
			case refused:
				delete(s.refuse, tp)
				sp.ErrorCode = e.Code
			case rp.Replicas == nil:
				if !s.cancel(tp) {
					sp.ErrorCode = kerr.NoReassignmentInProgress.Code
				}
			case slices.ContainsFunc(rp.Replicas, func(b int32) bool { return !slices.Contains(s.nodes, b) }):
				// Kafka checks that each broker is registered, not that it is
				// live: a move to a fenced broker is taken and hangs.
				sp.ErrorCode = kerr.InvalidReplicaAssignment.Code
			default:
				s.sent[tp]++
				moved = true
				s.start(tp, rp.Replicas)
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	if moved {
		s.batches++
	}
	return resp
}

func (s *Sim) logDirs(r kmsg.Request) kmsg.Response {
	resp := r.(*kmsg.DescribeLogDirsRequest).ResponseKind().(*kmsg.DescribeLogDirsResponse)
	node := s.C.CurrentNode()
	d := kmsg.NewDescribeLogDirsResponseDir()
	d.Dir, d.TotalBytes, d.UsableBytes = "/data", 1<<40, 1<<39
	byTopic := map[string]*kmsg.DescribeLogDirsResponseDirTopic{}
	var order []string
	for _, tp := range sortedKeys(s.parts) {
		pt := s.parts[tp]
		if !slices.Contains(pt.replicas, node) {
			continue
		}
		size := pt.size
		if m := s.moving[tp]; m != nil && slices.Contains(m.adding, node) {
			size = m.copied[node]
		}
		t := byTopic[tp.Topic]
		if t == nil {
			nt := kmsg.NewDescribeLogDirsResponseDirTopic()
			nt.Topic = tp.Topic
			t = &nt
			byTopic[tp.Topic] = t
			order = append(order, tp.Topic)
		}
		p := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
		p.Partition, p.Size = tp.Partition, size
		t.Partitions = append(t.Partitions, p)
	}
	for _, name := range order {
		d.Topics = append(d.Topics, *byTopic[name])
	}
	resp.Dirs = append(resp.Dirs, d)
	return resp
}

// sortedKeys are m's partitions by topic, then partition: the answers
// list them in a stable order.
func sortedKeys[V any](m map[TP]V) []TP {
	return slices.SortedFunc(maps.Keys(m), func(a, b TP) int {
		return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
}

func (s *Sim) elect(r kmsg.Request) kmsg.Response {
	req := r.(*kmsg.ElectLeadersRequest)
	resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
	for _, rt := range req.Topics {
		st := kmsg.NewElectLeadersResponseTopic()
		st.Topic = rt.Topic
		for _, p := range rt.Partitions {
			sp := kmsg.NewElectLeadersResponseTopicPartition()
			sp.Partition = p
			pt, ok := s.parts[TP{rt.Topic, p}]
			switch {
			case !ok:
				sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
			case pt.leader == pt.replicas[0]:
				sp.ErrorCode = kerr.ElectionNotNeeded.Code
			case s.dead[pt.replicas[0]] || (s.moving[TP{rt.Topic, p}] != nil && slices.Contains(s.moving[TP{rt.Topic, p}].adding, pt.replicas[0])):
				sp.ErrorCode = kerr.PreferredLeaderNotAvailable.Code
			default:
				pt.leader = pt.replicas[0]
				s.elected = append(s.elected, TP{rt.Topic, p})
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

func (s *Sim) describeCluster(r kmsg.Request) kmsg.Response {
	resp := r.(*kmsg.DescribeClusterRequest).ResponseKind().(*kmsg.DescribeClusterResponse)
	resp.ClusterID = "movesim"
	resp.ControllerID = s.live()[0]
	for _, b := range s.nodes {
		sb := kmsg.NewDescribeClusterResponseBroker()
		sb.NodeID, sb.Host, sb.Port, sb.IsFenced = b, s.hosts[b][0], port(s.hosts[b][1]), s.fenced[b]
		resp.Brokers = append(resp.Brokers, sb)
	}
	return resp
}
