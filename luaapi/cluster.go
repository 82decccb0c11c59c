package luaapi

func init() {
	register(
		&Func{Name: "describe_cluster", Area: "cluster", NoArgs: true,
			Returns: "{cluster_id=string, controller=int, active_controller=int?, brokers={{id=int, host=string?, port=int?, rack=string?, state=string}...}}",
			Summary: "Describe the cluster: its id, the active controller and every broker with its state.",
			Doc: `Brokers are sorted by id; rack is nil for a broker without broker.rack. state is one of:
- "live": registered and unfenced, serving;
- "fenced": registered but fenced: stopped, crashed, or not caught up with the metadata yet (Kafka 4.0+ reports fenced brokers: DescribeCluster v2);
- "unregistered": named in partition replicas but not registered (host and port are nil);
- "offline": named in replicas and not live, on a cluster before Kafka 4.0 that cannot tell fenced from unregistered.
Kafka tells clients nothing of a broker in controlled shutdown: it is "live" until it is fenced (see docs/decisions.md).
active_controller is the metadata quorum's leader (describe_quorum), the controller really in charge; nil where the cluster cannot say (not KRaft, no leader during an election, or DESCRIBE on the cluster not allowed). controller is what Kafka's answer names: in KRaft a live broker that forwards controller requests, not the active controller (-1 when unknown).
Every topic's replicas are read (in pages) to find the brokers the cluster does not list.`,
			Example: `local c = describe_cluster()
print(c.cluster_id, "active controller:", c.active_controller or "unknown")
for _, b in ipairs(c.brokers) do print(b.id, b.state, (b.host or "?") .. ":" .. (b.port or "?"), b.rack or "-") end`,
			Run: describeCluster},
	)
}

func describeCluster(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeCluster(c.Ctx())
}
