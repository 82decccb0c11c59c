package luaapi

func init() {
	register(
		&Func{Name: "describe_tiered_storage", Area: "logdirs",
			Params:  []Param{{Name: "topics", Type: topicNames, Optional: true, Doc: "a topic or an array of them (every topic with remote.storage.enable=true when left out)"}},
			Batch:   true,
			Returns: "{{topic=string, remote_storage=bool, retention_ms=int, retention_bytes=int, local_retention_ms=int, local_retention_bytes=int, at_risk_against=string, remote_only=int, pending_upload=int?, local_bytes=int, total_bytes=int?, partitions={{partition=int, log_start=int, earliest_local=int, latest_tiered=int, earliest_pending_upload=int, end_offset=int, remote_only=int, local_records=int, pending_upload=int?, local_bytes=int, total_bytes=int?, pending_upload_bytes=int?, error=error?}...}, error=error?}...}",
			Summary: "Tiered storage (KIP-405) per topic: what is only in remote storage, what waits to be copied, local against total size, and the retention horizons.",
			Doc: `A row per topic, sorted by name: every topic with remote.storage.enable=true when none are named; a named topic without it has remote_storage=false and no partitions.
The horizons: retention_ms and retention_bytes bound the whole log, local and remote: they are what data at risk is judged against (lag's at_risk; at_risk_against says so); local_retention_ms and local_retention_bytes only decide what stays on the brokers' disks (Kafka's -2, "as the whole log", is given as the whole log's value; -1 is no limit).
Per partition, from list_offsets: log_start is the oldest record anywhere, earliest_local the oldest on the brokers' disks, latest_tiered the last offset copied to remote storage (-1: none yet, or Kafka before 3.9), earliest_pending_upload the first not yet copied (Kafka 4.2+, KIP-1023; -1 and pending_upload nil where the broker does not report it). remote_only counts the records only in remote storage (log_start to earliest_local), local_records the rest, pending_upload those not yet copied.
Sizes: local_bytes is the partition's largest replica on disk (describe_log_dirs counts local segments only; -1 when unread); total_bytes estimates the whole log at the local part's mean record size, and pending_upload_bytes the records pending upload the same way (nil when there is no local record to measure by). A topic's remote_only, local_bytes, total_bytes and pending_upload sum its partitions' (nil when one is unknown).
A topic that does not exist, or whose configs or offsets cannot be read, gets its error, and the call raises unless {partial=true}.`,
			Example: `for _, t in ipairs(describe_tiered_storage()) do
  print(t.topic, t.remote_only .. " records only in remote storage", t.local_bytes, t.total_bytes)
end
local orders = describe_tiered_storage("orders")[1]
return orders.remote_storage == false and #orders.partitions == 0`,
			Run: describeTieredStorage},
	)
}

func describeTieredStorage(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.TieredStorage(c.Ctx(), param[[]string](c, "topics"))
}
