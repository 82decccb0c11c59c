package luaapi

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_quorum", Area: "brokers", NoArgs: true,
			Needs:   []engine.Need{engine.NeedKRaft(kmsg.DescribeQuorum, 0, "3.3")},
			Returns: "{leader=int, epoch=int, high_watermark=int, voters={{id=int, directory_id=string?, log_end_offset=int, lag=int, last_fetch_timestamp=time, last_caught_up_timestamp=time}...}, observers={{id=int, directory_id=string?, log_end_offset=int, lag=int, last_fetch_timestamp=time, last_caught_up_timestamp=time}...}}",
			Summary: "The KRaft metadata quorum: leader, epoch, and how far each voter and observer lags.",
			Doc: `Like kafka-metadata-quorum describe --status --replication. lag is high_watermark minus the replica's log_end_offset; timestamps are Unix milliseconds, -1 when unknown. Voters are the controllers, observers the brokers (and controllers not voting), each sorted by id.
Brokers forward the request to the active controller. When there is none (the quorum has lost its majority, or the brokers cannot reach it), a broker holds the request; the call then fails after 5 s (half of --timeout, when that is shorter), not at --timeout, with TIMEOUT "no controller answered within 5s" (err.retriable: ask again later). 5 s waits out an election at Kafka's defaults (the voters notice a dead leader after controller.quorum.fetch.timeout.ms, 2 s, then vote within 1-2 s); describe_cluster() says the same as quorum = "no_answer".
The embedded demo cluster does not implement it (UNSUPPORTED_VERSION).`,
			Example: `local ok, q = pcall(describe_quorum)
if ok then print(q.leader, q.epoch, #q.voters) else print(q.code) end`,
			Run: func(c *Call) (any, error) {
				cl, err := c.Client()
				if err != nil {
					return nil, err
				}
				return cl.DescribeQuorum(c.Ctx())
			}},
		&Func{Name: "unregister_broker", Area: "brokers",
			Needs:   []engine.Need{engine.NeedKRaft(kmsg.UnregisterBroker, 0, "3.3")},
			Params:  []Param{{Name: "id", Type: brokerID, Doc: "the id of the broker to unregister"}},
			Returns: "{broker=int}",
			Summary: "Remove a decommissioned broker's registration from the cluster metadata.",
			Doc: `For a broker shut down for good (KIP-500): its id stops being listed and its replicas can be reassigned. Kafka does not refuse a running broker: Apache Kafka 4.1 drops its registration, and the broker process goes on running unregistered (its heartbeats get STALE_BROKER_EPOCH) until it is restarted (a Kafka 3.9 broker was seen to register again by itself within seconds), so unregister only brokers that are shut down. Kafka answers BROKER_ID_NOT_REGISTERED for an id it does not know, including one already unregistered.
Under --dry-run nothing changes; the plan says whether the broker is currently registered (live). The embedded demo cluster does not implement it.`,
			Example: `local ok, err = pcall(unregister_broker, 99)
print(ok or err.code)`,
			Run: unregisterBroker},
	)
}

func unregisterBroker(c *Call) (any, error) {
	id := param[int32](c, "id")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		live, err := cl.BrokerRegistered(c.Ctx(), id)
		if err != nil {
			return nil, err
		}
		state := "not in the cluster metadata now"
		if live {
			state = "registered and live now: a running broker stays unregistered until it is restarted"
		}
		c.Plan("unregister broker %d (%s)", id, state)
		return &engine.UnregisteredBroker{Broker: id}, nil
	}
	return cl.UnregisterBroker(c.Ctx(), id)
}
