package luaapi

func init() {
	register(
		&Func{Name: "describe_cluster", Area: "cluster", NoArgs: true,
			Returns: "{cluster_id=string, controller=int, brokers={{id=int, host=string, port=int, rack=string?}...}}",
			Summary: "Describe the cluster: its id, the controller and the brokers.",
			Doc: `Brokers are sorted by id; rack is nil for a broker without broker.rack.
The answer comes from a fresh Metadata request. In a KRaft cluster Kafka reports a broker as the controller (clients cannot reach the quorum's controllers); -1 means unknown.`,
			Example: `local c = describe_cluster()
print(c.cluster_id, "controller:", c.controller)
for _, b in ipairs(c.brokers) do print(b.id, b.host .. ":" .. b.port, b.rack or "-") end`,
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
