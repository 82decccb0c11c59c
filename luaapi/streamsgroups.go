package luaapi

import "github.com/kadmin-lua/kadmin-lua/engine"

func init() {
	register(
		&Func{Name: "describe_streams_groups", Area: "groups", Batch: true,
			Needs:  engine.StreamsGroupNeeds,
			Params: []Param{{Name: "groups", Type: groupIDs.NonEmpty(), Doc: "the streams groups to describe"}},
			Returns: "{{group=string, state=string, coordinator=int, group_epoch=int, target_assignment_epoch=int, topology_epoch=int, topology_ready=bool, assignor=string?, " +
				"subtopologies={{subtopology=string, source_topics={string...}, repartition_source_topics={{topic=string, partitions=int}...}, repartition_sink_topics={string...}, changelog_topics={{topic=string, partitions=int}...}}...}, " +
				"members={{member_id=string, instance_id=string?, process_id=string, client_id=string, host=string, rack=string?, user_endpoint=string?, member_protocol=string, member_epoch=int, topology_epoch=int, " +
				"active_tasks={{subtopology=string, partitions={int...}}...}, standby_tasks={{subtopology=string, partitions={int...}}...}, warmup_tasks={{subtopology=string, partitions={int...}}...}, " +
				"target_active_tasks={{subtopology=string, partitions={int...}}...}, target_standby_tasks={{subtopology=string, partitions={int...}}...}, target_warmup_tasks={{subtopology=string, partitions={int...}}...}, " +
				"assignment={{topic=string, partition=int}...}}...}, error=error?}...}",
			Summary: "Describe Kafka Streams applications' groups (KIP-1071): topology, members and their tasks.",
			Doc: `groups is a group name or an array of names: the application.id of Kafka Streams applications running with group.protocol=streams. What kafka-streams-groups.sh --describe shows (--state, --members --verbose), with Kafka's names: state (Empty, NotReady, Assigning, Reconciling, Stable), group_epoch, target_assignment_epoch, topology_epoch.
topology_ready is false while the broker cannot run the topology: state NotReady (a source topic missing or not co-partitioned, internal topics not created yet) or no topology received yet; subtopologies is then empty. Each subtopology lists its source_topics, the repartition topics it reads (repartition_source_topics) and writes (repartition_sink_topics), and its state stores' changelog_topics, with the partition counts the topology asks for (0: left to the source topics).
Each member is a stream thread of an application instance (process_id); member_epoch and topology_epoch are the ones it runs; member_protocol is "classic" for a member not yet on the streams protocol. Its tasks are given per subtopology with their partitions: active_tasks process records, standby_tasks keep a copy of the state, warmup_tasks build one before taking over; the target_ ones are the assignment the broker is moving it to. assignment is what its active tasks consume: each task's partition of its subtopology's source and repartition topics, as in describe_groups. Members are sorted by process_id then member_id.
Offsets are committed as a consumer group's: fetch_offsets, lag (the source and repartition topics), reset_offsets, delete_group_offsets and delete_groups take a streams group by name. describe_groups does not describe one: it fails naming the type, as this function fails for a group of another type. A group that does not exist fails with GROUP_ID_NOT_FOUND (see err.results, or pass {partial=true}).
Kafka 4.1 has streams groups as early access: its brokers answer only when started with unstable.api.versions.enable=true and unstable.feature.versions.enable=true, and with streams.version raised to 1 (update_features); from Kafka 4.2 they are on.`,
			Example: `local ok, err = pcall(describe_streams_groups, "wordcount-app")
print(ok or err.code)`,
			Run: describeStreamsGroups},
	)
}

func describeStreamsGroups(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeStreamsGroups(c.Ctx(), param[[]string](c, "groups"))
}
