package luaapi

func init() {
	register(
		&Func{Name: "describe_cluster", Area: "cluster",
			Options: []Field{{Name: "with_topics", Type: Bool(), Doc: "also return every topic, as describe_topics() would (they are read anyway, to find unregistered brokers)"}},
			Returns: "{cluster_id=string, controller=int, active_controller=int?, quorum=string, quorum_error=string?, " +
				"brokers={{id=int, host=string?, port=int?, rack=string?, state=string, reachable=bool?}...}, topics={" + topicDescriptionShape + "...}?}",
			Summary: "Describe the cluster: its id, the metadata quorum and active controller, and every broker with its state.",
			Doc: `Brokers are sorted by id; rack is nil for a broker without broker.rack. state is one of:
- "live": registered and unfenced, serving;
- "fenced": registered but fenced: stopped, crashed, or not caught up with the metadata yet (Kafka 4.0+ reports fenced brokers: DescribeCluster v2);
- "unregistered": named in partition replicas but not registered (host and port are nil);
- "offline": named in replicas and not live, on a cluster before Kafka 4.0 that cannot tell fenced from unregistered;
- "unknown": the metadata quorum has no leader, none answered, or its leader has no majority (quorum below): the broker that answered knows only the metadata it had when the quorum was lost, where a broker that died since still reads live. reachable then says whether this client got an answer from the broker just now (ApiVersions, within 2 s); it is nil otherwise.
Kafka tells clients nothing of a broker in controlled shutdown: it is "live" until it is fenced (see docs/decisions.md).
quorum is the KRaft metadata quorum's state: "led" (it has a leader: the active controller), "no_leader" (it answered, without a leader: an election), "no_answer" (no controller answered within 5 s, or half of --timeout when shorter: brokers forward DescribeQuorum to the active controller, and there is none: the quorum has lost its majority, or the brokers cannot reach it), "no_majority" (the leader answered, but most of its voters have not fetched from it for over 2 s, Kafka's default controller.quorum.fetch.timeout.ms, by the leader's clock: it can commit nothing, and resigns within a few seconds), "none" (no quorum to ask: a ZooKeeper-era cluster) or "unknown" (asking failed otherwise); quorum_error says why for "no_answer", "no_majority" and "unknown". In all but "led" and "none" the states are "unknown".
active_controller is the metadata quorum's leader (describe_quorum), the controller really in charge (with "no_majority", the leader about to resign); nil where the cluster cannot say (no quorum, no leader, or DESCRIBE on the cluster not allowed: quorum is then "led", as a controller answered). controller is what Kafka's answer names: in KRaft a broker that forwards controller requests, not the active controller (-1 when unknown; without a quorum, whatever the answering broker last knew).
Every topic's replicas are read (in pages) to find the brokers the cluster does not list; with_topics=true returns them as topics, in describe_topics' shape (a topic that failed carries its error instead of raising), so a health check reads them once.`,
			Example: `local c = describe_cluster()
print(c.cluster_id, "quorum:", c.quorum, "active controller:", c.active_controller or "unknown")
for _, b in ipairs(c.brokers) do print(b.id, b.state, (b.host or "?") .. ":" .. (b.port or "?"), b.rack or "-") end
print(#describe_cluster{with_topics = true}.topics .. " topics")`,
			Run: describeCluster},
	)
}

func describeCluster(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if param[bool](c, "with_topics") {
		return cl.DescribeClusterTopics(c.Ctx())
	}
	return cl.DescribeCluster(c.Ctx())
}
