---@meta kadmin-lua
-- kadmin-lua's Lua API for the Lua language server (LuaLS), generated from the declarations
-- by `kadmin-lua meta --luals DIR` (`make docs`). Do not edit: regenerate.

---An error value: what a failed call raises, and a batch item's error.
---@class kadmin.Error
---@field code string a Kafka error name (TOPIC_ALREADY_EXISTS) or a client-side one (INVALID_ARGUMENT, TIMEOUT, NETWORK, AUTH, CANCELED, DRY_RUN, ...)
---@field message string
---@field retriable boolean
---@field op? string the function
---@field resource? string the topic, group, ... when there is one
---@field mechanism? string a refused SASL login's mechanism
---@field results? table[] a batch call's every item, each with its own error or nil

---The arguments of acl_bundle, named.
---@class kadmin.acl_bundle.args
---@field producer? string|string[] the producer's principal (or an array): WRITE, DESCRIBE, CREATE on topics (principal TYPE:NAME, or an array of them)
---@field consumer? string|string[] the consumer's principal (or an array): READ, DESCRIBE on topics, READ on group (principal TYPE:NAME, or an array of them)
---@field topics? string|string[] a topic or an array ("*" is every topic; a prefix with pattern_type="prefixed") (non-empty string, or an array of them)
---@field group? string|string[] the consumer's group (or an array; "*" is every group) (non-empty string, or an array of them)
---@field transactional_id? string|string[] the producer's transactional id (or an array): WRITE, DESCRIBE on it (non-empty string, or an array of them)
---@field idempotent? boolean the producer writes idempotently: IDEMPOTENT_WRITE on the cluster (boolean)
---@field hosts? string|string[] the hosts allowed (default "*": every host) (non-empty string, or an array of them)
---@field pattern_type? "literal"|"prefixed" "literal" (default) or "prefixed", for topics, groups and transactional ids (one of "literal", "prefixed")

---@class kadmin.acl_bundle.result
---@field principal string
---@field host string
---@field operation string
---@field permission string
---@field resource_type string
---@field resource_name string
---@field pattern_type string

---Options of create_acls.
---@class kadmin.create_acls.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{principal=, operation=, resource_type=, [resource_name=], [permission=], [host=], [pattern_type=]}
---@class kadmin.create_acls.rows
---@field principal string TYPE:NAME, such as "User:alice" (principal TYPE:NAME)
---@field operation "read"|"write"|"create"|"delete"|"alter"|"describe"|"cluster_action"|"describe_configs"|"alter_configs"|"idempotent_write"|"create_tokens"|"describe_tokens"|"all" one of "read", "write", "create", "delete", "alter", "describe", "cluster_action", "describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens", "all"
---@field resource_type "topic"|"group"|"cluster"|"transactional_id"|"delegation_token"|"user" one of "topic", "group", "cluster", "transactional_id", "delegation_token", "user"
---@field resource_name? string "kafka-cluster" for the cluster when left out (non-empty string)
---@field permission? "allow"|"deny" "allow" when left out (one of "allow", "deny")
---@field host? string "*" (every host) when left out (non-empty string)
---@field pattern_type? "literal"|"prefixed" "literal" when left out (one of "literal", "prefixed")

---@class kadmin.create_acls.result
---@field principal string
---@field host string
---@field operation string
---@field permission string
---@field resource_type string
---@field resource_name string
---@field pattern_type string
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of delete_acls.
---@class kadmin.delete_acls.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{[principal=], [host=], [operation=], [permission=], [resource_type=], [resource_name=], [pattern_type=]}
---@class kadmin.delete_acls.filters
---@field principal? string TYPE:NAME, such as "User:alice" (principal TYPE:NAME)
---@field host? string non-empty string
---@field operation? "read"|"write"|"create"|"delete"|"alter"|"describe"|"cluster_action"|"describe_configs"|"alter_configs"|"idempotent_write"|"create_tokens"|"describe_tokens"|"all"|"any" one of "read", "write", "create", "delete", "alter", "describe", "cluster_action", "describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens", "all", "any"
---@field permission? "allow"|"deny"|"any" one of "allow", "deny", "any"
---@field resource_type? "topic"|"group"|"cluster"|"transactional_id"|"delegation_token"|"user"|"any" one of "topic", "group", "cluster", "transactional_id", "delegation_token", "user", "any"
---@field resource_name? string non-empty string
---@field pattern_type? "literal"|"prefixed"|"any"|"match" one of "literal", "prefixed", "any", "match"

---@class kadmin.delete_acls.result
---@field filter kadmin.delete_acls.result.filter
---@field deleted kadmin.delete_acls.result.deleted[]
---@field error? kadmin.Error
---@field dry_run? boolean

---@class kadmin.delete_acls.result.filter
---@field principal? string
---@field host? string
---@field operation? string
---@field permission? string
---@field resource_type? string
---@field resource_name? string
---@field pattern_type? string

---@class kadmin.delete_acls.result.deleted
---@field principal string
---@field host string
---@field operation string
---@field permission string
---@field resource_type string
---@field resource_name string
---@field pattern_type string

---{[principal=], [host=], [operation=], [permission=], [resource_type=], [resource_name=], [pattern_type=]}
---@class kadmin.describe_acls.filter
---@field principal? string TYPE:NAME, such as "User:alice" (principal TYPE:NAME)
---@field host? string non-empty string
---@field operation? "read"|"write"|"create"|"delete"|"alter"|"describe"|"cluster_action"|"describe_configs"|"alter_configs"|"idempotent_write"|"create_tokens"|"describe_tokens"|"all"|"any" one of "read", "write", "create", "delete", "alter", "describe", "cluster_action", "describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens", "all", "any"
---@field permission? "allow"|"deny"|"any" one of "allow", "deny", "any"
---@field resource_type? "topic"|"group"|"cluster"|"transactional_id"|"delegation_token"|"user"|"any" one of "topic", "group", "cluster", "transactional_id", "delegation_token", "user", "any"
---@field resource_name? string non-empty string
---@field pattern_type? "literal"|"prefixed"|"any"|"match" one of "literal", "prefixed", "any", "match"

---@class kadmin.describe_acls.result
---@field principal string
---@field host string
---@field operation string
---@field permission string
---@field resource_type string
---@field resource_name string
---@field pattern_type string

---{id=, [directory_id=], endpoints=}
---@class kadmin.add_raft_voter.voter
---@field id integer|string the controller's node.id (controller id (int32) >= 0)
---@field directory_id? string its metadata log dir's directory id (default: looked up among the quorum's observers) (directory id (22 characters of URL-safe base64))
---@field endpoints kadmin.add_raft_voter.voter.endpoints|kadmin.add_raft_voter.voter.endpoints[] its controller listeners ({listener=, host=, port=}, or an array of them)

---{listener=, host=, port=}
---@class kadmin.add_raft_voter.voter.endpoints
---@field listener string the controller listener's name, e.g. "CONTROLLER" (non-empty string)
---@field host string the host it is advertised on (non-empty string)
---@field port integer|string its port (port (int32) between 1 and 65535)

---@class kadmin.add_raft_voter.result
---@field id integer
---@field directory_id string
---@field endpoints? kadmin.add_raft_voter.result.endpoints[]
---@field dry_run? boolean

---@class kadmin.add_raft_voter.result.endpoints
---@field listener string
---@field host string
---@field port integer

---@class kadmin.describe_quorum.result
---@field leader integer
---@field epoch integer
---@field high_watermark integer
---@field voters kadmin.describe_quorum.result.voters[]
---@field observers kadmin.describe_quorum.result.observers[]

---@class kadmin.describe_quorum.result.voters
---@field id integer
---@field directory_id? string
---@field log_end_offset integer
---@field lag integer
---@field last_fetch_timestamp integer
---@field last_caught_up_timestamp integer

---@class kadmin.describe_quorum.result.observers
---@field id integer
---@field directory_id? string
---@field log_end_offset integer
---@field lag integer
---@field last_fetch_timestamp integer
---@field last_caught_up_timestamp integer

---{id=, directory_id=}
---@class kadmin.remove_raft_voter.voter
---@field id integer|string the voter's id (controller id (int32) >= 0)
---@field directory_id string its directory id (describe_quorum) (directory id (22 characters of URL-safe base64))

---@class kadmin.remove_raft_voter.result
---@field id integer
---@field directory_id string
---@field endpoints? kadmin.remove_raft_voter.result.endpoints[]
---@field dry_run? boolean

---@class kadmin.remove_raft_voter.result.endpoints
---@field listener string
---@field host string
---@field port integer

---@class kadmin.unregister_broker.result
---@field broker integer
---@field dry_run? boolean

---Options of describe_cluster.
---@class kadmin.describe_cluster.options
---@field with_topics? boolean also return every topic, as describe_topics() would (they are read anyway, to find unregistered brokers) (boolean)

---@class kadmin.describe_cluster.result
---@field cluster_id string
---@field controller integer
---@field active_controller? integer
---@field quorum string
---@field quorum_error? string
---@field brokers kadmin.describe_cluster.result.brokers[]
---@field topics? kadmin.describe_cluster.result.topics[]

---@class kadmin.describe_cluster.result.brokers
---@field id integer
---@field host? string
---@field port? integer
---@field rack? string
---@field state string
---@field reachable? boolean

---@class kadmin.describe_cluster.result.topics
---@field name string
---@field id string
---@field internal boolean
---@field partitions kadmin.describe_cluster.result.topics.partitions[]
---@field error? kadmin.Error

---@class kadmin.describe_cluster.result.topics.partitions
---@field partition integer
---@field leader integer
---@field leader_epoch integer
---@field replicas integer[]
---@field isr integer[]
---@field offline_replicas integer[]
---@field elr? integer[]
---@field last_known_elr? integer[]
---@field error? kadmin.Error

---Options of wait_ready.
---@class kadmin.wait_ready.options
---@field min_brokers? integer|string how many brokers must be live (default 1) (broker count (integer) between 1 and 100000)
---@field timeout? number|string how long to wait before raising TIMEOUT (default 5m) (integer ms >= 1, or a duration string like "30m")
---@field interval_ms? integer|string time between looks (default 1000) (poll interval in ms (int64) between 1 and 9223372036854)

---@class kadmin.wait_ready.result
---@field brokers integer
---@field under_replicated string[]
---@field offline string[]
---@field waited_ms integer

---@class kadmin.list_config_resources.result
---@field type string
---@field name string

---Options of alter_configs.
---@class kadmin.alter_configs.options
---@field validate_only? boolean ask the broker to check the request without applying it (as --dry-run does) (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---resource like {topic="orders", set={k=v}}
---@class kadmin.alter_configs.resources
---@field topic? string a topic (topic name)
---@field broker? integer|string|"default" a broker id, or "default" for the cluster-wide dynamic default (broker id or "default")
---@field broker_logger? integer|string a broker's log4j loggers (broker id (int32) >= 0)
---@field group? string a group's configs (group id)
---@field client_metrics? string a client-metrics subscription (non-empty string)
---@field set? table<string, string|number|boolean|string[]> configs to set ({name = value, ...})
---@field delete? string|string[] configs to reset to their default (non-empty string, or an array of them)
---@field append? table<string, string|number|boolean|string[]> values to add to list configs ({name = value, ...})
---@field subtract? table<string, string|number|boolean|string[]> values to remove from list configs ({name = value, ...})

---@class kadmin.alter_configs.result
---@field type string
---@field name string
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of describe_configs.
---@class kadmin.describe_configs.options
---@field synonyms? boolean add each config's synonyms, highest precedence first (boolean)
---@field keys? string|string[] only these configs (a name or an array of names) (non-empty string, or an array of them)
---@field dynamic? boolean only the values set on the resource itself, as kafka-configs --describe shows them (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---resource like {topic="orders"}
---@class kadmin.describe_configs.resources
---@field topic? string a topic (topic name)
---@field broker? integer|string|"default" a broker id, or "default" for the cluster-wide dynamic default (broker id or "default")
---@field broker_logger? integer|string a broker's log4j loggers (broker id (int32) >= 0)
---@field group? string a group's configs (group id)
---@field client_metrics? string a client-metrics subscription (non-empty string)

---@class kadmin.describe_configs.result
---@field type string
---@field name string
---@field configs table<string, kadmin.describe_configs.result.configs>
---@field error? kadmin.Error

---@class kadmin.describe_configs.result.configs
---@field value? string
---@field source string
---@field sensitive boolean
---@field read_only boolean
---@field synonyms? kadmin.describe_configs.result.configs.synonyms[]

---@class kadmin.describe_configs.result.configs.synonyms
---@field name string
---@field value? string
---@field source string

---@class kadmin.api_versions.result
---@field broker integer
---@field api integer
---@field name string
---@field min_version integer
---@field max_version integer
---@field error? kadmin.Error

---@class kadmin.describe_features.result
---@field feature string
---@field finalized_level integer
---@field supported_min integer
---@field supported_max integer
---@field epoch integer

---Options of update_features.
---@class kadmin.update_features.options
---@field validate_only? boolean ask the broker to check the request without applying it (as --dry-run does) (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{feature=, max_version_level=, [upgrade_type=]}
---@class kadmin.update_features.updates
---@field feature string the feature: "metadata.version", "transaction.version", ... (non-empty string)
---@field max_version_level integer|string the new finalized level; 0 removes the feature (feature level (int16) >= 0)
---@field upgrade_type? "upgrade"|"safe_downgrade"|"unsafe_downgrade" "upgrade" when left out (one of "upgrade", "safe_downgrade", "unsafe_downgrade")

---@class kadmin.update_features.result
---@field feature string
---@field max_version_level integer
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of commit_offsets.
---@class kadmin.commit_offsets.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=, offset=, [leader_epoch=], [metadata=]}
---@class kadmin.commit_offsets.offsets
---@field topic string topic name
---@field partition integer|string partition (int32) >= 0
---@field offset integer|string the next offset the group will read (offset (int64) >= 0)
---@field leader_epoch? integer|string -1 (unknown) when left out (leader epoch (int32) >= -1)
---@field metadata? string stored with the commit (string)

---@class kadmin.commit_offsets.result
---@field topic string
---@field partition integer
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of delete_group_offsets.
---@class kadmin.delete_group_offsets.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=}
---@class kadmin.delete_group_offsets.topics
---@field topic string topic name
---@field partition? integer|string required: give the topic's name alone to mean all its partitions (partition (int32) >= 0)

---@class kadmin.delete_group_offsets.result
---@field topic string
---@field partition integer
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of delete_groups.
---@class kadmin.delete_groups.options
---@field if_exists? boolean a missing group is a success (missing=true) (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.delete_groups.result
---@field group string
---@field missing? boolean
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of describe_groups.
---@class kadmin.describe_groups.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.describe_groups.result
---@field group string
---@field state string
---@field protocol_type string
---@field protocol string
---@field coordinator integer
---@field members kadmin.describe_groups.result.members[]
---@field error? kadmin.Error

---@class kadmin.describe_groups.result.members
---@field member_id string
---@field instance_id? string
---@field client_id string
---@field host string
---@field assignment kadmin.describe_groups.result.members.assignment[]

---@class kadmin.describe_groups.result.members.assignment
---@field topic string
---@field partition integer

---Options of describe_streams_groups.
---@class kadmin.describe_streams_groups.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.describe_streams_groups.result
---@field group string
---@field state string
---@field coordinator integer
---@field group_epoch integer
---@field target_assignment_epoch integer
---@field topology_epoch integer
---@field topology_ready boolean
---@field assignor? string
---@field subtopologies kadmin.describe_streams_groups.result.subtopologies[]
---@field members kadmin.describe_streams_groups.result.members[]
---@field error? kadmin.Error

---@class kadmin.describe_streams_groups.result.subtopologies
---@field subtopology string
---@field source_topics string[]
---@field repartition_source_topics kadmin.describe_streams_groups.result.subtopologies.repartition_source_topics[]
---@field repartition_sink_topics string[]
---@field changelog_topics kadmin.describe_streams_groups.result.subtopologies.changelog_topics[]

---@class kadmin.describe_streams_groups.result.subtopologies.repartition_source_topics
---@field topic string
---@field partitions integer

---@class kadmin.describe_streams_groups.result.subtopologies.changelog_topics
---@field topic string
---@field partitions integer

---@class kadmin.describe_streams_groups.result.members
---@field member_id string
---@field instance_id? string
---@field process_id string
---@field client_id string
---@field host string
---@field rack? string
---@field user_endpoint? string
---@field member_protocol string
---@field member_epoch integer
---@field topology_epoch integer
---@field active_tasks kadmin.describe_streams_groups.result.members.active_tasks[]
---@field standby_tasks kadmin.describe_streams_groups.result.members.standby_tasks[]
---@field warmup_tasks kadmin.describe_streams_groups.result.members.warmup_tasks[]
---@field target_active_tasks kadmin.describe_streams_groups.result.members.target_active_tasks[]
---@field target_standby_tasks kadmin.describe_streams_groups.result.members.target_standby_tasks[]
---@field target_warmup_tasks kadmin.describe_streams_groups.result.members.target_warmup_tasks[]
---@field assignment kadmin.describe_streams_groups.result.members.assignment[]

---@class kadmin.describe_streams_groups.result.members.active_tasks
---@field subtopology string
---@field partitions integer[]

---@class kadmin.describe_streams_groups.result.members.standby_tasks
---@field subtopology string
---@field partitions integer[]

---@class kadmin.describe_streams_groups.result.members.warmup_tasks
---@field subtopology string
---@field partitions integer[]

---@class kadmin.describe_streams_groups.result.members.target_active_tasks
---@field subtopology string
---@field partitions integer[]

---@class kadmin.describe_streams_groups.result.members.target_standby_tasks
---@field subtopology string
---@field partitions integer[]

---@class kadmin.describe_streams_groups.result.members.target_warmup_tasks
---@field subtopology string
---@field partitions integer[]

---@class kadmin.describe_streams_groups.result.members.assignment
---@field topic string
---@field partition integer

---Options of fetch_offsets.
---@class kadmin.fetch_offsets.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.fetch_offsets.result
---@field topic string
---@field partition integer
---@field offset integer
---@field leader_epoch integer
---@field metadata string
---@field error? kadmin.Error

---Options of lag.
---@class kadmin.lag.options
---@field time? boolean add the lag in time, read from the records' own timestamps (see below) (boolean)
---@field read_committed? boolean with time: read as a read_committed consumer does (records of aborted transactions skipped) (boolean)
---@field no_commit? "start"|"skip" a partition without a commit: "start" (default) lags from its log start, "skip" has lag -1 and is left out of total_lag, as kafka-consumer-groups --describe prints "-" (one of "start", "skip")
---@field only_lagging? boolean leave out partitions that do not lag, and groups left with none (kafkactl --only-with-lag) (boolean)
---@field sort? "lag"|"lag_ms" order groups and their partitions worst first: "lag" (records) or "lag_ms" (time; needs time=true) (one of "lag", "lag_ms")
---@field top? integer|string keep each group's N worst partitions (with sort; totals still count every partition) (integer >= 1)
---@field at_risk? number with time: the fraction of the topic's retention.ms (or retention.bytes) at which a partition is at risk (default 0.8) (number between 0.01 and 1)
---@field observe? number watch the commits for this many seconds within the call: a lagging partition whose committed offset has not moved by then has stuck_ms (see below) (number between 0.1 and 3600)
---@field summary? boolean one row per group (total_lag, max_lag, the worst partition, counts) instead of its partitions (see below) (boolean)
---@field iterate? boolean return an iterator for a generic for (`for row in f(..., {iterate = true}) do`) instead of a table: rows are read a page at a time and made as the loop asks for them, so a script that keeps none of them never holds the whole cluster; returned from a chunk (-e, run, the REPL) it prints as the table would, its rows as they come (boolean)
---@field match? string keep groups whose name matches this RE2 regular expression (unanchored), chosen before anything else is asked
---@field exclude? string leave out groups whose name matches this RE2 regular expression (unanchored)
---@field states? "PreparingRebalance"|"CompletingRebalance"|"Stable"|"Dead"|"Empty"|"Assigning"|"Reconciling"|"NotReady"|("PreparingRebalance"|"CompletingRebalance"|"Stable"|"Dead"|"Empty"|"Assigning"|"Reconciling"|"NotReady")[] keep groups in these states as list_groups says them (case-insensitive) (one of "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling", "NotReady", or an array of them)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.lag.result
---@field group string
---@field state string
---@field total_lag integer
---@field max_lag integer
---@field partition_count integer
---@field lagging integer
---@field worst_topic? string
---@field worst_partition? integer
---@field max_lag_ms? any
---@field records_lost integer
---@field at_risk? integer
---@field reading_remote? integer
---@field remote_only? integer
---@field remote_unknown? integer
---@field odd_timestamps? integer
---@field failed_in? string
---@field partitions? kadmin.lag.result.partitions[]
---@field error? kadmin.Error

---@class kadmin.lag.result.partitions
---@field topic string
---@field partition integer
---@field committed integer
---@field end_offset integer
---@field lag integer
---@field member_id? string
---@field client_id? string
---@field oldest_unconsumed? integer
---@field lag_ms? any
---@field behind_head_ms? any
---@field timestamp_type? string
---@field time_unknown? string
---@field records_lost integer
---@field at_risk? boolean
---@field at_risk_by? string
---@field next_deletion_ms? any
---@field next_deletion_records? integer
---@field next_deletion_by? string
---@field next_deletion_unknown? string
---@field stuck_ms? any
---@field reading_remote? boolean
---@field remote_only? integer
---@field earliest_local? integer
---@field remote_unknown? string
---@field error? kadmin.Error

---Options of lag_evaluate.
---@class kadmin.lag_evaluate.options
---@field now? integer|string the time to judge at, in ms (default: now) (timestamp in ms (int64) >= 0)
---@field end_offsets? (integer|string)[] the partition's recent end offsets, oldest first (array of offset (int64) >= 0)
---@field current_lag? integer|string the lag now (default: the newest sample's lag); -1 is unknown (lag (int64) >= -1)
---@field allowed_lag? integer|string a current lag at or below this is OK (default 0) (lag (int64) >= 0)
---@field committing? boolean each sample stands for a commit: the consumer is alive and commits (a live member owns the partition) (boolean)

---{offset=, time=, [lag=]}
---@class kadmin.lag_evaluate.samples
---@field offset integer|string the committed offset (-1: no commit, left out) (committed offset (int64) >= -1)
---@field time integer|string when the sample was taken (timestamp in ms (int64) >= 0)
---@field lag? integer|string the lag then (nil or -1: unknown) (lag (int64) >= -1)

---@class kadmin.lag_evaluate.result
---@field status string
---@field rule string

---Options of lag_status.
---@class kadmin.lag_status.options
---@field max_lag? integer|string a group lagging more records than this in total is ERR, whatever its trend (int64 >= 1)
---@field max_lag_ms? integer|string a group lagging more than this in time (ms, read from the records as lag{time=true} does) is ERR (int64 >= 1)
---@field allowed_lag? integer|string a partition lagging at most this many records is OK (default 0) (int64 >= 0)
---@field worst? integer|string partitions listed per group, worst first (default 5) (integer >= 1)
---@field partitions? boolean also list every partition's verdict in partitions, by topic and partition (not with summary) (boolean)
---@field time? boolean add the lag in time (max_lag_ms, and lag_ms per partition); implied by max_lag_ms (boolean)
---@field read_committed? boolean with time: read as a read_committed consumer does (boolean)
---@field no_commit? "start"|"skip" a partition without a commit: "start" (default) lags from its log start, "skip" is left out of total_lag (one of "start", "skip")
---@field min_complete? number a lagging partition whose window covers less than this fraction of --state-window is not judged (rule window_incomplete) and its group counts it in incomplete (Burrow's minimum-complete; default 0: every window is judged) (number between 0 and 1)
---@field summary? boolean one row per group without the lists of partitions: the worst partition in worst_topic and worst_partition (boolean)
---@field iterate? boolean return an iterator for a generic for (`for row in f(..., {iterate = true}) do`) instead of a table: rows are read a page at a time and made as the loop asks for them, so a script that keeps none of them never holds the whole cluster; returned from a chunk (-e, run, the REPL) it prints as the table would, its rows as they come (boolean)
---@field match? string keep groups whose name matches this RE2 regular expression (unanchored), chosen before anything else is asked
---@field exclude? string leave out groups whose name matches this RE2 regular expression (unanchored)
---@field states? "PreparingRebalance"|"CompletingRebalance"|"Stable"|"Dead"|"Empty"|"Assigning"|"Reconciling"|"NotReady"|("PreparingRebalance"|"CompletingRebalance"|"Stable"|"Dead"|"Empty"|"Assigning"|"Reconciling"|"NotReady")[] keep groups in these states as list_groups says them (case-insensitive) (one of "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling", "NotReady", or an array of them)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.lag_status.result
---@field group string
---@field state string
---@field status string
---@field reason? string
---@field total_lag integer
---@field max_lag integer
---@field max_lag_ms? any
---@field records_lost integer
---@field at_risk? integer
---@field reading_remote? integer
---@field remote_only? integer
---@field remote_unknown? integer
---@field odd_timestamps? integer
---@field consume_rate? any
---@field produce_rate? any
---@field trend string
---@field eta_seconds? number
---@field samples integer
---@field window_ms any
---@field complete number
---@field incomplete? integer
---@field state_file boolean
---@field worst? kadmin.lag_status.result.worst[]
---@field worst_topic? string
---@field worst_partition? integer
---@field partitions? kadmin.lag_status.result.partitions[]
---@field failed_in? string
---@field error? kadmin.Error

---@class kadmin.lag_status.result.worst
---@field topic string
---@field partition integer
---@field status string
---@field rule string
---@field lag integer
---@field committed integer
---@field end_offset integer
---@field lag_ms? any
---@field stuck_ms? any
---@field consume_rate? any
---@field produce_rate? any
---@field samples integer
---@field window_ms any
---@field complete number
---@field reset? string

---@class kadmin.lag_status.result.partitions
---@field topic string
---@field partition integer
---@field status string
---@field rule string
---@field lag integer
---@field committed integer
---@field end_offset integer
---@field lag_ms? any
---@field stuck_ms? any
---@field consume_rate? any
---@field produce_rate? any
---@field samples integer
---@field window_ms any
---@field complete number
---@field reset? string

---Options of list_groups.
---@class kadmin.list_groups.options
---@field states? "PreparingRebalance"|"CompletingRebalance"|"Stable"|"Dead"|"Empty"|"Assigning"|"Reconciling"|"NotReady"|("PreparingRebalance"|"CompletingRebalance"|"Stable"|"Dead"|"Empty"|"Assigning"|"Reconciling"|"NotReady")[] keep groups in these states (case-insensitive) (one of "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling", "NotReady", or an array of them)
---@field types? "classic"|"consumer"|"share"|"streams"|("classic"|"consumer"|"share"|"streams")[] keep groups of these types (case-insensitive) (one of "classic", "consumer", "share", "streams", or an array of them)

---@class kadmin.list_groups.result
---@field group string
---@field state string
---@field protocol_type string
---@field type string
---@field coordinator integer

---Options of remove_group_members.
---@class kadmin.remove_group_members.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.remove_group_members.result
---@field group string
---@field member_id string
---@field instance_id? string
---@field error? kadmin.Error
---@field dry_run? boolean

---The arguments of reset_offsets, named.
---@class kadmin.reset_offsets.args
---@field group string the group whose offsets move (created if it does not exist) (group id)
---@field to "earliest"|"latest"|"current"|kadmin.reset_offsets.args.to where to move them (see below) (one of earliest, latest, current, {offset=}, {shift=}, {timestamp=}, {datetime=}, {duration=}, {group=}, {file=})
---@field topics? string|kadmin.delete_group_offsets.topics|(string|kadmin.delete_group_offsets.topics)[] whole topics (by name) and single partitions ({topic=, partition=}) to reset (topic name or {topic=, partition=}, or an array of them)
---@field dry_run? boolean return the plan and commit nothing (boolean)
---@field force? boolean remove the group's members first (see below) (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{[offset=], [shift=], [timestamp=], [datetime=], [duration=], [group=], [file=]}
---@class kadmin.reset_offsets.args.to
---@field offset? integer|string this offset on every partition (offset (int64) >= 0)
---@field shift? integer|string the committed offset moved by this many (negative goes back) (shift (int64) between -9007199254740992 and 9007199254740992)
---@field timestamp? integer|string the first offset whose record is at or after this time (timestamp in ms (int64) >= 0)
---@field datetime? string the same for an RFC 3339 time with a zone: "2026-11-30T10:00:00Z" (non-empty string)
---@field duration? string the same for now minus a duration: "-1h30m", "PT1H" (non-empty string)
---@field group? string another group's committed offsets (group id)
---@field file? string a CSV of topic,partition,offset lines (non-empty string)

---@class kadmin.reset_offsets.result
---@field topic string
---@field partition integer
---@field current integer
---@field target integer
---@field clamped? boolean
---@field error? kadmin.Error
---@field dry_run? boolean

---The arguments of elect_leaders, named.
---@class kadmin.elect_leaders.args
---@field topics? string|string[] every partition of these topics (topic name, or an array of them)
---@field partitions? kadmin.elect_leaders.args.partitions|kadmin.elect_leaders.args.partitions[] these partitions ({topic=, partition=}, or an array of them)
---@field all? boolean every partition in the cluster (instead of topics and partitions) (boolean)
---@field type? "preferred"|"unclean" the election: "preferred" (default) or "unclean" (one of "preferred", "unclean")
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=}
---@class kadmin.elect_leaders.args.partitions
---@field topic string topic name
---@field partition integer|string partition (int32) >= 0

---@class kadmin.elect_leaders.result
---@field topic string
---@field partition integer
---@field leader integer
---@field not_needed boolean
---@field error? kadmin.Error
---@field dry_run? boolean

---The arguments of kafka.connect, named.
---@class kadmin.kafka.connect.args
---@field brokers? string|string[] seed brokers, "host:port" (a comma-separated string is split) (host:port, or an array of them)
---@field profile? string a profile from the config file (non-empty string)
---@field command_config? string a Java client.properties file (as --command-config): its SASL and TLS settings (non-empty string)
---@field client_id? string the client id the brokers see (string)
---@field timeout? integer|string each call's deadline (timeout in ms (int64) between 1 and 9223372036854)
---@field sasl_mechanism? "PLAIN"|"SCRAM-SHA-256"|"SCRAM-SHA-512"|"OAUTHBEARER"|"GSSAPI"|"AWS_MSK_IAM" SASL mechanism; PLAIN and SCRAM take the password from KADMIN_SASL_PASSWORD (one of "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI", "AWS_MSK_IAM")
---@field sasl_username? string SASL user (PLAIN, SCRAM) (non-empty string)
---@field sasl_oauth_token_file? string OAUTHBEARER: a file holding the token, read again at every login (non-empty string)
---@field sasl_oauth_token_endpoint? string OAUTHBEARER: the OIDC token endpoint for the client-credentials grant (the secret comes from KADMIN_SASL_OAUTH_CLIENT_SECRET) (non-empty string)
---@field sasl_oauth_client_id? string OAUTHBEARER: the client id for the client-credentials grant (non-empty string)
---@field sasl_oauth_scope? string OAUTHBEARER: the scope asked for (non-empty string)
---@field sasl_kerberos_principal? string GSSAPI: the client principal (non-empty string)
---@field sasl_kerberos_keytab? string GSSAPI: a keytab file (else the ticket cache) (non-empty string)
---@field sasl_kerberos_service_name? string GSSAPI: the brokers' service name (kafka) (non-empty string)
---@field sasl_kerberos_config? string GSSAPI: krb5.conf (non-empty string)
---@field sasl_aws_profile? string AWS_MSK_IAM: the AWS profile (else the standard credential chain) (non-empty string)
---@field sasl_aws_role_arn? string AWS_MSK_IAM: a role to assume (non-empty string)
---@field tls? boolean connect with TLS (boolean)
---@field tls_ca? string CA certificate file (PEM); implies tls (non-empty string)
---@field tls_cert? string client certificate file (PEM); implies tls (non-empty string)
---@field tls_key? string client key file (PEM) (non-empty string)
---@field tls_server_name? string the name the brokers' certificates must have (non-empty string)
---@field tls_insecure_skip_verify? boolean do not verify the brokers' certificates (tests only) (boolean)
---@field tls_truststore? string a JKS or PKCS12 trust store (password from KADMIN_TLS_TRUSTSTORE_PASSWORD); implies tls (non-empty string)
---@field tls_truststore_type? "JKS"|"PKCS12"|"PEM" the trust store's type (else read from the file) (one of "JKS", "PKCS12", "PEM")
---@field tls_keystore? string a JKS or PKCS12 key store (password from KADMIN_TLS_KEYSTORE_PASSWORD); implies tls (non-empty string)
---@field tls_keystore_type? "JKS"|"PKCS12"|"PEM" the key store's type (else read from the file) (one of "JKS", "PKCS12", "PEM")
---@field schema_registry? string the cluster's Schema Registry URL (password from KADMIN_SCHEMA_REGISTRY_PASSWORD with schema_registry_user, else a bearer token from KADMIN_SCHEMA_REGISTRY_TOKEN) (non-empty string)
---@field schema_registry_user? string the Schema Registry's basic-auth user (non-empty string)
---@field schema_registry_ca? string CA certificate file (PEM) to verify the Schema Registry with (non-empty string)
---@field schema_registry_cert? string client certificate file (PEM) for the Schema Registry (non-empty string)
---@field schema_registry_key? string client key file (PEM) for the Schema Registry (non-empty string)

---Options of kafka.json.encode.
---@class kadmin.kafka.json.encode.options
---@field indent? boolean indent nested values by two spaces (boolean)

---The arguments of kafka.notify, named.
---@class kadmin.kafka.notify.args
---@field url? string the webhook (give url or url_env) (http(s) URL)
---@field url_env? string a variable holding the webhook's URL, for URLs that are secrets (Slack's) (variable name)
---@field format? "alertmanager"|"slack"|"json" "alertmanager", "slack" or "json" (default) (one of "alertmanager", "slack", "json")
---@field alerts? kadmin.kafka.notify.args.alerts[] several alerts in one call, each {key=, status=, labels=, annotations=, summary=, description=} (array of {[key=], [status=], [labels=], [annotations=], [summary=], [description=]})
---@field generator_url? string Alertmanager's generatorURL: a link back to what raised the alert (string)
---@field status_labels? table<"firing"|"WARN"|"ERR"|"NOTFOUND"|"STALL"|"STOP"|"REWIND", table<string, string|number>> labels an alert fires with by its status, over its own ({ERR = {severity = "critical"}}); not part of its key ({STATUS = {label = value, ...}, ...})
---@field after_runs? integer|string send a new status only once this many calls in a row have given it (default 1: at once) (integer between 1 and 1000)
---@field repeat_interval? number seconds an open alert stays quiet before it is sent again (default 14400, at most a week) (number between 1 and 604800)
---@field timeout? number seconds each attempt may take (default 5) (number between 0.001 and 120)
---@field retries? integer|string retries after a refused connection, a timeout, HTTP 5xx or 429 (default 2) (integer between 0 and 9)
---@field token_env? string a variable holding a bearer token (sent as "Authorization: Bearer ...") (variable name)
---@field token_file? string a file holding a bearer token (read at each call; surrounding space trimmed) (non-empty string)
---@field headers? table<string, string> extra request headers (their values are never shown) ({name = value, ...})
---@field slack_blocks? boolean slack: add Block Kit blocks, one section per alert (boolean)
---@field fail? boolean raise the error (NOTIFY_FAILED) when delivery fails, rather than returning it (boolean)
---@field key? string the alert's identity for de-duplication (default: its labels, name=value joined by commas) (non-empty string)
---@field status? "firing"|"resolved"|"OK"|"WARN"|"ERR"|"NOTFOUND"|"STALL"|"STOP"|"REWIND" "firing" (default), "resolved", or a lag_status verdict ("OK" resolves; the others fire) (one of "firing", "resolved", "OK", "WARN", "ERR", "NOTFOUND", "STALL", "STOP", "REWIND")
---@field labels? table<string, string|number> what identifies the alert (Alertmanager needs alertname) ({label = value, ...})
---@field annotations? table<string, string> what describes it (runbook_url, ...) ({name = text, ...})
---@field summary? string the summary annotation (string)
---@field description? string the description annotation (string)

---{[key=], [status=], [labels=], [annotations=], [summary=], [description=]}
---@class kadmin.kafka.notify.args.alerts
---@field key? string the alert's identity for de-duplication (default: its labels, name=value joined by commas) (non-empty string)
---@field status? "firing"|"resolved"|"OK"|"WARN"|"ERR"|"NOTFOUND"|"STALL"|"STOP"|"REWIND" "firing" (default), "resolved", or a lag_status verdict ("OK" resolves; the others fire) (one of "firing", "resolved", "OK", "WARN", "ERR", "NOTFOUND", "STALL", "STOP", "REWIND")
---@field labels? table<string, string|number> what identifies the alert (Alertmanager needs alertname) ({label = value, ...})
---@field annotations? table<string, string> what describes it (runbook_url, ...) ({name = text, ...})
---@field summary? string the summary annotation (string)
---@field description? string the description annotation (string)

---@class kadmin.kafka.notify.result
---@field sent boolean
---@field reason string
---@field key? string
---@field posts integer
---@field attempts integer
---@field status_code? integer
---@field error? kadmin.Error
---@field dry_run? boolean
---@field url string
---@field alerts kadmin.kafka.notify.result.alerts[]

---@class kadmin.kafka.notify.result.alerts
---@field key string
---@field status string
---@field reason string
---@field sent boolean
---@field runs? integer

---Options of watch.
---@class kadmin.watch.options
---@field count? integer|string stop after this many refreshes (default: until Ctrl-C) (integer >= 1)
---@field window? integer|string refreshes the rates and ETA of lag are measured over (default 5) (integer between 2 and 1000)

---Options of alter_replica_log_dirs.
---@class kadmin.alter_replica_log_dirs.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=, broker=, dir=}
---@class kadmin.alter_replica_log_dirs.moves
---@field topic string topic name
---@field partition integer|string partition (int32) >= 0
---@field broker integer|string the broker whose replica moves (broker id (int32) >= 0)
---@field dir string an absolute path among the broker's log.dirs (non-empty string)

---@class kadmin.alter_replica_log_dirs.result
---@field topic string
---@field partition integer
---@field broker integer
---@field dir string
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of broker_sizes.
---@class kadmin.broker_sizes.options
---@field per? "broker"|"dir" "broker" (default): a row per broker; "dir": a row per log dir (one of "broker", "dir")
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.broker_sizes.result
---@field broker integer
---@field rack string
---@field dir? string
---@field dirs integer
---@field replicas integer
---@field leaders integer
---@field bytes integer
---@field leader_bytes integer
---@field total_bytes integer
---@field usable_bytes integer
---@field error? kadmin.Error

---Options of describe_log_dirs.
---@class kadmin.describe_log_dirs.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{[brokers=], [topics=]}
---@class kadmin.describe_log_dirs.query
---@field brokers? integer|string|(integer|string)[] a broker id or an array of them (broker id (int32) >= 0, or an array of them)
---@field topics? string|string[] a topic or an array of them: all their partitions (topic name, or an array of them)

---@class kadmin.describe_log_dirs.result
---@field broker integer
---@field dir string
---@field total_bytes integer
---@field usable_bytes integer
---@field partitions kadmin.describe_log_dirs.result.partitions[]
---@field error? kadmin.Error

---@class kadmin.describe_log_dirs.result.partitions
---@field topic string
---@field partition integer
---@field size integer
---@field offset_lag integer
---@field is_future boolean

---Options of describe_tiered_storage.
---@class kadmin.describe_tiered_storage.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.describe_tiered_storage.result
---@field topic string
---@field remote_storage boolean
---@field retention_ms integer
---@field retention_bytes integer
---@field local_retention_ms integer
---@field local_retention_bytes integer
---@field at_risk_against string
---@field remote_only integer
---@field pending_upload? integer
---@field local_bytes integer
---@field total_bytes? integer
---@field partitions kadmin.describe_tiered_storage.result.partitions[]
---@field error? kadmin.Error

---@class kadmin.describe_tiered_storage.result.partitions
---@field partition integer
---@field log_start integer
---@field earliest_local integer
---@field latest_tiered integer
---@field earliest_pending_upload integer
---@field end_offset integer
---@field remote_only integer
---@field local_records integer
---@field pending_upload? integer
---@field local_bytes integer
---@field total_bytes? integer
---@field pending_upload_bytes? integer
---@field error? kadmin.Error

---@class kadmin.skew.result
---@field brokers kadmin.skew.result.brokers[]
---@field racks kadmin.skew.result.racks[]
---@field spread kadmin.skew.result.spread
---@field rack_spread? kadmin.skew.result.rack_spread

---@class kadmin.skew.result.brokers
---@field broker integer
---@field rack string
---@field partitions integer
---@field leaders integer
---@field bytes integer
---@field error? kadmin.Error

---@class kadmin.skew.result.racks
---@field rack string
---@field brokers integer
---@field partitions integer
---@field leaders integer
---@field bytes integer

---@class kadmin.skew.result.spread
---@field partitions_pct number
---@field leaders_pct number
---@field bytes_pct number

---@class kadmin.skew.result.rack_spread
---@field partitions_pct number
---@field leaders_pct number
---@field bytes_pct number

---Options of topic_sizes.
---@class kadmin.topic_sizes.options
---@field per? "topic"|"partition" "topic" (default): a row per topic; "partition": a row per partition (one of "topic", "partition")

---@class kadmin.topic_sizes.result
---@field topic string
---@field partition? integer
---@field leader? integer
---@field partitions integer
---@field replicas integer
---@field leaders integer
---@field bytes integer
---@field leader_bytes integer
---@field largest_replica_bytes integer

---Options of list_offsets.
---@class kadmin.list_offsets.options
---@field iterate? boolean return an iterator for a generic for (`for row in f(..., {iterate = true}) do`) instead of a table: rows are read a page at a time and made as the loop asks for them, so a script that keeps none of them never holds the whole cluster; returned from a chunk (-e, run, the REPL) it prints as the table would, its rows as they come (boolean)
---@field match? string keep topics whose name matches this RE2 regular expression (unanchored)
---@field exclude? string leave out topics whose name matches this RE2 regular expression (unanchored)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{timestamp=, [partial=]}
---@class kadmin.list_offsets.at
---@field timestamp integer|string the first offset whose record timestamp is at or after this time (timestamp in ms (int64) >= 0)
---@field partial? boolean as the options' partial: {timestamp=ms, partial=true} (boolean)

---@class kadmin.list_offsets.result
---@field topic string
---@field partition integer
---@field offset integer
---@field timestamp integer
---@field leader_epoch integer
---@field error? kadmin.Error

---Options of alter_client_quotas.
---@class kadmin.alter_client_quotas.options
---@field validate_only? boolean ask the broker to check the request without applying it (as --dry-run does) (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{entity=, [set=], [remove=]}
---@class kadmin.alter_client_quotas.entries
---@field entity kadmin.alter_client_quotas.entries.entity {user=, client_id=, ip=} ({[user=], [client_id=], [ip=]})
---@field set? table<string, number> quotas to set: {key = number} (table of non-empty string = number >= 0)
---@field remove? string|string[] quota keys to remove (non-empty string, or an array of them)

---{[user=], [client_id=], [ip=]}
---@class kadmin.alter_client_quotas.entries.entity
---@field user? any a user principal's name (name or "<default>")
---@field client_id? any a client id (name or "<default>")
---@field ip? any a client IP address (name or "<default>")

---@class kadmin.alter_client_quotas.result
---@field entity table<string, string>
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of describe_client_quotas.
---@class kadmin.describe_client_quotas.options
---@field strict? boolean leave out entities with types the filter does not name (boolean)

---{[user=], [client_id=], [ip=]}
---@class kadmin.describe_client_quotas.entities
---@field user? any a user principal's name (name, "<default>" or true (any))
---@field client_id? any a client id (name, "<default>" or true (any))
---@field ip? any a client IP address (name, "<default>" or true (any))

---@class kadmin.describe_client_quotas.result
---@field entity table<string, string>
---@field quotas table<string, number>

---Options of alter_partition_reassignments.
---@class kadmin.alter_partition_reassignments.options
---@field throttle? integer|string limit the replication of the moving replicas to this many bytes per second per broker (kafka-reassign-partitions --throttle) (bytes per second (int64) >= 1)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=, [replicas=], [target=], [current=], [moves=], [bytes=]}
---@class kadmin.alter_partition_reassignments.rows
---@field topic string topic name
---@field partition integer|string partition (int32) >= 0
---@field replicas? (integer|string)[] the new replicas; the first is the preferred leader (non-empty array of broker ids)
---@field target? (integer|string)[] a plan row's new replicas (instead of replicas) (non-empty array of broker ids)
---@field current? (integer|string)[] a plan row's current replicas (not sent) (array of broker id (int32) >= 0)
---@field moves? integer|string a plan row's count of moved replicas (not sent) (integer >= 0)
---@field bytes? integer|string a plan row's partition size (not sent) (int64 >= 0)

---@class kadmin.alter_partition_reassignments.result
---@field topic string
---@field partition integer
---@field replicas? integer[]
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of cancel_partition_reassignments.
---@class kadmin.cancel_partition_reassignments.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=}
---@class kadmin.cancel_partition_reassignments.rows
---@field topic string topic name
---@field partition integer|string partition (int32) >= 0

---@class kadmin.cancel_partition_reassignments.result
---@field topic string
---@field partition integer
---@field error? kadmin.Error
---@field dry_run? boolean

---@class kadmin.list_partition_reassignments.result
---@field topic string
---@field partition integer
---@field replicas integer[]
---@field adding_replicas integer[]
---@field removing_replicas integer[]

---The arguments of plan_reassignment, named.
---@class kadmin.plan_reassignment.args
---@field topics? string|string[] the topics to plan (required, but with drain: default every topic) (topic name, or an array of them)
---@field brokers? integer|string|(integer|string)[] the brokers to spread over (default: every broker) (broker id (int32) >= 0, or an array of them)
---@field racks? table<integer|string, string> each broker's rack (default: the cluster's broker racks) ({[broker_id] = "rack", ...})
---@field by? "count"|"bytes" balance replica counts ("count", the default) or disk usage too ("bytes") (one of "count", "bytes")
---@field replication_factor? integer|string raise or lower every partition's replication factor to this (int16 >= 1)
---@field leaders_only? boolean move no data: balance preferred leaders by reordering replicas (with drain: a demote) (boolean)
---@field drain? integer|string|(integer|string)[] empty these brokers: leadership first, then their replicas (broker id (int32) >= 0, or an array of them)
---@field max_disk_usage? number no broker planned above this fraction of its log dirs' capacity (default 0.85) (number between 0.01 and 1)
---@field min_partition_bytes? integer|string smaller partitions (or unmeasured ones) stay put when balancing (bytes (int64) >= 0)
---@field partition_limit? integer|string at most this many balancing moves join or leave each broker (integer >= 1)

---@class kadmin.plan_reassignment.result
---@field kind string
---@field by string
---@field moves integer
---@field leader_changes integer
---@field bytes? integer
---@field partitions kadmin.plan_reassignment.result.partitions[]
---@field leadership kadmin.plan_reassignment.result.leadership[]
---@field elect kadmin.plan_reassignment.result.elect[]
---@field brokers kadmin.plan_reassignment.result.brokers[]
---@field steps string[]
---@field notes string[]

---@class kadmin.plan_reassignment.result.partitions
---@field topic string
---@field partition integer
---@field current integer[]
---@field target integer[]
---@field moves integer
---@field bytes? integer

---@class kadmin.plan_reassignment.result.leadership
---@field topic string
---@field partition integer
---@field current integer[]
---@field target integer[]
---@field moves integer
---@field bytes? integer

---@class kadmin.plan_reassignment.result.elect
---@field topic string
---@field partition integer

---@class kadmin.plan_reassignment.result.brokers
---@field broker integer
---@field rack string
---@field replicas_before integer
---@field replicas_after integer
---@field leaders_before integer
---@field leaders_after integer
---@field bytes_before? integer
---@field bytes_after? integer
---@field total_bytes? integer
---@field usable_bytes? integer
---@field usage_before? number
---@field usage_after? number

---Options of reassign.
---@class kadmin.reassign.options
---@field max_moves_per_broker? integer|string moves in flight a broker takes part in, joining or leaving (default 5) (moves (int32) >= 1)
---@field max_moves? integer|string partitions moving in the cluster, this run's or not (default 1000) (moves (int32) >= 1)
---@field max_leader_moves? integer|string leadership-only changes and preferred-leader elections sent at a time (default 1000) (moves (int32) >= 1)
---@field throttle? integer|string|function replication throttle in bytes per second per broker, or a function asked at each poll (bytes per second (int64) >= 1 or function)
---@field resume? boolean|string true: resume the newest unfinished run of the audit log; a run id: that run (boolean or run id)
---@field order? "small_first"|"large_first"|"urgent_first"|"plan" "small_first" (default), "large_first", "urgent_first" or "plan" (one of "small_first", "large_first", "urgent_first", "plan")
---@field interval_ms? integer|string time between polls (default 2000) (poll interval in ms (int64) between 1 and 9223372036854)
---@field stalled_after? number|string a move whose bytes do not grow this long is flagged stalled (default "5m") (integer ms >= 1, or a duration string like "30m")
---@field elect_leaders? boolean elect each moved partition's preferred leader (default true) (boolean)
---@field on_progress? function called with the status after each poll (function)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=, [replicas=], [target=], [current=], [moves=], [bytes=]}
---@class kadmin.reassign.plan
---@field topic string topic name
---@field partition integer|string partition (int32) >= 0
---@field replicas? (integer|string)[] the new replicas; the first is the preferred leader (non-empty array of broker ids)
---@field target? (integer|string)[] a plan row's new replicas (instead of replicas) (non-empty array of broker ids)
---@field current? (integer|string)[] a plan row's current replicas (not sent) (array of broker id (int32) >= 0)
---@field moves? integer|string a plan row's count of moved replicas (not sent) (integer >= 0)
---@field bytes? integer|string a plan row's partition size (not sent) (int64 >= 0)

---@class kadmin.reassign.result
---@field topic string
---@field partition integer
---@field current integer[]
---@field target integer[]
---@field state string
---@field batch integer
---@field bytes integer
---@field copied_bytes integer
---@field stalled boolean
---@field adopted boolean
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of wait_reassignments.
---@class kadmin.wait_reassignments.options
---@field timeout? number|string how long to wait before raising TIMEOUT (default 30m) (integer ms >= 1, or a duration string like "30m")
---@field topics? string|string[] wait only for these topics' reassignments (topic name, or an array of them)
---@field interval_ms? integer|string time between polls (default 1000) (poll interval in ms (int64) between 1 and 9223372036854)
---@field keep_throttles? boolean leave the replication throttles in place (kafka-reassign-partitions --preserve-throttles) (boolean)

---@class kadmin.wait_reassignments.result
---@field topic string
---@field partition integer
---@field replicas integer[]
---@field dry_run? boolean

---Options of delete_records.
---@class kadmin.delete_records.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=, offset=}
---@class kadmin.delete_records.deletions
---@field topic string topic name
---@field partition integer|string partition (int32) >= 0
---@field offset integer|string delete the records below it; -1: below the high watermark (record offset (int64) >= -1)

---@class kadmin.delete_records.result
---@field topic string
---@field partition integer
---@field low_watermark integer
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of peek.
---@class kadmin.peek.options
---@field count? integer|string records at most (default 10) (integer between 1 and 10000)
---@field max_bytes? integer|string bytes the result holds at most: keys, headers, and values when asked (default 1 MiB) (integer between 1 and 1073741824)
---@field values? boolean include the records' values (boolean)
---@field format? "text"|"hex"|"json" how keys, header values and values are shown: "text" (default), "hex" or "json" (one of "text", "hex", "json")
---@field read_committed? boolean skip aborted transactions' records, as a read_committed consumer does (boolean)
---@field decode? "auto"|"avro"|"protobuf"|"json"|"none"|kadmin.peek.options.decode decode keys and values written for a Schema Registry: "auto", "avro", "protobuf", "json", "none" (default), or {key=, value=} (see below) ("auto", "avro", "protobuf", "json" or "none", or {key=, value=})
---@field key_schema? kadmin.peek.options.key_schema decode every key with a local schema file: {file=, message=, framed=} ({file=, [message=], [framed=]})
---@field value_schema? kadmin.peek.options.key_schema decode every value with a local schema file: {file=, message=, framed=} ({file=, [message=], [framed=]})

---{[key=], [value=]}
---@class kadmin.peek.options.decode
---@field key? "auto"|"avro"|"protobuf"|"json"|"none" how keys are decoded (default none) (one of "auto", "avro", "protobuf", "json", "none")
---@field value? "auto"|"avro"|"protobuf"|"json"|"none" how values are decoded (default none) (one of "auto", "avro", "protobuf", "json", "none")

---{file=, [message=], [framed=]}
---@class kadmin.peek.options.key_schema
---@field file string a local schema file: .avsc (Avro), .proto (Protobuf) or .json (JSON Schema) (non-empty string)
---@field message? string for a .proto file: the message the records are (package.Message; default: the file's first, or the framing's message index) (non-empty string)
---@field framed? boolean the records are framed for a registry (magic byte, schema id, Protobuf message indexes): the framing is skipped; default: they are the bare encoding (boolean)

---{[timestamp=], [group=]}
---@class kadmin.peek.from
---@field timestamp? integer|string the first record at or after this time (timestamp in ms (int64) >= 0)
---@field group? string the group's committed offset on the partition (group id)

---@class kadmin.peek.result
---@field offset integer
---@field timestamp integer
---@field timestamp_type string
---@field key? any
---@field key_schema_id? integer
---@field key_subject? string
---@field key_version? integer
---@field headers kadmin.peek.result.headers[]
---@field size integer
---@field value? any
---@field value_schema_id? integer
---@field value_subject? string
---@field value_version? integer
---@field error? kadmin.Error

---@class kadmin.peek.result.headers
---@field key string
---@field value? string

---Options of probe.
---@class kadmin.probe.options
---@field group? string the group the probe commits to (default "kadmin-lua-probe") (group id)
---@field timeout? number|string how long the whole probe may take (default: --timeout) (integer ms >= 1, or a duration string like "30m")

---@class kadmin.probe.result
---@field topic string
---@field group string
---@field created boolean
---@field ok boolean
---@field partitions kadmin.probe.result.partitions[]
---@field produce_ms_max? number
---@field end_to_end_ms_max? number
---@field commit_ms? number
---@field commit_error? kadmin.Error
---@field failures string[]
---@field dry_run? boolean

---@class kadmin.probe.result.partitions
---@field partition integer
---@field broker integer
---@field offset integer
---@field produce_ms? number
---@field end_to_end_ms? number
---@field error? kadmin.Error

---Options of produce.
---@class kadmin.produce.options
---@field acks? "all"|"leader"|"none" "all" (default: every in-sync replica), "leader" or "none" (one of "all", "leader", "none")
---@field idempotent? boolean idempotent writes (default: on with acks "all", off otherwise) (boolean)
---@field value_schema? kadmin.produce.options.value_schema encode every value with a registry subject's schema: {subject=, version=, message=} (see below) ({subject=, [version=], [message=]})
---@field key_schema? kadmin.produce.options.value_schema encode every key with a registry subject's schema: {subject=, version=, message=} ({subject=, [version=], [message=]})
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{subject=, [version=], [message=]}
---@class kadmin.produce.options.value_schema
---@field subject string the subject whose schema encodes the records (non-empty string)
---@field version? "latest"|integer|string its version (default "latest") (a version number or "latest")
---@field message? string for Protobuf: the message (default: the schema's first) (non-empty string)

---{[key=], [value=], [headers=], [partition=], [timestamp=]}
---@class kadmin.produce.records
---@field key? string the record's key (bytes, or with key_schema a table) (a string, or with a schema a table)
---@field value? string the record's value (bytes, or with value_schema a table); left out: null (a tombstone) (a string, or with a schema a table)
---@field headers? table<string, string> header name to value (table of non-empty string = string)
---@field partition? integer|string the partition (default: the partitioner's choice) (partition (int32) >= 0)
---@field timestamp? integer|string ms since the epoch (default: now) (timestamp in ms (int64) >= 0)

---@class kadmin.produce.result
---@field index integer
---@field topic string
---@field partition integer
---@field offset integer
---@field timestamp integer
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of check_compatibility.
---@class kadmin.check_compatibility.options
---@field version? "latest"|integer|string the version to check against (default "latest"); the subject's compatibility level decides which versions count (a version number or "latest")

---{[type=], [schema=], [references=], [file=]}
---@class kadmin.check_compatibility.schema
---@field type? "AVRO"|"PROTOBUF"|"JSON" AVRO (default), PROTOBUF or JSON (one of "AVRO", "PROTOBUF", "JSON")
---@field schema? string the schema's text (non-empty string)
---@field references? kadmin.check_compatibility.schema.references|kadmin.check_compatibility.schema.references[] the subjects' versions it imports ({name=, subject=, version=}, or an array of them)
---@field file? string a local schema file: .avsc, .proto or .json (non-empty string)

---{name=, subject=, version=}
---@class kadmin.check_compatibility.schema.references
---@field name string the name the schema imports it by (an Avro type's full name, a .proto file name, a JSON $ref) (non-empty string)
---@field subject string the subject that holds it (non-empty string)
---@field version integer|string its version (schema version (int32) >= 1)

---@class kadmin.check_compatibility.result
---@field compatible boolean
---@field messages string[]

---Options of delete_schema_version.
---@class kadmin.delete_schema_version.options
---@field permanent? boolean delete for good (soft first, then hard) (boolean)

---@class kadmin.delete_schema_version.result
---@field subject string
---@field versions integer[]
---@field permanent boolean
---@field dry_run? boolean

---Options of delete_subject.
---@class kadmin.delete_subject.options
---@field permanent? boolean delete for good (a soft delete first, then a hard one): the registry forgets the ids (boolean)

---@class kadmin.delete_subject.result
---@field subject string
---@field versions integer[]
---@field permanent boolean
---@field dry_run? boolean

---Options of describe_schema.
---@class kadmin.describe_schema.options
---@field deleted? boolean a soft-deleted version too (then deleted=true) (boolean)

---@class kadmin.describe_schema.result
---@field subject string
---@field version integer
---@field id integer
---@field type string
---@field schema string
---@field references kadmin.describe_schema.result.references[]
---@field deleted? boolean

---@class kadmin.describe_schema.result.references
---@field name string
---@field subject string
---@field version integer

---@class kadmin.describe_schema_compatibility.result
---@field subject? string
---@field global boolean
---@field level string
---@field own boolean

---@class kadmin.describe_schema_id.result
---@field id integer
---@field type string
---@field schema string
---@field references kadmin.describe_schema_id.result.references[]
---@field subjects kadmin.describe_schema_id.result.subjects[]

---@class kadmin.describe_schema_id.result.references
---@field name string
---@field subject string
---@field version integer

---@class kadmin.describe_schema_id.result.subjects
---@field subject string
---@field version integer

---Options of list_schema_versions.
---@class kadmin.list_schema_versions.options
---@field deleted? boolean the soft-deleted versions too (deleted=true) (boolean)

---@class kadmin.list_schema_versions.result
---@field subject string
---@field version integer
---@field deleted boolean

---Options of list_subjects.
---@class kadmin.list_subjects.options
---@field deleted? boolean the soft-deleted subjects too (deleted=true) (boolean)
---@field match? string keep subjects matching this RE2 regular expression (unanchored)

---@class kadmin.list_subjects.result
---@field subject string
---@field deleted boolean

---The arguments of set_schema_compatibility, named.
---@class kadmin.set_schema_compatibility.args
---@field subject? string the subject (default: the registry's global level) (non-empty string)
---@field level "NONE"|"BACKWARD"|"BACKWARD_TRANSITIVE"|"FORWARD"|"FORWARD_TRANSITIVE"|"FULL"|"FULL_TRANSITIVE" NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE (one of "NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE")

---@class kadmin.set_schema_compatibility.result
---@field subject? string
---@field global boolean
---@field level string
---@field before string
---@field dry_run? boolean

---Options of alter_user_scram_credentials.
---@class kadmin.alter_user_scram_credentials.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{[upsert=], [delete=]}
---@class kadmin.alter_user_scram_credentials.changes
---@field upsert? kadmin.alter_user_scram_credentials.changes.upsert|kadmin.alter_user_scram_credentials.changes.upsert[] credentials to create or change ({user=, password=, [mechanism=], [iterations=]}, or an array of them)
---@field delete? kadmin.alter_user_scram_credentials.changes.delete|kadmin.alter_user_scram_credentials.changes.delete[] credentials to delete ({user=, [mechanism=]}, or an array of them)

---{user=, password=, [mechanism=], [iterations=]}
---@class kadmin.alter_user_scram_credentials.changes.upsert
---@field user string non-empty string
---@field password string salted here; never shown, logged or audited (non-empty string (never shown))
---@field mechanism? "SCRAM-SHA-256"|"SCRAM-SHA-512" "SCRAM-SHA-256" when left out (one of "SCRAM-SHA-256", "SCRAM-SHA-512")
---@field iterations? integer|string 4096 when left out (SCRAM iteration count (int32) between 4096 and 16384)

---{user=, [mechanism=]}
---@class kadmin.alter_user_scram_credentials.changes.delete
---@field user string non-empty string
---@field mechanism? "SCRAM-SHA-256"|"SCRAM-SHA-512" "SCRAM-SHA-256" when left out (one of "SCRAM-SHA-256", "SCRAM-SHA-512")

---@class kadmin.alter_user_scram_credentials.result
---@field user string
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of describe_user_scram_credentials.
---@class kadmin.describe_user_scram_credentials.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.describe_user_scram_credentials.result
---@field user string
---@field mechanism? string
---@field iterations? integer
---@field error? kadmin.Error

---Options of alter_share_group_offsets.
---@class kadmin.alter_share_group_offsets.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{topic=, partition=, offset=}
---@class kadmin.alter_share_group_offsets.offsets
---@field topic string topic name
---@field partition integer|string partition (int32) >= 0
---@field offset integer|string the new start offset (offset (int64) >= 0)

---@class kadmin.alter_share_group_offsets.result
---@field topic string
---@field partition integer
---@field offset integer
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of delete_share_group_offsets.
---@class kadmin.delete_share_group_offsets.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.delete_share_group_offsets.result
---@field topic string
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of describe_share_group_offsets.
---@class kadmin.describe_share_group_offsets.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.describe_share_group_offsets.result
---@field group string
---@field topic string
---@field partition integer
---@field start_offset integer
---@field leader_epoch integer
---@field lag integer
---@field error? kadmin.Error

---Options of describe_share_groups.
---@class kadmin.describe_share_groups.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.describe_share_groups.result
---@field group string
---@field state string
---@field coordinator integer
---@field group_epoch integer
---@field assignment_epoch integer
---@field assignor string
---@field members kadmin.describe_share_groups.result.members[]
---@field error? kadmin.Error

---@class kadmin.describe_share_groups.result.members
---@field member_id string
---@field client_id string
---@field host string
---@field rack? string
---@field member_epoch integer
---@field subscribed_topics string[]
---@field assignment kadmin.describe_share_groups.result.members.assignment[]

---@class kadmin.describe_share_groups.result.members.assignment
---@field topic string
---@field partition integer

---Options of create_delegation_token.
---@class kadmin.create_delegation_token.options
---@field renewers? string|string[] principals that may renew the token (principal ("User:alice", or "alice" for a User), or an array of them)
---@field max_lifetime_ms? integer|string the token's maximum lifetime (default: the broker's maximum) (lifetime in ms (int64) between 1 and 9223372036854)
---@field owner? string the token's owner (default: the caller) (principal ("User:alice", or "alice" for a User))

---@class kadmin.create_delegation_token.result
---@field token_id string
---@field hmac string
---@field owner string
---@field requester string
---@field issue_timestamp integer
---@field expiry_timestamp integer
---@field max_timestamp integer
---@field dry_run? boolean

---@class kadmin.describe_delegation_tokens.result
---@field token_id string
---@field owner string
---@field requester string
---@field renewers string[]
---@field issue_timestamp integer
---@field expiry_timestamp integer
---@field max_timestamp integer

---Options of expire_delegation_token.
---@class kadmin.expire_delegation_token.options
---@field period_ms? integer|string expire after this long (default -1: now) (period in ms (int64) between -1 and 9223372036854)

---@class kadmin.expire_delegation_token.result
---@field expiry_timestamp integer
---@field dry_run? boolean

---Options of renew_delegation_token.
---@class kadmin.renew_delegation_token.options
---@field period_ms? integer|string renew for this long (default -1: the broker's renew period) (period in ms (int64) between -1 and 9223372036854)

---@class kadmin.renew_delegation_token.result
---@field expiry_timestamp integer
---@field dry_run? boolean

---Options of create_partitions.
---@class kadmin.create_partitions.options
---@field validate_only? boolean ask the broker to check the request without applying it (as --dry-run does) (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.create_partitions.result
---@field name string
---@field partitions integer
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of create_topics.
---@class kadmin.create_topics.options
---@field if_not_exists? boolean an existing topic is a success (existed=true) (boolean)
---@field validate_only? boolean ask the broker to check the request without applying it (as --dry-run does) (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---{name=, [partitions=], [replication_factor=], [configs=], [assignment=]}
---@class kadmin.create_topics.specs
---@field name string topic name
---@field partitions? integer|string broker default when left out (partition count (int32) >= 1)
---@field replication_factor? integer|string broker default when left out (replication factor (int16) >= 1)
---@field configs? table<string, string|number|boolean|string[]> {name = value, ...}
---@field assignment? table<integer|string, (integer|string)[]> {[partition] = {broker ids}}, partitions from 0; instead of partitions and replication_factor

---@class kadmin.create_topics.result
---@field name string
---@field id string
---@field partitions integer
---@field replication_factor integer
---@field existed? boolean
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of delete_topics.
---@class kadmin.delete_topics.options
---@field if_exists? boolean a missing topic is a success (missing=true) (boolean)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.delete_topics.result
---@field name string
---@field missing? boolean
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of describe_topics.
---@class kadmin.describe_topics.options
---@field iterate? boolean return an iterator for a generic for (`for row in f(..., {iterate = true}) do`) instead of a table: rows are read a page at a time and made as the loop asks for them, so a script that keeps none of them never holds the whole cluster; returned from a chunk (-e, run, the REPL) it prints as the table would, its rows as they come (boolean)
---@field match? string keep topics whose name matches this RE2 regular expression (unanchored)
---@field exclude? string leave out topics whose name matches this RE2 regular expression (unanchored)
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.describe_topics.result
---@field name string
---@field id string
---@field internal boolean
---@field partitions kadmin.describe_topics.result.partitions[]
---@field error? kadmin.Error

---@class kadmin.describe_topics.result.partitions
---@field partition integer
---@field leader integer
---@field leader_epoch integer
---@field replicas integer[]
---@field isr integer[]
---@field offline_replicas integer[]
---@field elr? integer[]
---@field last_known_elr? integer[]
---@field error? kadmin.Error

---Options of list_topics.
---@class kadmin.list_topics.options
---@field internal? boolean include internal topics (__consumer_offsets, ...) (boolean)
---@field match? string keep names matching this RE2 regular expression (unanchored)

---@class kadmin.list_topics.result
---@field name string
---@field id string
---@field partitions integer
---@field replication_factor integer
---@field internal boolean

---The arguments of abort_transaction, named.
---@class kadmin.abort_transaction.args
---@field topic string the partition's topic (topic name)
---@field partition integer|string the partition holding the open transaction (partition (int32) >= 0)
---@field producer_id integer|string the producer whose transaction to abort (a string for ids beyond 2^53) (producer id (int64) >= 0)
---@field producer_epoch? integer|string default (or -1): the producer's current epoch, from describe_producers (producer epoch (int16) >= -1)
---@field coordinator_epoch? integer|string default (or -1): the producer's current coordinator epoch (coordinator epoch (int32) >= -1)

---@class kadmin.abort_transaction.result
---@field topic string
---@field partition integer
---@field producer_id integer
---@field producer_epoch integer
---@field coordinator_epoch integer
---@field error? kadmin.Error
---@field dry_run? boolean

---@class kadmin.describe_producers.result
---@field topic string
---@field partition integer
---@field producer_id integer
---@field producer_epoch integer
---@field last_sequence integer
---@field last_timestamp integer
---@field coordinator_epoch integer
---@field current_txn_start_offset integer
---@field leader integer

---Options of describe_transactions.
---@class kadmin.describe_transactions.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.describe_transactions.result
---@field transactional_id string
---@field state string
---@field producer_id integer
---@field producer_epoch integer
---@field timeout_ms integer
---@field start_timestamp integer
---@field coordinator integer
---@field partitions kadmin.describe_transactions.result.partitions[]
---@field error? kadmin.Error

---@class kadmin.describe_transactions.result.partitions
---@field topic string
---@field partition integer

---Options of fence_producers.
---@class kadmin.fence_producers.options
---@field partial? boolean return every item's result (failed ones with their error) instead of raising when some failed (boolean)

---@class kadmin.fence_producers.result
---@field transactional_id string
---@field producer_id integer
---@field producer_epoch integer
---@field error? kadmin.Error
---@field dry_run? boolean

---Options of find_hanging_transactions.
---@class kadmin.find_hanging_transactions.options
---@field topics? string|string[] look only at these topics (default: every topic) (topic name, or an array of them)
---@field brokers? integer|string|(integer|string)[] look only at partitions led by these brokers (broker id (int32) >= 0, or an array of them)
---@field max_age_ms? integer|string only transactions whose last write is older than this (default 15 minutes; 0: any age) (maximum age in ms (int64) between 0 and 9223372036854)

---@class kadmin.find_hanging_transactions.result
---@field topic string
---@field partition integer
---@field producer_id integer
---@field producer_epoch integer
---@field coordinator_epoch integer
---@field start_offset integer
---@field last_timestamp integer
---@field transactional_id? string
---@field reason string

---Options of list_transactions.
---@class kadmin.list_transactions.options
---@field states? "Empty"|"Ongoing"|"PrepareCommit"|"PrepareAbort"|"CompleteCommit"|"CompleteAbort"|"Dead"|"PrepareEpochFence"|("Empty"|"Ongoing"|"PrepareCommit"|"PrepareAbort"|"CompleteCommit"|"CompleteAbort"|"Dead"|"PrepareEpochFence")[] keep only transactions in these states (one of "Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence", or an array of them)
---@field producer_ids? integer|string|(integer|string)[] keep only these producer ids (producer id (int64) >= 0, or an array of them)
---@field pattern? string keep only transactional ids matching this regular expression (Kafka 4.1+) (string)

---@class kadmin.list_transactions.result
---@field transactional_id string
---@field producer_id integer
---@field state string
---@field coordinator integer

---A client of one cluster: every admin function is a method (`c:list_topics()`).
---@class kadmin.Client
local Client = {}

---The client's seed brokers, comma-separated.
---@return string
function Client:brokers() end

---Close the client's connections (it reconnects on the next call).
function Client:close() end

---The ACLs kafka-acls --producer or --consumer would create, as rows for create_acls and delete_acls.
---
---Needs no cluster: it returns rows, which create_acls creates and delete_acls deletes (a row is also a filter that matches exactly that ACL). The rows are those of Apache Kafka's AclCommand:
---
---producer = P, topics = T: WRITE, DESCRIBE and CREATE on each topic; with transactional_id = X also WRITE and DESCRIBE on each transactional id; with idempotent = true also IDEMPOTENT_WRITE on the cluster (always literal "kafka-cluster"). kafka-acls does not add IDEMPOTENT_WRITE for a transactional id: Kafka allows idempotence to a producer authorized on a transactional id.
---
---consumer = P, topics = T, group = G: READ and DESCRIBE on each topic, READ on each group. producer and consumer can be given together (the rows are merged, as kafka-acls --producer --consumer merges them).
---
---Every row allows, from each of hosts ("*" by default); pattern_type ("literal" by default, or "prefixed", kafka-acls' --resource-pattern-type) applies to topics, groups and transactional ids. Refused as kafka-acls refuses them: no topics, a consumer without group, idempotent or transactional_id without a producer, group without a consumer. Rows are sorted as describe_acls sorts them.
---
---```lua
---local rows = acl_bundle{producer = "User:orders-svc", topics = "orders", idempotent = true}
---create_acls(rows)
---create_acls(acl_bundle{consumer = "User:billing", topics = "orders", group = "billing"})
---print(#describe_acls{principal = "User:orders-svc"}, #describe_acls{principal = "User:billing"})
---delete_acls(acl_bundle{consumer = "User:billing", topics = "orders", group = "billing"})
---return #rows == 4
---```
---@param args kadmin.acl_bundle.args
---@return kadmin.acl_bundle.result[]
function Client:acl_bundle(args) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Create ACLs, one per row.
---
---rows is one row or an array of rows {principal=, operation=, resource_type=, resource_name=, [permission=], [host=], [pattern_type=]}; principal is TYPE:NAME ("User:alice").
---
---Defaults, as kafka-acls: permission "allow", host "*", pattern_type "literal" (or "prefixed"), and resource_name "kafka-cluster" for resource_type "cluster". Names are case-insensitive (see describe_acls).
---
---Creating an ACL that already exists changes nothing and is not an error. Kafka has no validate-only mode for ACLs: under --dry-run the rows are checked here and nothing is created.
---
---```lua
---create_acls{
---  {principal = "User:billing", operation = "read", resource_type = "topic", resource_name = "payments"},
---  {principal = "User:billing", operation = "read", resource_type = "group", resource_name = "billing-", pattern_type = "prefixed"},
---}
---```
---@param rows kadmin.create_acls.rows|kadmin.create_acls.rows[] the ACLs to create
---@param options? kadmin.create_acls.options
---@return kadmin.create_acls.result[]
function Client:create_acls(rows, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete every ACL matching each filter, and say which were deleted.
---
---filters is one filter or an array of them, shaped as describe_acls' filter: a missing field matches anything, so {principal="User:bob"} deletes all of bob's ACLs. A filter must set at least one field; to delete every ACL say so: {resource_type="any"}.
---
---Each result lists the ACLs its filter deleted (none is not an error). Under --dry-run nothing is deleted and deleted lists what would be.
---
---```lua
---create_acls{{principal = "User:temp", operation = "write", resource_type = "topic", resource_name = "orders"}}
---local r = delete_acls{principal = "User:temp"}
---print(#r[1].deleted)
---```
---@param filters kadmin.delete_acls.filters|kadmin.delete_acls.filters[] filters shaped as describe_acls', each with a field set: every ACL a filter matches is deleted
---@param options? kadmin.delete_acls.options
---@return kadmin.delete_acls.result[]
function Client:delete_acls(filters, options) end

---List ACLs matching a filter (all ACLs without one).
---
---filter = {principal=, host=, operation=, permission=, resource_type=, resource_name=, pattern_type=}; a missing field matches anything.
---
---Names are case-insensitive and come back lower-case: operation "read", "write", "create", "delete", "alter", "describe", "cluster_action", "describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens", "all"; permission "allow" or "deny"; resource_type "topic", "group", "cluster", "transactional_id", "delegation_token", "user"; pattern_type "literal", "prefixed", "any" (the default) or "match" (every literal, prefixed and wildcard ACL that applies to resource_name).
---
---Rows are sorted by resource type, resource name, pattern type, then principal; a row is itself a valid filter for delete_acls.
---
---```lua
---create_acls{{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "orders"}}
---for _, a in ipairs(describe_acls{principal = "User:alice"}) do print(a.operation, a.resource_type, a.resource_name) end
---```
---@param filter? kadmin.describe_acls.filter the ACLs to list; a field left out matches anything (every ACL when left out)
---@return kadmin.describe_acls.result[]
function Client:describe_acls(filter) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Make a KRaft controller a voter of the metadata quorum (KIP-853).
---
---Like kafka-metadata-quorum add-controller. voter is {id=, endpoints={{listener=, host=, port=}...}, [directory_id=]}: the controller's node.id, its controller listeners (controller.listener.names, as advertised) and the directory id of its metadata log dir. Without directory_id the controller's id is looked up among the quorum's observers (describe_quorum): start the new controller first (formatted with --no-initial-controllers); it joins as an observer, and Kafka adds it once it has caught up.
---
---Needs a dynamic quorum: kraft.version 1 or more (Kafka 3.9+, formatted with --standalone or --initial-controllers); on a static quorum (controller.quorum.voters) the call is refused before anything is sent. Kafka answers DUPLICATE_VOTER for a controller already voting.
---
---Declared destructive (the REPL asks first unless --yes) and audited; undo removes the voter again. Under --dry-run nothing is sent and the plan names the voters now.
---
---```lua
---local ok, err = pcall(add_raft_voter, {id = 3004, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ",
---  endpoints = {{listener = "CONTROLLER", host = "controller-4", port = 9093}}})
---print(ok or err.code)
---```
---@param voter kadmin.add_raft_voter.voter the controller to make a voter
---@return kadmin.add_raft_voter.result
function Client:add_raft_voter(voter) end

---The KRaft metadata quorum: leader, epoch, and how far each voter and observer lags.
---
---Like kafka-metadata-quorum describe --status --replication. lag is high_watermark minus the replica's log_end_offset; timestamps are Unix milliseconds, -1 when unknown. Voters are the controllers, observers the brokers (and controllers not voting), each sorted by id.
---
---Brokers forward the request to the active controller. When there is none (the quorum has lost its majority, or the brokers cannot reach it), a broker holds the request; the call then fails after 5 s (half of --timeout, when that is shorter), not at --timeout, with TIMEOUT "no controller answered within 5s" (err.retriable: ask again later). 5 s waits out an election at Kafka's defaults (the voters notice a dead leader after controller.quorum.fetch.timeout.ms, 2 s, then vote within 1-2 s); describe_cluster() says the same as quorum = "no_answer".
---
---The embedded demo cluster does not implement it (UNSUPPORTED_VERSION).
---
---```lua
---local ok, q = pcall(describe_quorum)
---if ok then print(q.leader, q.epoch, #q.voters) else print(q.code) end
---```
---@return kadmin.describe_quorum.result
function Client:describe_quorum() end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Remove a voter from the KRaft metadata quorum (KIP-853).
---
---Like kafka-metadata-quorum remove-controller --controller-id --controller-directory-id. voter is {id=, directory_id=}; describe_quorum lists the voters with their directory ids. Kafka answers VOTER_NOT_FOUND for a controller that is not a voter with that directory id.
---
---Needs a dynamic quorum (kraft.version 1 or more); a static one is refused before anything is sent. Removing voters can leave the quorum without a majority of live voters: check describe_quorum first.
---
---Declared destructive and audited; undo adds the voter again with the endpoints recorded before (its controller must be running). Under --dry-run nothing is sent.
---
---```lua
---local ok, err = pcall(remove_raft_voter, {id = 3004, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ"})
---print(ok or err.code)
---```
---@param voter kadmin.remove_raft_voter.voter the voter to remove
---@return kadmin.remove_raft_voter.result
function Client:remove_raft_voter(voter) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Remove a decommissioned broker's registration from the cluster metadata.
---
---For a broker shut down for good (KIP-500): its id stops being listed and its replicas can be reassigned. Kafka does not refuse a running broker: Apache Kafka 4.1 drops its registration, and the broker process goes on running unregistered (its heartbeats get STALE_BROKER_EPOCH) until it is restarted (a Kafka 3.9 broker was seen to register again by itself within seconds), so unregister only brokers that are shut down. Kafka answers BROKER_ID_NOT_REGISTERED for an id it does not know, including one already unregistered.
---
---Under --dry-run nothing changes; the plan says whether the broker is currently registered (live). The embedded demo cluster does not implement it.
---
---```lua
---local ok, err = pcall(unregister_broker, 99)
---print(ok or err.code)
---```
---@param id integer|string the id of the broker to unregister
---@return kadmin.unregister_broker.result
function Client:unregister_broker(id) end

---Describe the cluster: its id, the metadata quorum and active controller, and every broker with its state.
---
---Brokers are sorted by id; rack is nil for a broker without broker.rack. state is one of:
---
---- "live": registered and unfenced, serving;
---
---- "fenced": registered but fenced: stopped, crashed, or not caught up with the metadata yet (Kafka 4.0+ reports fenced brokers: DescribeCluster v2);
---
---- "unregistered": named in partition replicas but not registered (host and port are nil);
---
---- "offline": named in replicas and not live, on a cluster before Kafka 4.0 that cannot tell fenced from unregistered;
---
---- "unknown": the metadata quorum has no leader, none answered, or its leader has no majority (quorum below): the broker that answered knows only the metadata it had when the quorum was lost, where a broker that died since still reads live. reachable then says whether this client got an answer from the broker just now (ApiVersions, within 2 s); it is nil otherwise.
---
---Kafka tells clients nothing of a broker in controlled shutdown: it is "live" until it is fenced (see docs/decisions.md).
---
---quorum is the KRaft metadata quorum's state: "led" (it has a leader: the active controller), "no_leader" (it answered, without a leader: an election), "no_answer" (no controller answered within 5 s, or half of --timeout when shorter: brokers forward DescribeQuorum to the active controller, and there is none: the quorum has lost its majority, or the brokers cannot reach it), "no_majority" (the leader answered, but most of its voters have not fetched from it for over 2 s, Kafka's default controller.quorum.fetch.timeout.ms, by the leader's clock: it can commit nothing, and resigns within a few seconds), "none" (no quorum to ask: a ZooKeeper-era cluster) or "unknown" (asking failed otherwise); quorum_error says why for "no_answer", "no_majority" and "unknown". In all but "led" and "none" the states are "unknown".
---
---active_controller is the metadata quorum's leader (describe_quorum), the controller really in charge (with "no_majority", the leader about to resign); nil where the cluster cannot say (no quorum, no leader, or DESCRIBE on the cluster not allowed: quorum is then "led", as a controller answered). controller is what Kafka's answer names: in KRaft a broker that forwards controller requests, not the active controller (-1 when unknown; without a quorum, whatever the answering broker last knew).
---
---Every topic's replicas are read (in pages) to find the brokers the cluster does not list; with_topics=true returns them as topics, in describe_topics' shape (a topic that failed carries its error instead of raising), so a health check reads them once.
---
---```lua
---local c = describe_cluster()
---print(c.cluster_id, "quorum:", c.quorum, "active controller:", c.active_controller or "unknown")
---for _, b in ipairs(c.brokers) do print(b.id, b.state, (b.host or "?") .. ":" .. (b.port or "?"), b.rack or "-") end
---print(#describe_cluster{with_topics = true}.topics .. " topics")
---```
---@param options? kadmin.describe_cluster.options
---@return kadmin.describe_cluster.result
function Client:describe_cluster(options) end

---Wait until the cluster is ready: enough brokers live and no partition under-replicated or offline.
---
---The readiness gate of a provisioning job (a Kubernetes Job or Helm hook that makes topics and ACLs): looks at the cluster's metadata every interval_ms (default 1000) until at least min_brokers brokers are live (registered and unfenced) and every partition has a leader and all its replicas in sync, then returns what it saw (brokers live, and the empty lists of under-replicated and offline partitions as "topic[partition]"; a topic whose metadata is an error, such as one still being made, is offline as "topic: LEADER_NOT_AVAILABLE"). A cluster that cannot be reached yet (still starting) is looked at again; a refused login or authorization is raised at once, since waiting cannot mend it. When timeout passes first (milliseconds or a duration string like "10m", default 5m) it raises TIMEOUT saying what was missing at the last look: "3 of 5 brokers live; 2 partitions under-replicated (orders[0], orders[3])"; from the CLI that is exit 3, which a Job's podFailurePolicy retries. While it waits, progress goes to stderr as wait_reassignments' does. Changes nothing in the cluster.
---
---```lua
---local r = wait_ready{min_brokers = 3, timeout = "1m"}
---print(r.brokers .. " brokers live after " .. r.waited_ms .. " ms")
---```
---@param options? kadmin.wait_ready.options
---@return kadmin.wait_ready.result
function Client:wait_ready(options) end

---List the resources that have configs: topics, brokers, broker loggers, client metrics, groups.
---
---types is a type or an array of types among "topic", "broker", "broker_logger", "client_metrics", "group"; none means every type. Rows are sorted by type then name; the names feed describe_configs.
---
---Brokers before Kafka 4.1 would list only client_metrics resources (the API was ListClientMetricsResources), so on an older cluster the call fails with UNSUPPORTED_VERSION rather than return a partial list.
---
---```lua
---for _, r in ipairs(list_config_resources("topic")) do print(r.type, r.name) end
---```
---@param types? "topic"|"broker"|"broker_logger"|"client_metrics"|"group"|("topic"|"broker"|"broker_logger"|"client_metrics"|"group")[] the resource types to list (every type when left out)
---@return kadmin.list_config_resources.result[]
function Client:list_config_resources(types) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Change configs incrementally: set, delete (back to default), append to or subtract from lists.
---
---A resource is {topic="t", set={k=v}, delete={"k"}, append={k=v}, subtract={k=v}}, with broker=, broker_logger=, group= or client_metrics= in place of topic= (as for describe_configs); resources is one resource or an array of them.
---
---This is Kafka's IncrementalAlterConfigs: configs not named keep their values (unlike the legacy AlterConfigs, which reset them). Values may be strings, numbers or booleans; for list configs (cleanup.policy, leader.replication.throttled.replicas, ...) a value may also be an array of strings, sent comma-separated. append adds values not already in the list; subtract removes them.
---
---A config may appear in only one of set, delete, append and subtract. validate_only=true (or --dry-run) asks the brokers to validate without changing anything. Values of secret-looking keys (passwords, JAAS configs, keys) are shown as *** in plans and the audit log.
---
---Every operation is idempotent, so a retriable failure (even REQUEST_TIMED_OUT) is sent again until the deadline. If any resource fails the call raises after altering the others; err.results says which.
---
---```lua
---alter_configs{topic = "orders", set = {["retention.ms"] = 86400000}, append = {["cleanup.policy"] = "compact"}}
---local c = describe_configs({topic = "orders"}, {keys = {"retention.ms", "cleanup.policy"}})[1].configs
---print(c["retention.ms"].value, c["cleanup.policy"].value)
---alter_configs{topic = "orders", delete = {"retention.ms", "cleanup.policy"}}
---```
---@param resources kadmin.alter_configs.resources|kadmin.alter_configs.resources[] the resources (as for describe_configs), each with its changes: set, delete, append, subtract
---@param options? kadmin.alter_configs.options
---@return kadmin.alter_configs.result[]
function Client:alter_configs(resources, options) end

---Describe the configs of topics, brokers, broker loggers, groups or client-metrics subscriptions.
---
---A resource is {topic="t"}, {broker=1}, {broker="default"} (the cluster-wide dynamic broker default), {broker_logger=1}, {group="g"} or {client_metrics="name"}; resources is one resource or an array of them.
---
---Each result has type (the resource's key: "topic", "broker", ...), name (the topic, group or subscription name; the broker id as a string, "" for the broker default) and configs keyed by config name.
---
---source is Kafka's name for where the value comes from, as kafka-configs prints it: DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, DYNAMIC_BROKER_LOGGER_CONFIG, DYNAMIC_CLIENT_METRICS_CONFIG, DYNAMIC_GROUP_CONFIG.
---
---dynamic=true keeps only the values set on the resource itself, what kafka-configs --describe shows without --all: a topic's DYNAMIC_TOPIC_CONFIG entries, a broker's DYNAMIC_BROKER_CONFIG, the broker default's DYNAMIC_DEFAULT_BROKER_CONFIG, a group's DYNAMIC_GROUP_CONFIG, a subscription's DYNAMIC_CLIENT_METRICS_CONFIG (broker loggers are shown whole, as kafka-configs does); defaults and static broker settings are left out.
---
---Sensitive values (passwords, keys) are never shown: value is nil and sensitive=true. keys limits the answer to those configs; synonyms=true adds synonyms={{name=, value=, source=}...} to each config, highest precedence first (e.g. log.retention.ms behind a topic's retention.ms).
---
---Broker and broker_logger resources are asked of that broker, as Kafka requires; a broker id not in the cluster fails with BROKER_NOT_AVAILABLE. Results are sorted by type, then name (broker ids numerically).
---
---```lua
---local t = describe_configs({topic = "orders"}, {keys = {"retention.ms", "cleanup.policy"}})[1]
---for k, c in pairs(t.configs) do print(k, c.value, c.source) end
---for k, c in pairs(describe_configs({topic = "orders"}, {dynamic = true})[1].configs) do print(k .. "=" .. c.value) end
---local b = describe_configs{broker = describe_cluster().brokers[1].id}[1]
---local n = 0
---for _ in pairs(b.configs) do n = n + 1 end
---print("broker " .. b.name .. ": " .. n .. " configs")
---```
---@param resources kadmin.describe_configs.resources|kadmin.describe_configs.resources[] the resources: {topic=}, {broker=} (an id or "default"), {broker_logger=}, {group=} or {client_metrics=}
---@param options? kadmin.describe_configs.options
---@return kadmin.describe_configs.result[]
function Client:describe_configs(resources, options) end

---The API versions each broker supports: a row per broker and API key.
---
---Rows are sorted by broker then API key; name is Kafka's request name, as kafka-broker-api-versions prints it ("Produce", "SaslHandshake", "InitProducerId", "AlterPartitionReassignments", ...). One row per broker and key keeps it greppable and easy to compare across brokers during a rolling upgrade.
---
---A broker that cannot be asked gets one row with api -1 and its error.
---
---```lua
---for _, v in ipairs(api_versions()) do
---  if v.broker == 0 and v.name == "Fetch" then print(v.min_version, v.max_version) end
---end
---```
---@return kadmin.api_versions.result[]
function Client:api_versions() end

---The cluster's features (KIP-584): finalized level and supported range, a row per feature.
---
---feature is e.g. "metadata.version", "kraft.version", "transaction.version", "group.version". finalized_level is the level in force (0 when not finalized); supported_min/supported_max the range the brokers support; epoch the finalized features' epoch (the same on every row). Read from a broker's ApiVersions answer, as the Java admin client does.
---
---```lua
---for _, f in ipairs(describe_features()) do print(f.feature, f.finalized_level, f.supported_max) end
---```
---@return kadmin.describe_features.result[]
function Client:describe_features() end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Change finalized feature levels (upgrade metadata.version, ...).
---
---updates is one update or an array of updates {feature=, max_version_level=, [upgrade_type=]}; upgrade_type is "upgrade" (the default), "safe_downgrade" or "unsafe_downgrade" (lossy). max_version_level 0 removes the feature.
---
---Declared destructive: an upgrade of metadata.version cannot be undone without a lossy downgrade, so the REPL asks first unless --yes. validate_only=true (and --dry-run) asks the controller to check without changing anything. Brokers answering UpdateFeatures v2 give one error for the whole request: every feature then carries it.
---
---```lua
---local fs = describe_features()
---for _, f in ipairs(fs) do
---  if f.feature == "transaction.version" then
---    print(update_features({{feature = f.feature, max_version_level = f.supported_max}}, {validate_only = true})[1].error)
---  end
---end
---```
---@param updates kadmin.update_features.updates|kadmin.update_features.updates[] the features and their new levels
---@param options? kadmin.update_features.options
---@return kadmin.update_features.result[]
function Client:update_features(updates, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Commit offsets for a group (rewind or skip ahead an idle group).
---
---offset is the next offset the group will read. Kafka only accepts an admin commit to a group without live members: stop the consumers first, or the commit fails with UNKNOWN_MEMBER_ID. Committing to a group that does not exist creates it (Kafka's semantics).
---
---Under --dry-run nothing is committed: the group is checked to have no live members and each partition to exist.
---
---```lua
---commit_offsets("orders-replay", {{topic = "orders", partition = 0, offset = 0}, {topic = "orders", partition = 1, offset = 0}})
---print(fetch_offsets("orders-replay")[1].offset)
---```
---@param group string the group to commit for (created if it does not exist)
---@param offsets kadmin.commit_offsets.offsets|kadmin.commit_offsets.offsets[] one record per partition, each partition once
---@param options? kadmin.commit_offsets.options
---@return kadmin.commit_offsets.result[]
function Client:commit_offsets(group, offsets, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete a group's committed offsets for topics (or single partitions).
---
---topics is a topic name, or an array of names (all their partitions) and/or {topic=, partition=} records. Kafka (OffsetDelete, 2.4+) drops the group's commits there, so its lag no longer counts topics it stopped reading; a partition without a commit succeeds too.
---
---A group still consuming a topic keeps those offsets: each of its partitions fails with GROUP_SUBSCRIBED_TO_TOPIC (the others are still deleted: see err.results, or pass {partial=true}). A group with live members that is not a consumer group fails as a whole with NON_EMPTY_GROUP; a group that does not exist with GROUP_ID_NOT_FOUND. A named topic that does not exist gets one result with partition=-1 and UNKNOWN_TOPIC_OR_PARTITION; a {topic=, partition=} that does not exist fails the call before anything is deleted.
---
---Under --dry-run nothing is deleted: the group is described and a partition of a topic assigned to one of its members is answered GROUP_SUBSCRIBED_TO_TOPIC (Kafka decides from the members' subscriptions, which describe_groups does not show).
---
---```lua
----- billing is empty; drop its commits on payments partition 2, then on all of payments.
---delete_group_offsets("billing", {{topic = "payments", partition = 2}})
---print(#fetch_offsets("billing"))
---delete_group_offsets("billing", "payments")
---print(#fetch_offsets("billing"))
---```
---@param group string the group whose commits are deleted
---@param topics string|kadmin.delete_group_offsets.topics|(string|kadmin.delete_group_offsets.topics)[] whole topics (by name) and single partitions ({topic=, partition=})
---@param options? kadmin.delete_group_offsets.options
---@return kadmin.delete_group_offsets.result[]
function Client:delete_group_offsets(group, topics, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete groups and their committed offsets.
---
---A group with live members fails with NON_EMPTY_GROUP (stop its consumers first); a missing one with GROUP_ID_NOT_FOUND unless if_exists=true (missing=true). A streams group is deleted like a consumer group (once the application's instances are stopped); its internal topics (repartition and changelog topics, see describe_streams_groups) stay: kafka-streams-groups.sh --delete deletes them too, delete_topics does here.
---
---Under --dry-run nothing is deleted: each group is checked to exist and to have no members.
---
---```lua
---commit_offsets("scratch-group", {{topic = "orders", partition = 0, offset = 0}})
---delete_groups("scratch-group")
---```
---@param groups string|string[] the groups to delete
---@param options? kadmin.delete_groups.options
---@return kadmin.delete_groups.result[]
function Client:delete_groups(groups, options) end

---Describe groups: state, assignor, members and their assigned partitions.
---
---groups is a group name or an array of names. Classic groups and KIP-848 consumer groups (and share groups) are described alike: the group's type, from list_groups, picks the request. A streams group fails with GROUP_ID_NOT_FOUND saying it is one: describe_streams_groups describes it (its tasks and topology have no place here). protocol is the assignor (range, cooperative-sticky, uniform...). instance_id is nil unless the member uses static membership. Members are sorted by instance_id then member_id, assignments by topic and partition.
---
---A group that does not exist fails with GROUP_ID_NOT_FOUND (the other groups are still described: see err.results, or pass {partial=true}).
---
---```lua
---local g = describe_groups("orders-processor")[1]
---print(g.group, g.state, #g.members)
---```
---@param groups string|string[] the groups to describe
---@param options? kadmin.describe_groups.options
---@return kadmin.describe_groups.result[]
function Client:describe_groups(groups, options) end

---Alias of `describe_groups`.
---
---Describe groups: state, assignor, members and their assigned partitions.
---
---groups is a group name or an array of names. Classic groups and KIP-848 consumer groups (and share groups) are described alike: the group's type, from list_groups, picks the request. A streams group fails with GROUP_ID_NOT_FOUND saying it is one: describe_streams_groups describes it (its tasks and topology have no place here). protocol is the assignor (range, cooperative-sticky, uniform...). instance_id is nil unless the member uses static membership. Members are sorted by instance_id then member_id, assignments by topic and partition.
---
---A group that does not exist fails with GROUP_ID_NOT_FOUND (the other groups are still described: see err.results, or pass {partial=true}).
---
---```lua
---local g = describe_groups("orders-processor")[1]
---print(g.group, g.state, #g.members)
---```
---@param groups string|string[] the groups to describe
---@param options? kadmin.describe_groups.options
---@return kadmin.describe_groups.result[]
function Client:describe_consumer_groups(groups, options) end

---Describe Kafka Streams applications' groups (KIP-1071): topology, members and their tasks.
---
---groups is a group name or an array of names: the application.id of Kafka Streams applications running with group.protocol=streams. What kafka-streams-groups.sh --describe shows (--state, --members --verbose), with Kafka's names: state (Empty, NotReady, Assigning, Reconciling, Stable), group_epoch, target_assignment_epoch, topology_epoch.
---
---topology_ready is false while the broker cannot run the topology: state NotReady (a source topic missing or not co-partitioned, internal topics not created yet) or no topology received yet; subtopologies is then empty. Each subtopology lists its source_topics, the repartition topics it reads (repartition_source_topics) and writes (repartition_sink_topics), and its state stores' changelog_topics, with the partition counts the topology asks for (0: left to the source topics).
---
---Each member is a stream thread of an application instance (process_id); member_epoch and topology_epoch are the ones it runs; member_protocol is "classic" for a member not yet on the streams protocol. Its tasks are given per subtopology with their partitions: active_tasks process records, standby_tasks keep a copy of the state, warmup_tasks build one before taking over; the target_ ones are the assignment the broker is moving it to. assignment is what its active tasks consume: each task's partition of its subtopology's source and repartition topics, as in describe_groups. Members are sorted by process_id then member_id.
---
---Offsets are committed as a consumer group's: fetch_offsets, lag (the source and repartition topics), reset_offsets, delete_group_offsets and delete_groups take a streams group by name. describe_groups does not describe one: it fails naming the type, as this function fails for a group of another type. A group that does not exist fails with GROUP_ID_NOT_FOUND (see err.results, or pass {partial=true}).
---
---Kafka 4.1 has streams groups as early access: its brokers answer only when started with unstable.api.versions.enable=true and unstable.feature.versions.enable=true, and with streams.version raised to 1 (update_features); from Kafka 4.2 they are on.
---
---```lua
---local ok, err = pcall(describe_streams_groups, "wordcount-app")
---print(ok or err.code)
---```
---@param groups string|string[] the streams groups to describe
---@param options? kadmin.describe_streams_groups.options
---@return kadmin.describe_streams_groups.result[]
function Client:describe_streams_groups(groups, options) end

---A group's committed offsets, sorted by topic and partition.
---
---Without topics: every partition the group has committed to. With topics (a name or an array): every partition of those topics, offset -1 (and leader_epoch -1) where the group has no commit; a missing topic fails with UNKNOWN_TOPIC_OR_PARTITION.
---
---A group that does not exist has no commits: the result is empty, as Kafka answers. COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE are retried until the deadline.
---
---```lua
---for _, o in ipairs(fetch_offsets("orders-processor")) do print(o.topic, o.partition, o.offset) end
---```
---@param group string the group whose commits are read
---@param topics? string|string[]|kadmin.fetch_offsets.options every partition of these topics, committed or not (default: the partitions the group committed to)
---@param options? kadmin.fetch_offsets.options
---@return kadmin.fetch_offsets.result[]
function Client:fetch_offsets(group, topics, options) end

---Alias of `fetch_offsets`.
---
---A group's committed offsets, sorted by topic and partition.
---
---Without topics: every partition the group has committed to. With topics (a name or an array): every partition of those topics, offset -1 (and leader_epoch -1) where the group has no commit; a missing topic fails with UNKNOWN_TOPIC_OR_PARTITION.
---
---A group that does not exist has no commits: the result is empty, as Kafka answers. COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE are retried until the deadline.
---
---```lua
---for _, o in ipairs(fetch_offsets("orders-processor")) do print(o.topic, o.partition, o.offset) end
---```
---@param group string the group whose commits are read
---@param topics? string|string[]|kadmin.fetch_offsets.options every partition of these topics, committed or not (default: the partitions the group committed to)
---@param options? kadmin.fetch_offsets.options
---@return kadmin.fetch_offsets.result[]
function Client:list_consumer_group_offsets(group, topics, options) end

---Consumer lag per group and partition.
---
---Without groups: every consumer group (classic and KIP-848) and every streams group (Kafka Streams applications with group.protocol=streams, KIP-1071). A group's partitions are those assigned to its members, those it has committed to, and the other partitions of those topics; member_id and client_id are nil where no member is assigned. A streams group's are every partition of the topics its topology consumes (its source topics and the repartition topics it reads: those kafka-streams-groups.sh --describe lists), committed or not, a member's being those its active tasks consume.
---
---committed is -1 where the group has no commit; lag is then counted from the partition's start offset (what a consumer starting at "earliest" would read), unless no_commit="skip": then lag is -1 and total_lag leaves it out, so that totals match kafka-consumer-groups --describe, which prints "-" for such a partition. lag is end_offset - committed, never below 0; total_lag sums the group's lags.
---
---A partition whose end offset cannot be listed gets lag -1 and an error, and fails its group (raised unless {partial=true}); partitions of deleted topics keep their UNKNOWN_TOPIC_OR_PARTITION error without failing the group.
---
---{time=true} adds the lag in time, exactly, from the records themselves: for each lagging partition the first record the group has not read (at its committed offset, or at the log start without a commit; after a compaction gap or a transaction marker, the next record) is read with one small Fetch per leader broker (nothing joins the group or commits). oldest_unconsumed is that record's timestamp (ms), timestamp_type says whether it is CreateTime (the producer's) or LogAppendTime (the broker's), lag_ms is now minus it, and behind_head_ms the partition's newest timestamp (ListOffsets max_timestamp) minus it. A caught-up partition has lag_ms=0; the group's max_lag_ms is the largest. Where no record can be read, time_unknown says why (only markers and aborted records up to the end; or the records were deleted unread and none is left) and the time fields stay nil: nothing is estimated. So they do where the record's timestamp says nothing of its age: a negative one (-1: a record without a timestamp, which Kafka allows; it read as 56 years) or one more than a minute ahead of this machine's clock (it read as 0, a stuck consumer as caught up); a record up to a minute ahead is taken as clock skew, lag_ms 0. The group's odd_timestamps counts those partitions; max_lag_ms leaves them out, and is nil when no other lagging partition has a lag in time. Records deleted before the group read them (records_lost) are lag: the partition's lag_ms is the age of the oldest record left, a floor, and time_unknown says the lag is more; sort = "lag_ms" puts such partitions, and their groups, first.
---
---To look at the worst first: only_lagging=true leaves out the partitions that do not lag (and the groups left with none), sort="lag" (or "lag_ms", with time) orders the groups and their partitions worst first, and top=N keeps each group's N worst partitions; total_lag and the other totals still count every partition.
---
---Data at risk: records_lost (with or without time) is how many records were deleted before the group read them: the log start minus the committed offset, where that is positive; the group's records_lost sums them. With time, at_risk=true marks a partition whose unread records will soon be deleted, and at_risk_by names the config: "retention.ms" when its lag in time has reached at_risk (default 0.8) of the topic's retention.ms; "retention.bytes" when the partition's size (describe_log_dirs, its largest replica) has reached at_risk of the topic's retention.bytes and the committed offset is in its oldest segment, the next one deleted (segments are not visible through the admin API: the place of the committed offset is estimated at the partition's mean record size, within segment.bytes of the log start). The group's at_risk counts them.
---
---When and how many, on each partition at risk (estimates: Kafka deletes whole log segments, which the admin API does not show): next_deletion_ms is the time until retention next deletes the partition's oldest segment, next_deletion_by the config that deletes it, and next_deletion_records how many of the group's unread records go with it (0: none of them; a later deletion takes them). The oldest segment is taken to hold segment.bytes at the partition's mean record size, and to end before the first record stamped segment.ms after its oldest (list_offsets by timestamp); retention.ms deletes it when its newest record (read) is retention.ms old; retention.bytes once the partition holds retention.bytes besides it, at the pace it grew (its size over the span of its records' timestamps), and a partition already past the limit loses every whole segment over it. next_deletion_ms=0 means due: the broker deletes at its next retention check (log.retention.check.interval.ms, 5 minutes by default); while the oldest segment is still the one being written, each new record puts its deletion later. Where an estimate cannot be made (the partition's size and oldest timestamp unreadable, timestamps negative or in the future, no span of time to measure a pace by) it is nil and next_deletion_unknown says why: never 0.
---
---Tiered storage (KIP-405): with time, reading_remote=true marks a partition whose first unread record is no longer on the brokers' disks, only in remote storage (below earliest_local, the partition's earliest local offset, given for topics with remote.storage.enable=true): the group reads from object storage, slower and costlier, long before it loses anything. remote_only counts the unread records that are only in remote storage. Both are nil on a topic without tiered storage, false and 0 on a partition of a tiered topic that does not lag, and nil where it cannot be known, with remote_unknown saying why (the earliest local offset or the topic's configs could not be read). The group's reading_remote counts the partitions reading from remote storage and remote_only sums theirs; its remote_unknown counts the lagging partitions of which it is not known, for which reading_remote does not speak. Data at risk is judged against the whole log, which retention.ms and retention.bytes bound (local.retention.ms and local.retention.bytes only decide what stays on disk): for a tiered partition the size against retention.bytes is the local size (describe_log_dirs counts only local segments) over its local records, times all its records, an estimate, and a partition whose local records cannot be counted is judged by time alone.
---
---Stuck: with time, stuck_ms is how long the committed offset has not moved while the partition lags, read from the state store's samples (those lag_status took, in this process or in the --state file), where that window with this reading added is judged STALL or STOP (see lag_status); nil where the store has no earlier sample at that offset, and where it is judged OK or WARN: a consumer that keeps up stands still between its commits too. Within one call, observe=N (seconds, with or without time) reads the commits of the lagging groups again N seconds after the call began (Ctrl-C ends the wait): a lagging partition whose committed offset is still where it was has stuck_ms of at least N (the store's figure when longer), and one that moved has none, whatever the store said; the rows are the first reading's. A consumer commits every few seconds (Java's auto-commit: 5 s), so N should be longer than that. peek(topic, partition, {group = G}) shows the record it is stuck on; the skip-record runbook skips it.
---
---At scale: the groups are listed once, and match and exclude (RE2 on the group name, unanchored) and states (as list_groups says them) choose them right there, before any group is described or any offset asked for. They are then read a page of 2,000 groups at a time (their descriptions and commits, then their topics' start and end offsets), so the requests grow with the pages, not the groups. summary=true gives one row per group instead of its partitions: group, state, total_lag, max_lag (the most a partition lags), partition_count, lagging (how many lag), worst_topic and worst_partition (the partition lagging most; nil when none lags), max_lag_ms with time, records_lost, at_risk, failed_in and error; no partitions. Each page's partitions are let go once summed: 65,000 groups of 40 partitions are 65,000 rows. sort orders the summaries worst first; only_lagging leaves out groups without lag. iterate=true returns an iterator instead (for g in lag(nil, {iterate = true}) do ... end): the rows come a page at a time, in group order (sort then orders each group's partitions only), and a loop that keeps none holds one page. A group listed but deleted before its page was read is left out (as if listed a moment later). failed_in names the phase a group's error came from (describe_groups, fetch_offsets, list_offsets, first_records): nothing of it is computed from the other phases, and the error the read raises says it too ("2 of 6 failed in fetch_offsets: g0, g2"). A coordinator that timed out on a page is not asked again in later pages of the call: its groups fail with TIMEOUT saying so, rather than each page waiting the whole timeout. observe needs every partition: not with summary or iterate.
---
---```lua
---for _, g in ipairs(lag()) do print(g.group, g.state, g.total_lag) end
---for _, g in ipairs(lag("orders-processor", {time = true})) do print(g.group, g.max_lag_ms .. " ms behind") end
---for _, p in ipairs(lag("orders-processor", {observe = 2})[1].partitions) do
---  if p.stuck_ms then print(p.topic, p.partition, "stuck at", p.committed) end
---end
---local worst = lag(nil, {only_lagging = true, sort = "lag", top = 1})
---print(worst[1].group, worst[1].partitions[1].topic, worst[1].partitions[1].partition, worst[1].partitions[1].lag)
---for g in lag(nil, {summary = true, iterate = true, match = "^orders"}) do
---  print(g.group, g.total_lag, g.max_lag, g.worst_topic, g.worst_partition)
---end
---```
---@param groups? string|string[]|kadmin.lag.options the groups (default: every consumer and streams group)
---@param options? kadmin.lag.options
---@return kadmin.lag.result[]
function Client:lag(groups, options) end

---Judge one partition's lag over a window of samples with Burrow's rules: OK, WARN, STALL, STOP or REWIND.
---
---Needs no cluster: it judges the samples it is given. samples is one partition's window, oldest first, each {offset=, time=, lag=}: the committed offset, when it was sampled (ms) and the lag then (nil or -1 when unknown); a sample with offset -1 (no commit, as lag() says) is left out. The rules are Burrow's, in its order, and rule names the one that decided:
---
---within_allowed_lag (OK): the current lag is at most allowed_lag; stopped (STOP): no commit for longer than the window spans (without committing: the offset has stood still one and a half times as long as the longest it stood still between its moves in the window), unless a recent end offset is at or below the newest committed offset (the consumer was caught up a moment ago); rewound (REWIND): the offset went back and has not come back up; lag_zero_in_window (OK): the lag was at most allowed_lag somewhere in the window, so the rules below are skipped; window_too_short (OK): the samples span no time; within_usual_pause (OK, without committing): the offset never moved but has not stood still for longer than stopped allows; stalled (STALL, with committing): the offset never moved; recently_caught_up (OK): the lag never decreased, but a recent end offset is at or below the newest committed offset; lag_not_decreasing (WARN): the offset moves but the lag never decreased; lag_decreasing (OK): otherwise. no_samples and lag_unknown (OK) say there was nothing to judge.
---
---Samples are not commits: without committing, the last commit is when the offset was first seen at its newest value, and a consumer whose offset stands still reads STOP once it has stood still half as long again as it did between its moves (from runs a minute apart and moving each run: at the second run it did not). committing=true says each sample stands for a commit (a live member owns the partition and commits, moving or not), as Burrow sees commits: standing still then reads STALL, and STOP is Burrow's own rule. lag_status also uses what its state store remembers of the offset from before the window. Samples are used in the order given; a time earlier than the sample before it (a clock stepped back) counts as that sample's time, and a now before the newest sample as the newest sample's time. docs/decisions.md ("Lag verdicts") says why.
---
---```lua
---local samples = {
---  {offset = 100, time = 0, lag = 50}, {offset = 200, time = 60000, lag = 60}, {offset = 300, time = 120000, lag = 80},
---  {offset = 300, time = 180000, lag = 90}, {offset = 300, time = 240000, lag = 95}, {offset = 300, time = 300000, lag = 99},
---}
---local v = lag_evaluate(samples, {now = 300000})
---print(v.status, v.rule)
---print(lag_evaluate(samples, {now = 300000, committing = true}).status)
---print(lag_evaluate(samples, {now = 300000, end_offsets = {300, 399}}).status)
---return v.status == "STOP"
---```
---@param samples kadmin.lag_evaluate.samples[] one partition's window of samples, oldest first
---@param options? kadmin.lag_evaluate.options
---@return kadmin.lag_evaluate.result
function Client:lag_evaluate(samples, options) end

---Consumer lag judged over time: Burrow's verdicts (OK, WARN, STALL, STOP, REWIND) from samples kept between runs.
---
---Each call samples every partition's lag now (as lag() does), adds the sample to the state store (--state FILE keeps it between runs; without it the store lives as long as the process: the REPL, a loop) and judges each partition's window of samples with Burrow's rules (see lag_evaluate): OK, WARN (the offset moves but the lag never falls), STALL (the offset never moves and the lag is never zero), STOP (no commit for longer than the window spans, while behind) or REWIND (the offset went back). A group is ERR when any partition is STOP, STALL or REWIND, WARN when any is WARN, else OK; NOTFOUND when it does not exist (its samples are dropped, so a group made again starts afresh).
---
---max_lag and max_lag_ms add thresholds: a group past either is ERR whatever its trend, and reason says which; a group that lost records (deleted before it read them) is ERR under max_lag_ms, since how far behind it is cannot be known. reason also names the worst partition and its rule; worst lists the worst partitions (ERR-making first, then by lag). records_lost, at_risk, reading_remote, remote_only, remote_unknown and odd_timestamps are lag()'s (with time, max_lag_ms leaves out partitions whose first unread record has a negative or future timestamp). A partition's stuck_ms is how long its committed offset has not moved while it lags (from the window), on partitions judged STALL or STOP: nil on the others (a healthy consumer's offset stands still between its commits) and with one sample.
---
---The window is a span of time (--state-window, 45 s by default: Burrow's 10 commits at Java's 5 s auto-commit): a partition's samples taken within it, and the newest one before it, so that from cron (runs further apart than the window) each verdict compares this run with the one before. A partition's window_ms is the time its window covers and complete that over --state-window (at most 1: Burrow's "complete", in time); the group's are its least complete partition's, samples its longest window's. With min_complete, a lagging partition on a part of a window is not judged (rule window_incomplete) and incomplete counts them: the group's status does not speak for them, and reason says so. state_file is true when the samples are kept in a --state file for the next run.
---
---consume_rate and produce_rate are records per second between the oldest and newest samples of the window (summed over the partitions); trend is "falling" (consumed faster than produced), "rising", "steady" or "unknown" (fewer than two samples); eta_seconds is when the lag will be zero at those rates, while it falls.
---
---Samples are kept at least a second apart (Burrow's min-distance: one taken sooner after the newest is merged into it, which keeps its time, and the partition is judged as of it), and at most --state-samples of them a window (a fast loop's window is thinned, not shortened). A partition whose end offset went back (the topic was deleted and made again) or whose samples are newer than now (the clock went back) starts a new window and says so in reset. A partition without a commit is not judged (Burrow sees only commits): OK, rule "no_commit". Changes nothing in the cluster.
---
---At scale, as lag: match, exclude and states choose the groups right after listing; the groups are read a page at a time, each page recorded and judged while the next is read, and the --state file is written once, behind the run. max_lag is the most a partition lags. summary=true leaves out worst and partitions and names the worst partition in worst_topic and worst_partition: one small row per group. iterate=true returns an iterator (for g in lag_status(nil, {summary = true, iterate = true}) do ... end); the file is written once the loop has gone through every row. A group whose read failed (error, failed_in names the phase) is ERR with the error as its reason and is not sampled: nothing is judged from half of it.
---
---```lua
---local s = lag_status("orders-processor", {max_lag = 100000})
---print(s[1].group, s[1].status, s[1].trend, s[1].reason)
---for _, g in ipairs(lag_status()) do
---  if g.status ~= "OK" then print(g.group, g.status, g.reason) end
---end
---for g in lag_status(nil, {summary = true, iterate = true}) do
---  if g.status ~= "OK" then print(g.group, g.status, g.total_lag, g.max_lag, g.worst_topic, g.worst_partition) end
---end
---```
---@param groups? string|string[]|kadmin.lag_status.options the groups (default: every consumer and streams group)
---@param options? kadmin.lag_status.options
---@return kadmin.lag_status.result[]
function Client:lag_status(groups, options) end

---List consumer groups (and share/streams groups), sorted by name.
---
---states keeps groups in those states (Stable, Empty, PreparingRebalance, CompletingRebalance, Dead, Assigning, Reconciling, NotReady); types keeps groups of those types (classic, consumer for KIP-848 groups, share, streams). Names are case-insensitive: "stable" is "Stable".
---
---type is "classic" on brokers older than Kafka 3.8, which do not report it. coordinator is the id of the broker coordinating the group.
---
---```lua
---for _, g in ipairs(list_groups{states = {"stable", "empty"}}) do print(g.group, g.state, g.type) end
---```
---@param options? kadmin.list_groups.options
---@return kadmin.list_groups.result[]
function Client:list_groups(options) end

---Alias of `list_groups`.
---
---List consumer groups (and share/streams groups), sorted by name.
---
---states keeps groups in those states (Stable, Empty, PreparingRebalance, CompletingRebalance, Dead, Assigning, Reconciling, NotReady); types keeps groups of those types (classic, consumer for KIP-848 groups, share, streams). Names are case-insensitive: "stable" is "Stable".
---
---type is "classic" on brokers older than Kafka 3.8, which do not report it. coordinator is the id of the broker coordinating the group.
---
---```lua
---for _, g in ipairs(list_groups{states = {"stable", "empty"}}) do print(g.group, g.state, g.type) end
---```
---@param options? kadmin.list_groups.options
---@return kadmin.list_groups.result[]
function Client:list_consumer_groups(options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Remove members from a group (LeaveGroup on their behalf), or all of them.
---
---members is an array of {instance_id=} (static members, KIP-345) and/or {member_id=} (dynamic members, as describe_groups shows them; Kafka 2.6+), or one such record. Without members, every current member is removed, each by its instance_id when it has one and by its member_id otherwise, as the Java Admin's removeMembersFromConsumerGroup does; a group without members gives an empty result.
---
---A removed member's consumer, if it is still running, rejoins at once with a new member_id: this is for members that are gone but not yet expired (a crashed consumer, a static member within session.timeout.ms), or to force a rebalance. A member that is not in the group fails with UNKNOWN_MEMBER_ID (the others are still removed: see err.results, or pass {partial=true}); a group that does not exist fails with GROUP_ID_NOT_FOUND.
---
---Under --dry-run nothing changes: the group and each member are checked to exist. Results are sorted by instance_id (static members first), then member_id.
---
---```lua
----- orders-processor has one live member; remove it (it rejoins: the demo consumer is still running).
---local d = describe_groups("orders-processor")[1]
---for _, r in ipairs(remove_group_members("orders-processor", {{member_id = d.members[1].member_id}})) do
---  print(r.group, r.member_id, r.error)
---end
---```
---@param group string the group
---@param members? table|kadmin.remove_group_members.options the members to remove (default: every current member)
---@param options? kadmin.remove_group_members.options
---@return kadmin.remove_group_members.result[]
function Client:remove_group_members(group, members, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Reset a group's offsets: to earliest, latest, an offset, a shift, a time, another group's, a file's.
---
---to is one of:
---
---  "earliest": the log start offset; "latest": the end (high watermark);
---
---  "current": the committed offset (the end where nothing is committed, as kafka-consumer-groups does);
---
---  {offset=N}: offset N on every partition; {shift=N}: the committed offset moved by N (negative goes back; a partition without a commit fails);
---
---  {timestamp=ms}: the first offset whose record is at or after ms (milliseconds since the epoch); the end where no record is that recent;
---
---  {datetime="2026-11-30T10:00:00Z"}: the same for an RFC 3339 time (the zone is required);
---
---  {duration="-1h"}: the same for now minus a duration, in Go's syntax ("-1h30m", "90m") or ISO-8601's ("PT1H", "P1DT2H"); the sign is optional and the time is always in the past, as kafka-consumer-groups --by-duration;
---
---  {group="other-group"}: the other group's committed offsets;
---
---  {file="offsets.csv"}: a CSV of topic,partition,offset lines (kafka-consumer-groups --export output; an optional header line, # comments). A relative path is relative to the current directory.
---
---topics is a topic name, or an array of names (all their partitions) and/or {topic=, partition=} records. Without topics: the partitions in the other group or the file for {group=} and {file=}, else the partitions the group has committed offsets for. Every partition in scope needs a target: one missing from the file or the other group fails with NOT_FOUND.
---
---Every target is clamped to the partition's [earliest, latest] (clamped=true says it was). current is the committed offset before the reset (-1 where none); target is -1 where none could be worked out (see the row's error).
---
---The plan is worked out completely before anything changes; if any row has no target, nothing is committed and the call raises that row's error (with partial=true it returns the plan instead, the failed rows carrying their error). Otherwise the targets are committed (creating the group if it does not exist) and each row carries its commit's error. dry_run=true (or --dry-run, kafka.dry_run(true)) returns the plan and commits nothing.
---
---A group with live members is refused with NON_EMPTY_GROUP before anything is worked out (under dry-run too): Kafka rejects admin commits to it (UNKNOWN_MEMBER_ID), and kafka-consumer-groups refuses as well. force=true removes the members first (as remove_group_members(group) does), waits until the group is empty, then commits. It is meant for members whose consumers are gone but not yet expired (crashed consumers, static members within session.timeout.ms). Consumers still running learn of their removal at their next heartbeat, their commits under the old member id are refused, and they rejoin and resume from the reset offsets, dropping whatever they were processing; one that rejoins before the commit makes the call fail (TIMEOUT waiting for the group to empty, or UNKNOWN_MEMBER_ID on the commit). Stopping the consumers first remains the safe way.
---
---A streams group (a Kafka Streams application, KIP-1071) is reset the same way once the application's instances are stopped, as kafka-streams-groups.sh --reset-offsets requires; force cannot remove its members (Kafka has no admin request for that). Its state stores are not reset with it: kafka-streams-groups.sh --execute also deletes the application's internal topics, which here is delete_topics' work (the topics are in describe_streams_groups), and the instances' local state is theirs (KafkaStreams#cleanUp).
---
---```lua
----- billing is empty: rewind it on payments by 5 records, then look at the plan for "earliest" without committing.
---for _, r in ipairs(reset_offsets{group = "billing", topics = "payments", to = {shift = -5}}) do
---  print(r.topic, r.partition, r.current, "->", r.target, r.clamped and "(clamped)" or "")
---end
---local plan = reset_offsets{group = "billing", to = "earliest", dry_run = true}
---print(#plan, plan[1].target)
----- Copy billing's offsets to a new group.
---reset_offsets{group = "billing-replay", to = {group = "billing"}}
---print(fetch_offsets("billing-replay")[1].offset)
---```
---@param args kadmin.reset_offsets.args
---@return kadmin.reset_offsets.result[]
function Client:reset_offsets(args) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Elect partition leaders: move leadership back to the preferred replica, or (unclean) to any live replica.
---
---topics (a name or array: all their partitions), partitions ({{topic=, partition=}...}) or all=true (every partition in the cluster) say where; type is "preferred" (the default) or "unclean".
---
---A partition that already has the leader the election would pick comes back with not_needed=true: that is not a failure. leader is the partition's leader afterwards. A topic that does not exist gets a row with partition -1 and UNKNOWN_TOPIC_OR_PARTITION.
---
---Declared destructive because type="unclean" can elect an out-of-sync replica and lose committed records; the REPL asks before any election unless --yes. Kafka has no validate-only election: under --dry-run nothing is elected and each partition's current and preferred leader is planned.
---
---```lua
---for _, r in ipairs(elect_leaders{topics = "orders"}) do print(r.topic, r.partition, r.leader, r.not_needed) end
---```
---@param args kadmin.elect_leaders.args
---@return kadmin.elect_leaders.result[]
function Client:elect_leaders(args) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Move replicas between log directories of their brokers (JBOD).
---
---moves is one move or an array of moves {topic=, partition=, broker=, dir=}: broker moves its replica of topic[partition] into dir, an absolute path among its log.dirs. The broker copies in the background; describe_log_dirs shows the copy as is_future until it takes over.
---
---Declared destructive: it moves data and loads the broker's disks. Kafka has no validate-only mode: under --dry-run each move is checked (the broker exists and has that dir) and nothing moves.
---
---```lua
---local d = describe_log_dirs{brokers = 0, topics = "orders"}[1]
---alter_replica_log_dirs{{topic = "orders", partition = 0, broker = 0, dir = d.dir}}
---```
---@param moves kadmin.alter_replica_log_dirs.moves|kadmin.alter_replica_log_dirs.moves[] the replicas to move
---@param options? kadmin.alter_replica_log_dirs.options
---@return kadmin.alter_replica_log_dirs.result[]
function Client:alter_replica_log_dirs(moves, options) end

---Bytes on disk per broker (or per log dir): replicas, leaders, and the volumes' size and free space.
---
---From describe_log_dirs and the metadata. bytes sums the replicas on the broker (or in the dir), leader_bytes those it leads; replicas and leaders count them; dirs is the broker's log dirs; total_bytes and usable_bytes are the volumes' size and free space summed over its dirs (-1 when the broker does not say: Kafka before 3.3). rack is the broker's rack ("" for none).
---
---Every broker is a row, one that holds nothing included. A broker that cannot be asked (or an offline log dir) gets its error, bytes -1 and, per broker, the replicas and leaders the metadata gives it; the call then raises unless {partial=true}. per="dir" gives a row per log dir, sorted by broker then dir.
---
---```lua
---for _, b in ipairs(broker_sizes()) do print(b.broker, b.rack, b.replicas, b.leaders, b.bytes) end
---return #broker_sizes(nil, {per = "dir"}) >= 3
---```
---@param topics? string|string[]|kadmin.broker_sizes.options count only these topics' replicas (every topic when left out)
---@param options? kadmin.broker_sizes.options
---@return kadmin.broker_sizes.result[]
function Client:broker_sizes(topics, options) end

---Describe brokers' log directories and the replicas in them: a row per broker and dir.
---
---brokers (an id or array of ids) defaults to every broker, topics (a name or array: all their partitions) to every partition. Rows are sorted by broker then dir, partitions by topic then partition.
---
---size is in bytes; offset_lag is how far a replica is behind its log end (for a future replica: behind the replica it replaces); is_future marks a replica being moved into this dir by alter_replica_log_dirs. total_bytes and usable_bytes are -1 from brokers older than Kafka 3.3.
---
---A broker that fails (or is not in the cluster: BROKER_NOT_AVAILABLE) gets a row with dir "" and its error; an offline dir (KAFKA_STORAGE_ERROR) a row with its error.
---
---```lua
---for _, d in ipairs(describe_log_dirs{topics = "orders"}) do print(d.broker, d.dir, #d.partitions) end
---```
---@param query? kadmin.describe_log_dirs.query|kadmin.describe_log_dirs.options which brokers and topics (every one when left out)
---@param options? kadmin.describe_log_dirs.options
---@return kadmin.describe_log_dirs.result[]
function Client:describe_log_dirs(query, options) end

---Tiered storage (KIP-405) per topic: what is only in remote storage, what waits to be copied, local against total size, and the retention horizons.
---
---A row per topic, sorted by name: every topic with remote.storage.enable=true when none are named; a named topic without it has remote_storage=false and no partitions.
---
---The horizons: retention_ms and retention_bytes bound the whole log, local and remote: they are what data at risk is judged against (lag's at_risk; at_risk_against says so); local_retention_ms and local_retention_bytes only decide what stays on the brokers' disks (Kafka's -2, "as the whole log", is given as the whole log's value; -1 is no limit).
---
---Per partition, from list_offsets: log_start is the oldest record anywhere, earliest_local the oldest on the brokers' disks, latest_tiered the last offset copied to remote storage (-1: none yet, or Kafka before 3.9), earliest_pending_upload the first not yet copied (Kafka 4.2+, KIP-1023; -1 and pending_upload nil where the broker does not report it). remote_only counts the records only in remote storage (log_start to earliest_local), local_records the rest, pending_upload those not yet copied.
---
---Sizes: local_bytes is the partition's largest replica on disk (describe_log_dirs counts local segments only; -1 when unread); total_bytes estimates the whole log at the local part's mean record size, and pending_upload_bytes the records pending upload the same way (nil when there is no local record to measure by). A topic's remote_only, local_bytes, total_bytes and pending_upload sum its partitions' (nil when one is unknown).
---
---A topic that does not exist, or whose configs or offsets cannot be read, gets its error, and the call raises unless {partial=true}.
---
---```lua
---for _, t in ipairs(describe_tiered_storage()) do
---  print(t.topic, t.remote_only .. " records only in remote storage", t.local_bytes, t.total_bytes)
---end
---local orders = describe_tiered_storage("orders")[1]
---return orders.remote_storage == false and #orders.partitions == 0
---```
---@param topics? string|string[]|kadmin.describe_tiered_storage.options a topic or an array of them (every topic with remote.storage.enable=true when left out)
---@param options? kadmin.describe_tiered_storage.options
---@return kadmin.describe_tiered_storage.result[]
function Client:describe_tiered_storage(topics, options) end

---How evenly partitions, leaders and bytes are spread over the brokers and racks.
---
---A row per broker (one that holds nothing, such as a broker just added, included) with the replicas it holds (partitions), the partitions it leads (leaders) and its bytes on disk; a row per rack summing its brokers (racks is empty when no broker has a rack). spread is how uneven each is: the largest broker's over the mean, in percent, to one decimal: 100 is perfectly even, 150 a broker with half as much again as the mean (the figure kafka-ui and cruise-control call skew). rack_spread is the same over racks.
---
---partitions and leaders come from the metadata (the assignment), bytes from describe_log_dirs. A broker whose log dirs cannot be read has bytes -1 and its error, and is left out of bytes_pct. With topics, only their partitions count: the skew of one topic, or of a set of topics.
---
---```lua
---local s = skew()
---for _, b in ipairs(s.brokers) do print(b.broker, b.partitions, b.leaders, b.bytes) end
---print("leaders spread", s.spread.leaders_pct .. "%")
---return s.spread.partitions_pct >= 100
---```
---@param topics? string|string[] only these topics (the whole cluster when left out)
---@return kadmin.skew.result
function Client:skew(topics) end

---Bytes on disk per topic (or per partition), every replica counted and the leaders' apart.
---
---From describe_log_dirs (every broker's replicas and their sizes) and the metadata (who leads each partition). bytes sums every replica, so a topic with replication factor 3 counts three times: the disk it takes; leader_bytes sums the leaders' replicas only: the data once. replicas counts the replicas measured, leaders the partitions whose leader's replica was measured (fewer than partitions when a partition has no leader), largest_replica_bytes is the biggest single replica.
---
---Rows per topic are sorted by bytes, largest first, then by name; per="partition" gives a row per partition with its partition and leader (-1: none), sorted by topic and partition. A replica being moved between log dirs of its broker (is_future in describe_log_dirs) counts in bytes but not as a replica.
---
---When a broker or a log dir cannot be read the call fails, naming it, since the sums would be short: broker_sizes shows every broker's state. Internal topics (__consumer_offsets) are included when no topics are named.
---
---For a topic in tiered storage (remote.storage.enable=true) the bytes are the local segments only, what describe_log_dirs counts: describe_tiered_storage gives the local against the whole log's (estimated) and what is only in remote storage.
---
---```lua
---for _, t in ipairs(topic_sizes()) do print(t.topic, t.bytes, t.leader_bytes) end
---local p = topic_sizes("orders", {per = "partition"})
---return #p == 6 and p[1].partition == 0
---```
---@param topics? string|string[]|kadmin.topic_sizes.options a topic or an array of them (every topic when left out)
---@param options? kadmin.topic_sizes.options
---@return kadmin.topic_sizes.result[]
function Client:topic_sizes(topics, options) end

---List an offset of every partition of topics: earliest, latest, at a time, ...
---
---topics is a topic name or an array of names. at is one of:
---
---  "latest" (default): the high watermark, the offset the next record will get;
---
---  "earliest": the log start offset;
---
---  "committed": the last stable offset, the end a read_committed consumer sees;
---
---  "max_timestamp": the record with the largest timestamp (and that timestamp);
---
---  "earliest_local": the first offset still on the brokers' disks (tiered storage);
---
---  "latest_tiered": the last offset copied to remote storage (-1 when nothing is tiered);
---
---  "earliest_pending_upload": the first offset not yet copied to remote storage (KIP-1023, Kafka 4.2+; -1 when the topic is not tiered; older brokers answer UNSUPPORTED_VERSION);
---
---  {timestamp=ms}: the first offset whose record timestamp is at or after ms (milliseconds since the epoch, as kafka.now() gives).
---
---For {timestamp=ms}, a partition with no record at or after the time answers its end offset (the high watermark) with timestamp=-1: the position a consumer seeking to that time starts from, as kafka-consumer-groups --reset-offsets --to-datetime does (Kafka's raw answer, and kafka-get-offsets' output, is -1).
---
---timestamp is -1 unless the query was by time or max_timestamp; leader_epoch is -1 when unknown. Results are sorted by topic then partition.
---
---topics may instead give each partition its own time, {orders = {[0] = ms, [3] = ms}, payments = {[1] = ms}}: those partitions only, each listed at its time (as {timestamp=ms} does for one), in one request per leader broker; at is then not given.
---
---A topic that does not exist fails with UNKNOWN_TOPIC_OR_PARTITION (its result has partition=-1; the other topics are still listed: see err.results, or pass {partial=true}, alone or with a timestamp: {timestamp=ms, partial=true}). Partitions whose leader is moving (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER) are asked again until the call's deadline.
---
---At scale: topics nil lists every partition of the cluster (internal topics included); iterate=true returns an iterator over the rows instead (for o in list_offsets(nil, "latest", {iterate = true}) do ... end), the partitions described and listed a page of about 20,000 at a time, each page within the call's timeout, so no table of every partition is held. match and exclude (RE2 on the topic name, unanchored) leave topics out before their partitions are listed.
---
---```lua
---for _, o in ipairs(list_offsets("payments", "earliest")) do print(o.partition, o.offset) end
---local hour_ago = kafka.now() - 3600 * 1000
---local at = list_offsets({"orders"}, {timestamp = hour_ago})
---print(#at, at[1].offset)
---local each = list_offsets{orders = {[0] = hour_ago, [1] = kafka.now() - 60 * 1000}}
---print(each[1].partition, each[1].offset, each[2].partition, each[2].offset)
---```
---@param topics? string|string[]|kadmin.list_offsets.options every partition of these topics (every topic when nil), or {topic = {[partition] = ms}}: each partition at its own time
---@param at? "earliest"|"latest"|"max_timestamp"|"earliest_local"|"latest_tiered"|"earliest_pending_upload"|"committed"|kadmin.list_offsets.at|kadmin.list_offsets.options which offset (default "latest"; see below)
---@param options? kadmin.list_offsets.options
---@return kadmin.list_offsets.result[]
function Client:list_offsets(topics, at, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Set and remove client quotas.
---
---entries is one entry or an array of entries {entity={user=, client_id=, ip=}, set={key=number}, remove={"key"}}. An entity name "<default>" (or "" or kafka.json.null) means the type's default entity: {user="<default>"} is the quota every user without its own gets.
---
---Removing a quota an entity does not have is not an error. validate_only=true (and --dry-run) asks the broker to check without changing anything.
---
---```lua
---alter_client_quotas{
---  {entity = {user = "alice", client_id = "reporting"}, set = {consumer_byte_rate = 2097152}},
---  {entity = {user = "<default>"}, set = {producer_byte_rate = 1048576}},
---}
---```
---@param entries kadmin.alter_client_quotas.entries|kadmin.alter_client_quotas.entries[] the entities and their quota changes
---@param options? kadmin.alter_client_quotas.options
---@return kadmin.alter_client_quotas.result[]
function Client:alter_client_quotas(entries, options) end

---Describe client quotas (all of them without entities).
---
---entities is one entity filter or an array of them; each is {user=, client_id=, ip=} where a name matches that entity exactly, "<default>" (or "" or kafka.json.null) matches the type's default entity, and true matches every named entity of the type. A type left out is not constrained, unless strict=true (then entities with other types are left out).
---
---Results cover the entities matching any filter, sorted by entity; an entity's default parts read "<default>". Quota values are numbers (producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate, connection_creation_rate, ...).
---
---```lua
---alter_client_quotas{{entity = {user = "alice"}, set = {producer_byte_rate = 1048576}}}
---for _, q in ipairs(describe_client_quotas{user = "alice"}) do print(q.entity.user, q.quotas.producer_byte_rate) end
---```
---@param entities? kadmin.describe_client_quotas.entities|kadmin.describe_client_quotas.entities[]|kadmin.describe_client_quotas.options the entities to describe (every one when left out)
---@param options? kadmin.describe_client_quotas.options
---@return kadmin.describe_client_quotas.result[]
function Client:describe_client_quotas(entities, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Move partitions to new replicas (data is copied to the new brokers).
---
---A row is {topic=, partition=, replicas={broker ids}}; the first replica is the preferred leader. A plan from plan_reassignment (or its partitions) is accepted as is: its rows' target is the new replicas.
---
---The call returns once Kafka has accepted the reassignments; the data moves in the background (see list_partition_reassignments and wait_reassignments). Under --dry-run nothing moves: each partition is checked to exist and each broker to be in the cluster.
---
---throttle=BYTES_PER_SEC sets the replication throttle first, as kafka-reassign-partitions --throttle does: leader.replication.throttled.rate and follower.replication.throttled.rate on every broker a moving replica leaves or joins, and on each moving topic leader.replication.throttled.replicas (partition:broker of the replicas copied from) and follower.replication.throttled.replicas (the new replicas), reassignments already in progress included. If the throttle cannot be set nothing is reassigned. Calling again with another throttle changes it. wait_reassignments removes the throttles once the moves are done; until then replication of those replicas stays limited.
---
---```lua
---local plan = plan_reassignment{topics = {"orders"}, brokers = {0, 1, 2}}
---if plan.moves > 0 then alter_partition_reassignments(plan, {throttle = 50 * 1024 * 1024}) end
---wait_reassignments{topics = {"orders"}}
---```
---@param rows kadmin.alter_partition_reassignments.rows|kadmin.alter_partition_reassignments.rows[] the partitions to move and their new replicas, or a plan from plan_reassignment
---@param options? kadmin.alter_partition_reassignments.options
---@return kadmin.alter_partition_reassignments.result[]
function Client:alter_partition_reassignments(rows, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Cancel reassignments in progress: partitions go back to their original replicas.
---
---A row is {topic=, partition=}. A partition that is not being reassigned fails with NO_REASSIGNMENT_IN_PROGRESS.
---
---```lua
---local ok, err = pcall(cancel_partition_reassignments, {{topic = "orders", partition = 0}})
---print(ok or err.code)
---```
---@param rows kadmin.cancel_partition_reassignments.rows|kadmin.cancel_partition_reassignments.rows[] the partitions whose reassignment to cancel
---@param options? kadmin.cancel_partition_reassignments.options
---@return kadmin.cancel_partition_reassignments.result[]
function Client:cancel_partition_reassignments(rows, options) end

---List the partition reassignments in progress.
---
---topics (a name or an array) keeps only those topics; without it every reassignment in the cluster is listed. replicas is the union of the old and new replicas while data moves.
---
---```lua
---for _, r in ipairs(list_partition_reassignments()) do print(r.topic, r.partition, #r.adding_replicas) end
---```
---@param topics? string|string[] only these topics; every reassignment in the cluster when left out
---@return kadmin.list_partition_reassignments.result[]
function Client:list_partition_reassignments(topics) end

---Plan a reassignment: balanced by count or bytes, rack-aware, moving the fewest replicas; or a drain, a demote, a leader balance, a replication factor change.
---
---Spreads the topics' replicas and preferred leaders (first replicas) evenly over brokers (default: every broker), keeping each partition's replication factor and every replica that can stay: among balanced assignments it picks one with (nearly) the fewest replica moves. No two replicas of a partition share a rack when the brokers span enough racks (else at most an even share per rack); racks come from the cluster's broker racks unless given as {[broker_id]="rack"}; a broker without a rack counts as its own.
---
---by = "bytes" then evens out disk usage (each broker's log dirs' used bytes over their capacity, from DescribeLogDirs; Kafka 3.3+, else the replicas' bytes), moving or swapping the replicas whose sizes fit best, never a broker above max_disk_usage; min_partition_bytes and partition_limit limit the moves as topicmappr's size threshold and per-broker limit do. A plan whose moves would not narrow the usage spread moves nothing and says so in notes.
---
---replication_factor = N raises or lowers every partition to N replicas: new ones go last to the least loaded brokers of racks the partition does not use; a decrease removes a replica sharing a rack, else the most loaded broker's, never the leader. leaders_only = true moves no data: replicas are reordered so that in-sync replicas lead evenly.
---
---drain = {broker ids} (topics default to every topic) plans a decommission in two steps: leadership rows reorder the partitions the brokers lead so they come last, elect lists the partitions whose preferred leader to elect then; partitions move their replicas to the least loaded brokers left, within the rack rule. With leaders_only it is a demote: the reorders alone, as partitions.
---
---moves counts replicas copied to a broker that did not hold them, bytes what they copy; partitions lists only the partitions that change (replicas or preferred leader): passed straight to alter_partition_reassignments, the plan reaches its end state. brokers reports every broker's replicas, leaders and bytes before and after; steps says what carrying it out does, notes what the plan could not do or did not know. Nothing changes on the cluster. A replication factor larger than the broker count fails with INVALID_REPLICATION_FACTOR.
---
---```lua
---local plan = plan_reassignment{topics = {"orders", "payments"}, by = "bytes"}
---print(plan.moves .. " replicas move")
---for _, p in ipairs(plan.partitions) do print(p.topic, p.partition, table.concat(p.target, ",")) end
---local demote = plan_reassignment{drain = {2}, leaders_only = true} -- leadership off broker 2, no data moves
---for _, s in ipairs(demote.steps) do print(s) end
---```
---@param args kadmin.plan_reassignment.args
---@return kadmin.plan_reassignment.result
function Client:plan_reassignment(args) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Move partitions to a plan's replicas, paced under caps, throttled, resumable and undoable.
---
---Carries a plan out in batches: at most max_moves_per_broker moves in flight that a broker takes part in (as a broker a replica joins or leaves), at most max_moves partitions moving in the cluster (every reassignment in progress counts, this run's or not), and leadership-only changes (the same replicas in another order) max_leader_moves at a time. The next moves are sent as earlier ones finish, smallest first (order = "small_first"; "large_first", "urgent_first": under-replicated partitions first, or "plan": as listed); a move to a broker that is down waits for it. Once a partition is moved its preferred leader is elected (elect_leaders = false leaves leadership as the move leaves it).
---
---The plan is checked first and refused whole, nothing sent, when a partition or broker is unknown, a broker a replica joins is down or fenced (BROKER_NOT_AVAILABLE), a partition's replicas are not those the plan was made against (STALE_PLAN: plan again), or a reassignment to another target is in progress on it (REASSIGNMENT_IN_PROGRESS); one already moving to its target is adopted and not sent again.
---
---throttle = BYTES_PER_SEC sets leader/follower.replication.throttled.rate on every broker a move touches and the throttled-replica lists on each moving topic while the run goes on, and lifts them when nothing of it moves any more. A function instead is called at each poll with the status and returns the rate, a table {[broker_id] = rate, all = rate}, or nil to keep it: the throttle can be raised or lowered while the run goes on. A rate set by hand on a broker (kafka-configs) is not set back unless the function changes it.
---
---Progress goes to stderr (the terminal's line, or a log line every 10 s): done, moving and queued partitions, bytes copied (the log dirs of the joining replicas) against bytes to copy, rate and ETA; a move whose bytes have not grown for stalled_after is flagged stalled by name and stays in flight. on_progress(status) gets the same as a table {run=, partitions=, done=, moving=, queued=, failed=, batches=, total_bytes=, copied_bytes=, rate_bytes=, eta_seconds=, stalled={...}, waiting_for_brokers={...}}.
---
---With --audit-log the run is written ahead: its intent line holds the plan and every partition's replicas before, each batch is an alter_partition_reassignments marked with the run's id, and the outcome line is written when nothing is left to move. After Ctrl-C, kill -9 or a lost connection, resume = true (or the run's id) reads the log and the cluster and finishes the run's own plan: nothing done or in flight is sent again. Ctrl-C stops sending, asks whether to cancel the moves in flight (with --yes, or with no terminal, they go on), and raises CANCELED naming the run to resume. kadmin-lua undo moves what the run completed back to where it was, through the same caps.
---
---Under --dry-run nothing is sent: the result says the batch each move would be in (if every batch finished before the next) and its bytes. The result is a row per partition: state "done", "moving", "queued" or "failed" (with its error). docs/moving-data.md tells more.
---
---```lua
---local plan = plan_reassignment{topics = {"orders"}}
---local rows = reassign(plan, {max_moves_per_broker = 2, throttle = 50 * 1024 * 1024})
---print(#rows .. " partitions moved")
---```
---@param plan? kadmin.reassign.plan[]|kadmin.reassign.options a plan from plan_reassignment, or rows {topic=, partition=, replicas=} (nil with resume: the run's own plan)
---@param options? kadmin.reassign.options
---@return kadmin.reassign.result[]
function Client:reassign(plan, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Wait until no partition reassignment is in progress, then remove the replication throttles.
---
---Polls list_partition_reassignments (every interval_ms, default 1000) until none is in progress (of topics, when given) and returns the partitions that finished meanwhile, with their final replicas. timeout is milliseconds or a duration string like "30m" (default 30m); when it passes first the call raises TIMEOUT naming the partitions still moving.
---
---While it waits, progress goes to stderr: a kafka.log-style line every 10 s when stderr is not a terminal (a cron log shows a move of hours going on), a line kept up to date in place on a terminal. The line says how far the data has copied, in bytes and percent, where the log dirs show it: each replica being added against its source (the largest replica not being added), and each future replica (a move between log dirs) against the one it replaces: "2 partition(s) moving: orders[0] orders[3]; 5 finished; 1.2 GiB of 3.0 GiB copied (40.0%)".
---
---Then it removes the replication throttles, as kafka-reassign-partitions --verify does: leader/follower.replication.throttled.replicas on the topics waited for (every topic when topics is not given) and the throttle rates (leader/follower.replication.throttled.rate, replica.alter.log.dirs.io.max.bytes.per.second) on every broker, unless another reassignment is still in progress in the cluster (then the rates stay, and a line says so). Only configs set on the topic or broker itself are removed, and a line on stderr names them; keep_throttles=true leaves them; without the right to read configs a WARN line says they were not looked for. Under --dry-run it waits and only says what it would remove.
---
---```lua
---local done = wait_reassignments{timeout = "10m"}
---print(#done .. " partitions finished moving")
---```
---@param options? kadmin.wait_reassignments.options
---@return kadmin.wait_reassignments.result[]
function Client:wait_reassignments(options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete a partition's records below an offset (move its log start offset).
---
---Each entry deletes the records of one partition below offset; offset=-1 means below the high watermark (everything written so far), as in Kafka. A single entry table is accepted without the outer array.
---
---low_watermark is the partition's new log start offset. An offset above the high watermark fails with OFFSET_OUT_OF_RANGE; a missing topic or partition with UNKNOWN_TOPIC_OR_PARTITION. Results are sorted by topic then partition; if any partition fails the call raises after deleting the others (err.results).
---
---Deleting below an offset is idempotent, so retriable errors (even REQUEST_TIMED_OUT) are retried until the deadline; with offset=-1 a retry deletes up to the high watermark of that moment.
---
---Kafka has no validate-only delete: under --dry-run each partition is checked to exist and its offset to be at most the high watermark, the plan says how many records would go, low_watermark is the one it would get, and nothing is deleted. An offset at or below the current low watermark deletes nothing (Kafka accepts it).
---
---In the REPL this asks for confirmation unless --yes.
---
---```lua
---create_topics({{name = "scratch-records", partitions = 1}}, {if_not_exists = true})
---local r = delete_records{{topic = "scratch-records", partition = 0, offset = -1}}
---print(r[1].topic, r[1].partition, r[1].low_watermark)
---```
---@param deletions kadmin.delete_records.deletions|kadmin.delete_records.deletions[] each partition and the offset below which its records go
---@param options? kadmin.delete_records.options
---@return kadmin.delete_records.result[]
function Client:delete_records(deletions, options) end

---Read a few records of one partition, without a consumer group (read-only).
---
---from is an offset (an integer), "earliest" (the log start), "latest" (the last count records before the end: offsets high watermark - count up to it, as kcat -o -N does; fewer rows where transaction markers or compaction left gaps), {timestamp=ms} (the first record at or after the time; none when there is none) or {group="G"} (that group's committed offset on the partition: the next record it would read).
---
---Each row has offset, timestamp (ms) and timestamp_type (CreateTime or LogAppendTime), key (nil for a null key), headers ({{key=, value=}...}), size (bytes of key and value) and, with values=true, value (nil for a null value, a tombstone).
---
---format says how keys, header values and values are shown: "text" (default) is the bytes as text with what could drive a terminal escaped (controls as \x1b, bytes that are not UTF-8 as \xff) in every output, JSON too; "hex" is lowercase hex, the exact bytes; "json" parses the value as JSON into a Lua value (keys and headers stay text); a value that is not JSON keeps its text and the row gets an error (INVALID_JSON).
---
---Bounded: count (default 10, at most 10,000) and max_bytes (default 1 MiB) of what the rows hold; fewer rows come back at the end of the partition or when the next record would pass max_bytes. A record that alone holds more than max_bytes is a row with its offset, timestamp and size and an error RECORD_TOO_LARGE instead of key, headers and value; rows go on after it. Decompression is bounded too, whatever --max-memory says: a compressed record batch that would decompress to more than 64 MiB (a decompression bomb: 1 MB of gzip can hold 1 GB) is not read, and is one row at its first offset with timestamp -1 and an error DECOMPRESS_LIMIT naming the partition and the batch's offsets; rows go on after the batch.
---
---decode decodes keys and values written for a Schema Registry: "auto" reads each key and value framed for the registry (a magic byte 0, the 4-byte schema id; for Protobuf the message indexes) with its schema (fetched once per id and run) and leaves the rest as format says; "avro", "protobuf" or "json" (JSON Schema) require that format; {key=, value=} decides per side (a string decode is for both). value_schema={file=} (key_schema too) reads every record with a local schema file (.avsc, .proto, .json), no registry needed; the records are the bare encoding unless framed=true. Asking to decode values implies values=true.
---
---A decoded value is a table (records and maps as tables, arrays as arrays, a null as kafka.json.null) in the row's value (or key), with the schema id in value_schema_id (key_schema_id) and, where the registry can tell, the subject and version holding that id in value_subject and value_version (key_subject, key_version): the topic name strategy's subject (TOPIC-value, TOPIC-key) when it holds the id, else the one subject that does (its highest version holding the id, soft-deleted versions included); none when several subjects hold the id and none is the topic's, or the registry cannot say (asked once per id and call); Avro unions are their branch's value, enums their symbol, decimal a string with its scale, date "YYYY-MM-DD", timestamps RFC 3339 in UTC, uuid its text; Protobuf fields are named as in the .proto file, enums by name, unset proto3 scalars their zero value, well-known types in their JSON mapping; bytes are shown as format says. A record that cannot be decoded (an unknown schema id, bytes that are not what the framing says, a truncated record, a schema that does not compile, a registry that is down) keeps its bytes as format shows them and gets an error in the row (SCHEMA_NOT_FOUND, SCHEMA_DECODE_FAILED, NOT_SCHEMA_FRAMED, SCHEMA_INVALID, ...); the other rows decode on. A registry that is down, slow or failing is waited for once per call (up to --timeout): the later rows get its error at once.
---
---Read with raw Fetches to the partition's leader (compressed batches, transaction markers skipped; with read_committed, aborted records too): nothing joins a group or commits, and the call changes nothing.
---
---An offset at the end gives no rows; one below the log start or past the end fails with OFFSET_OUT_OF_RANGE, a missing topic or partition with UNKNOWN_TOPIC_OR_PARTITION, a group with no commit on the partition with NO_COMMITTED_OFFSET, each naming the partition.
---
---```lua
---for _, r in ipairs(peek("orders", 0, "earliest", {count = 3})) do print(r.offset, r.key, r.size) end
---local last = peek("orders", 0, "latest", {count = 1, values = true})
---print(#last, last[1].value)
---local next_up = peek("orders", 4, {group = "orders-processor"}, {count = 1, values = true, format = "json"})
---print(next_up[1].offset, next_up[1].value.status)
---local stuck = peek("payments", 0, {group = "billing"}, {count = 1, decode = "auto"})
---print(stuck[1].value_schema_id, stuck[1].value_subject, stuck[1].value_version, stuck[1].value.amount)
---```
---@param topic string the topic
---@param partition integer|string its partition
---@param from "earliest"|"latest"|integer|string|kadmin.peek.from where to start (see below)
---@param options? kadmin.peek.options
---@return kadmin.peek.result[]
function Client:peek(topic, partition, from, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Check the cluster end to end: write a record to each partition of a probe topic, read it back, commit; timed.
---
---After KMinion's end-to-end probe. A record goes to each partition of the probe topic (idempotent, acks=all), a consumer of its own reads each back from where the partition ended before, and the offsets are committed to the probe group. Per partition (with broker, its leader): produce_ms (until the write is acknowledged), end_to_end_ms (from the write until the record is read back) and the error of a step that failed; commit_ms times the commit. failures names each failure in words ("kadmin-lua-probe[2] (leader 3): produce: NOT_ENOUGH_REPLICAS: ..."), ok is true when there is none. A failure is in the result, not raised: the probe raises only when it cannot start (the topic is missing, the cluster cannot be reached).
---
---The probe topic, "kadmin-lua-probe", is created on first use with one partition per broker, partition i led by the i-th broker (so each broker is probed as a leader), replication factor min(3, brokers), and cleanup.policy=delete, retention.ms=3600000 (an hour), segment.ms=600000. A topic that is named must exist; every partition of it is probed. The first probe on a client includes connecting to the brokers in its figures; later ones (a loop, the REPL) reuse its producer and consumer.
---
---Its writes are changes like any other, each audited as its own operation: create_topics (once), produce and commit_offsets. Under --dry-run nothing is written: the plan says what would be, and the partitions come back unprobed.
---
---With --metrics-file the figures are written for Prometheus: kadmin_lua_probe_ok{topic}, kadmin_lua_probe_failures{topic}, kadmin_lua_probe_produce_seconds{topic,partition,broker}, kadmin_lua_probe_end_to_end_seconds{topic,partition,broker} and kadmin_lua_probe_commit_seconds{topic,group} (docs/scheduling.md).
---
---```lua
---local p = probe()
---print(p.ok, p.produce_ms_max, p.end_to_end_ms_max, p.commit_ms)
---for _, f in ipairs(p.failures) do print(f) end
---return p.ok and #p.partitions == 3
---```
---@param topic? string|kadmin.probe.options the topic to probe (default "kadmin-lua-probe", created on first use)
---@param options? kadmin.probe.options
---@return kadmin.probe.result
function Client:probe(topic, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Write records (key, value, headers, partition, timestamp) to a topic and say where each landed.
---
---records is one record or an array of them: {key=, value=, headers={name = value, ...}, partition=, timestamp=}; every field is optional (a record with no value is a tombstone for compacted topics). key and value are strings (Lua strings are bytes: binary is fine), or tables with key_schema/value_schema. headers are written sorted by name. partition, when left out, is the partitioner's choice, as the Java producer's: the key's murmur2 hash, or one partition per batch for records without a key. timestamp is milliseconds since the epoch (default: now; the broker's own under message.timestamp.type=LogAppendTime).
---
---A producer of its own is used, with the connection settings of the client: idempotent with acks=all by default, as the Java producer since Kafka 3.0. Each result has the record's index (its place in records), partition, offset (-1 if not written, or with acks "none", where nobody says) and timestamp, sorted by index.
---
---A change like any other: audited (the intent line has each partition's end offset before and each record's key, partition, timestamp, header names, value size and SHA-256, not the value itself; the outcome line each record's partition and offset), refused under --dry-run (the topic and partitions are checked and the plan says what would be written), and the REPL asks first unless --yes. It cannot be undone: records cannot be un-produced, and undo does not delete them (delete_records up to the produced offsets would also delete what others wrote before). The topic must exist (no auto-creation) and an explicit partition must be one of its partitions: otherwise nothing is sent. It needs WRITE on the topic, and for idempotence on brokers before Kafka 2.8 IDEMPOTENT_WRITE on the cluster (idempotent=false does without).
---
---With value_schema={subject=S} (key_schema too) each value is a table (or any value the schema takes) encoded with the subject's latest schema (or version=), framed for the registry as Confluent's serializers frame it (magic byte, schema id, Protobuf message indexes): Avro (decimals as strings or numbers, timestamps as RFC 3339 or numbers, dates as YYYY-MM-DD, unions by the first branch the value fits), Protobuf (fields by name, enums by name or number, well-known types in their JSON form) or JSON Schema (validated, written as JSON). Every record is checked before anything is sent, under --dry-run too: one that does not fit refuses the whole call with INVALID_ARGUMENT naming the record and the field path (record #3: value.total.amount: ...). peek's decoded values are accepted back as they are, but for what peek escapes for the terminal: a bytes field (shown as format says) and a string holding controls or bytes that are not UTF-8 (shown as \x1b, \xff) would be written as that text, so give those as Lua strings of their real bytes. A value left out stays a tombstone.
---
---```lua
---local r = produce("orders", {
---  {key = "order-1", value = '{"total": 42}', headers = {source = "kadmin-lua"}},
---  {value = "ping", partition = 2},
---})
---for _, x in ipairs(r) do print(x.index, x.partition, x.offset) end
----- A table encoded with the registry's schema (the subject's latest), framed as Confluent's serializers do:
---local a = produce("orders", {key = "o-1", value = {order_id = "o-1", customer = "acme", amount_cents = 1250, status = "NEW"}},
---  {value_schema = {subject = "orders-value"}})
---print(a[1].partition, a[1].offset)
---return r[2].partition == 2
---```
---@param topic string the topic to write to (it must exist)
---@param records kadmin.produce.records|kadmin.produce.records[] a record or an array of records
---@param options? kadmin.produce.options
---@return kadmin.produce.result[]
function Client:produce(topic, records, options) end

---Ask the registry whether a schema may be registered under a subject.
---
---The registry checks the schema against the subject's versions as its compatibility level says (BACKWARD: the newest; *_TRANSITIVE: all of them); messages say why not. A subject with no versions accepts any schema. Reads only: nothing changes.
---
---```lua
---local r = check_compatibility("orders-value", {type = "AVRO", schema = [[{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}]]})
---print(r.compatible, #r.messages)
---```
---@param subject string the subject the schema would be registered under
---@param schema string|kadmin.check_compatibility.schema the schema: its text (Avro, the registry's default type), {type="AVRO"|"PROTOBUF"|"JSON", schema=TEXT, references={{name=, subject=, version=}...}}, or {file="x.avsc"|"x.proto"|"x.json"} (the type from the extension)
---@param options? kadmin.check_compatibility.options
---@return kadmin.check_compatibility.result
function Client:check_compatibility(subject, schema, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete one version of a subject: soft or permanent.
---
---As delete_subject, for one version. Undo of a soft delete registers its schema again, if the subject does not hold it.
---
---```lua
---register_schema("scratch-value", [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]])
---local r = delete_schema_version("scratch-value", 1)
---print(r.versions[1])
---```
---@param subject string the subject
---@param version integer|string the version to delete
---@param options? kadmin.delete_schema_version.options
---@return kadmin.delete_schema_version.result
function Client:delete_schema_version(subject, version, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete a subject: soft (its ids stay readable) or permanent.
---
---A soft delete hides the subject's versions; records framed with their ids still decode (the registry keeps them by id). permanent=true deletes them for good, as the registry allows only after a soft delete (done first when needed). versions are the versions deleted.
---
---Declared destructive: the REPL asks first unless --yes. The intent line records every version's schema and id; undo registers a soft-deleted subject's schemas again (the registry gives them their ids back; the version numbers are new). A permanent delete cannot be undone. Under --dry-run nothing is deleted and the plan lists the versions.
---
---```lua
---register_schema("scratch-value", [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]])
---local r = delete_subject("scratch-value")
---print(r.subject, #r.versions)
---```
---@param subject string the subject
---@param options? kadmin.delete_subject.options
---@return kadmin.delete_subject.result
function Client:delete_subject(subject, options) end

---Read one version of a subject: its id, type, schema text and references.
---
---type is AVRO, PROTOBUF or JSON; schema is the text as registered; references name the subjects' versions it imports ({{name=, subject=, version=}...}). A missing subject fails with SUBJECT_NOT_FOUND, a missing version with VERSION_NOT_FOUND.
---
---```lua
---local s = describe_schema("orders-value")
---print(s.id, s.version, s.type)
---```
---@param subject string the subject
---@param version? "latest"|integer|string|kadmin.describe_schema.options a version number, or "latest" (default)
---@param options? kadmin.describe_schema.options
---@return kadmin.describe_schema.result
function Client:describe_schema(subject, version, options) end

---Read the compatibility level of subjects, and the registry's global one.
---
---The first row is the registry's global level (global=true, no subject); then one row per subject: its level, own=true when the subject has a level of its own, false when it inherits the global one.
---
---```lua
---for _, c in ipairs(describe_schema_compatibility{"orders-value"}) do print(c.subject or "(global)", c.level, c.own) end
---```
---@param subjects? string|string[] the subjects (default: none, only the registry's global level)
---@return kadmin.describe_schema_compatibility.result[]
function Client:describe_schema_compatibility(subjects) end

---Read the schema a record's framing names by id, and the subject versions that hold it.
---
---An id the registry does not have fails with SCHEMA_NOT_FOUND.
---
---```lua
---local s = describe_schema_id(describe_schema("orders-value").id)
---print(s.type, s.subjects[1].subject)
---```
---@param id integer|string the schema id (what a record's framing carries)
---@return kadmin.describe_schema_id.result
function Client:describe_schema_id(id) end

---List a subject's versions, ascending.
---
---A subject the registry does not have fails with SUBJECT_NOT_FOUND.
---
---```lua
---for _, v in ipairs(list_schema_versions("orders-value")) do print(v.version) end
---```
---@param subject string the subject
---@param options? kadmin.list_schema_versions.options
---@return kadmin.list_schema_versions.result[]
function Client:list_schema_versions(subject, options) end

---List the Schema Registry's subjects, sorted.
---
---Needs a schema registry (--schema-registry URL, KADMIN_SCHEMA_REGISTRY_URL, a profile's schema_registry, or kafka.connect{schema_registry=}); without one every registry function fails with NO_SCHEMA_REGISTRY.
---
---Soft-deleted subjects are left out unless deleted=true. Registry errors keep the registry's names (SUBJECT_NOT_FOUND, INCOMPATIBLE_SCHEMA, ...); a refused login is AUTH, a registry that is down SCHEMA_REGISTRY_UNAVAILABLE (retried until --timeout), an answer that is not the registry's API SCHEMA_REGISTRY_BAD_RESPONSE.
---
---```lua
---for _, s in ipairs(list_subjects{match = "^orders"}) do print(s.subject) end
---```
---@param options? kadmin.list_subjects.options
---@return kadmin.list_subjects.result[]
function Client:list_subjects(options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Register a schema under a subject and return its id.
---
---Returns the schema's id: a new version's, or the one the subject already holds it as (then nothing changes). The registry refuses a schema its compatibility level does not allow (INCOMPATIBLE_SCHEMA) or cannot parse (INVALID_SCHEMA).
---
---Audited (the intent line names the registry and the schema); undo soft-deletes the version it registered, if it is still the subject's newest. Under --dry-run nothing is registered: the plan says whether the subject holds the schema already and checks its compatibility, and the call returns the existing id, or nil.
---
---```lua
---local id = register_schema("scratch-value", {type = "AVRO", schema = [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]]})
---print(id)
---```
---@param subject string the subject
---@param schema string|kadmin.check_compatibility.schema the schema: its text (Avro, the registry's default type), {type="AVRO"|"PROTOBUF"|"JSON", schema=TEXT, references={{name=, subject=, version=}...}}, or {file="x.avsc"|"x.proto"|"x.json"} (the type from the extension)
---@return integer
function Client:register_schema(subject, schema) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Set a subject's compatibility level, or the registry's global one.
---
---before is the level in force before. Audited; undo sets the level back (or removes the subject's own level when it had none), if it is still the one set. Under --dry-run nothing changes and the plan says the level now.
---
---```lua
---local r = set_schema_compatibility{subject = "orders-value", level = "FULL"}
---print(r.before, r.level)
---```
---@param args kadmin.set_schema_compatibility.args
---@return kadmin.set_schema_compatibility.result
function Client:set_schema_compatibility(args) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Create, change or delete users' SCRAM credentials.
---
---mechanism is "SCRAM-SHA-256" (the default) or "SCRAM-SHA-512"; iterations defaults to 4096 and must be 4096..16384. The password is salted on this side and never printed, logged, put in errors, in --dry-run plans or in the audit log (keys containing "password" are redacted).
---
---Kafka answers per user: a user with several changes gets one result. Deleting a credential the user does not have fails with RESOURCE_NOT_FOUND. Kafka has no validate-only mode here: under --dry-run the arguments are checked and nothing changes.
---
---```lua
---alter_user_scram_credentials{
---  upsert = {{user = "svc-billing", mechanism = "SCRAM-SHA-512", iterations = 8192, password = kafka.env("BILLING_PASSWORD", "example-only")}},
---}
---alter_user_scram_credentials{delete = {{user = "svc-billing", mechanism = "SCRAM-SHA-512"}}}
---```
---@param changes kadmin.alter_user_scram_credentials.changes credentials to upsert, {user=, password=, [mechanism=], [iterations=]}, and to delete, {user=, [mechanism=]}
---@param options? kadmin.alter_user_scram_credentials.options
---@return kadmin.alter_user_scram_credentials.result[]
function Client:alter_user_scram_credentials(changes, options) end

---Describe users' SCRAM credentials: a row per user and mechanism (every user's without users).
---
---users is a user name or an array of names. Rows are sorted by user then mechanism ("SCRAM-SHA-256", "SCRAM-SHA-512"); Kafka never returns passwords or salts.
---
---A named user without any SCRAM credential fails with RESOURCE_NOT_FOUND (the other users are still described: see err.results, or pass {partial=true}).
---
---```lua
---alter_user_scram_credentials{upsert = {{user = "alice", password = kafka.env("ALICE_PASSWORD", "example-only")}}}
---for _, c in ipairs(describe_user_scram_credentials("alice")) do print(c.user, c.mechanism, c.iterations) end
---```
---@param users? string|string[]|kadmin.describe_user_scram_credentials.options a user name or an array of them (every user when left out)
---@param options? kadmin.describe_user_scram_credentials.options
---@return kadmin.describe_user_scram_credentials.result[]
function Client:describe_user_scram_credentials(users, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Reset a share group's start offsets (the group must have no members).
---
---offsets is an array of {topic=, partition=, offset=}. Like a consumer group offset reset: records before the new start offset are skipped, records after it are delivered again. Kafka refuses while the group has members. Under --dry-run nothing changes.
---
---```lua
---alter_share_group_offsets("orders-queue", {{topic = "orders", partition = 0, offset = 0}})
---```
---@param group string the share group
---@param offsets kadmin.alter_share_group_offsets.offsets|kadmin.alter_share_group_offsets.offsets[] one record per partition, each partition once
---@param options? kadmin.alter_share_group_offsets.options
---@return kadmin.alter_share_group_offsets.result[]
function Client:alter_share_group_offsets(group, offsets, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete a share group's offsets for whole topics (the group must have no members).
---
---topics is a topic name or an array. The group forgets its progress on those topics. Under --dry-run nothing changes.
---
---```lua
---alter_share_group_offsets("orders-queue", {{topic = "orders", partition = 0, offset = 0}})
---delete_share_group_offsets("orders-queue", "orders")
---```
---@param group string the share group
---@param topics string|string[] the topics whose offsets are deleted
---@param options? kadmin.delete_share_group_offsets.options
---@return kadmin.delete_share_group_offsets.result[]
function Client:delete_share_group_offsets(group, topics, options) end

---List share groups' start offsets per partition.
---
---One row per group and partition, sorted by group, topic and partition. start_offset is where the share group's records start (records before it are done); lag is -1 when the broker does not know it. A group that fails gets one row with its error.
---
---```lua
---for _, o in ipairs(describe_share_group_offsets("orders-queue")) do print(o.topic, o.partition, o.start_offset) end
---```
---@param groups string|string[] the share groups whose offsets are listed
---@param options? kadmin.describe_share_group_offsets.options
---@return kadmin.describe_share_group_offsets.result[]
function Client:describe_share_group_offsets(groups, options) end

---Describe share groups (KIP-932 queues): state and members with their assignments.
---
---groups is a group name or an array. An unknown group fails with GROUP_ID_NOT_FOUND (see err.results, or pass {partial=true}).
---
---```lua
---local ok, err = pcall(describe_share_groups, "orders-queue")
---print(ok or err.code)
---```
---@param groups string|string[] the share groups to describe
---@param options? kadmin.describe_share_groups.options
---@return kadmin.describe_share_groups.result[]
function Client:describe_share_groups(groups, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Create a delegation token; returns its id and HMAC (the secret).
---
---owner and renewers are principals like "User:alice" ("alice" alone means a User); owner defaults to the caller. max_lifetime_ms defaults to the broker's maximum.
---
---The result holds the token id and its base64 HMAC, which clients use as SCRAM credentials (username = token_id, password = hmac). Keep them secret: they are never written to the audit log or logs. The call is not retried after an unknown outcome (it would create a second token). Needs a broker with delegation tokens enabled (kfake has none).
---
---```lua
---local ok, t = pcall(create_delegation_token, {renewers = {"User:ops"}})
---print(ok and t.token_id or t.code)
---```
---@param options? kadmin.create_delegation_token.options
---@return kadmin.create_delegation_token.result
function Client:create_delegation_token(options) end

---List delegation tokens (without their HMACs).
---
---owners is a principal ("User:alice") or an array; without it every token the caller may see is listed. HMACs are left out on purpose: only create_delegation_token returns one.
---
---```lua
---local ok, ts = pcall(describe_delegation_tokens)
---if ok then for _, t in ipairs(ts) do print(t.token_id, t.owner, t.expiry_timestamp) end end
---```
---@param owners? string|string[] only these owners' tokens (default: every token the caller may see)
---@return kadmin.describe_delegation_tokens.result[]
function Client:describe_delegation_tokens(owners) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Expire a delegation token (now, or after period_ms).
---
---hmac is the base64 HMAC from create_delegation_token. period_ms defaults to -1: expire now. The HMAC never appears in the audit log or in errors.
---
---```lua
---local ok, err = pcall(expire_delegation_token, "bm90LWEtdG9rZW4=")
---print(ok or err.code)
---```
---@param hmac string the token's base64 HMAC (a secret: never shown)
---@param options? kadmin.expire_delegation_token.options
---@return kadmin.expire_delegation_token.result
function Client:expire_delegation_token(hmac, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Extend a delegation token's expiry.
---
---hmac is the base64 HMAC from create_delegation_token. period_ms defaults to the broker's renew period (-1). The HMAC never appears in the audit log or in errors.
---
---```lua
---local ok, err = pcall(renew_delegation_token, "bm90LWEtdG9rZW4=", {period_ms = 86400000})
---print(ok or err.code)
---```
---@param hmac string the token's base64 HMAC (a secret: never shown)
---@param options? kadmin.renew_delegation_token.options
---@return kadmin.renew_delegation_token.result
function Client:renew_delegation_token(hmac, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Raise topics' partition counts to the given totals.
---
---Counts are totals, not increments; Kafka cannot lower a partition count (INVALID_PARTITIONS).
---
---```lua
---create_topics({{name = "growing", partitions = 2}}, {if_not_exists = true})
---create_partitions{growing = 4}
---```
---@param totals table<string, integer|string> each topic's new total partition count
---@param options? kadmin.create_partitions.options
---@return kadmin.create_partitions.result[]
function Client:create_partitions(totals, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Create topics, each with its own partitions, replication factor, configs or explicit assignment.
---
---A spec is a name (broker defaults) or {name=, partitions=, replication_factor=, configs={k=v}, assignment={[p]={brokers}}}; partition numbers in an assignment start at 0.
---
---if_not_exists=true makes an existing topic a success (existed=true). validate_only=true asks the broker to check without creating (as does --dry-run).
---
---If any topic fails the call raises after creating all the others; err.results says exactly which were created.
---
---```lua
---create_topics({{name = "payments", partitions = 6, configs = {["cleanup.policy"] = "compact"}}}, {if_not_exists = true})
---```
---@param specs string|kadmin.create_topics.specs|(string|kadmin.create_topics.specs)[] a topic name (broker defaults), a spec table, or an array of them
---@param options? kadmin.create_topics.options
---@return kadmin.create_topics.result[]
function Client:create_topics(specs, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete topics and all their data.
---
---if_exists=true makes a missing topic a success (missing=true). Under --dry-run nothing is deleted; each topic is checked to exist.
---
---```lua
---create_topics({"scratch"}, {if_not_exists = true})
---delete_topics("scratch")
---```
---@param names string|string[] the topics to delete
---@param options? kadmin.delete_topics.options
---@return kadmin.delete_topics.result[]
function Client:delete_topics(names, options) end

---Describe topics' partitions: leaders, replicas, ISR, eligible leader replicas.
---
---names is a topic name or an array of names; without it every topic is described, internal ones included (as kafka-topics --describe does).
---
---elr and last_known_elr are the eligible leader replicas and the last known ones (KIP-966), the Elr and LastKnownElr columns of kafka-topics 4.1: empty while the cluster's eligible.leader.replicas.version is 0, nil where the broker does not report them (before Kafka 3.8).
---
---Kafka 3.8+ is asked with DescribeTopicPartitions in pages of at most 2000 partitions, so no single answer from a large cluster is held at once; older brokers with one Metadata request.
---
---A missing topic fails with UNKNOWN_TOPIC_OR_PARTITION (the other topics are still described: see err.results, or pass {partial=true}).
---
---At scale: iterate=true returns an iterator over the topics (for t in describe_topics(nil, {iterate = true}) do ... end), handed over in pages of about 20,000 partitions as the broker's pages come, the next read while the loop handles one: a script that keeps none holds one page, however many partitions the cluster has. match and exclude (RE2 on the name, unanchored) leave topics out as they come, before they are made into rows. Topics caught half made (no leaders yet) are asked again by name and come last.
---
---```lua
---local t = describe_topics("orders")[1]
---print(t.name, #t.partitions, t.partitions[1].leader)
---local partitions = 0
---for _, t in ipairs(describe_topics()) do partitions = partitions + #t.partitions end
---print(partitions)
---local n = 0
---for t in describe_topics(nil, {iterate = true, exclude = "^__"}) do n = n + #t.partitions end
---print(n)
---```
---@param names? string|string[]|kadmin.describe_topics.options the topics to describe (default: every topic, internal ones included)
---@param options? kadmin.describe_topics.options
---@return kadmin.describe_topics.result[]
function Client:describe_topics(names, options) end

---List topics, sorted by name.
---
---Internal topics (__consumer_offsets, ...) are left out unless internal=true. match keeps names matching an RE2 regular expression (unanchored: use ^...$ for a whole name).
---
---```lua
---for _, t in ipairs(list_topics{match = "^orders"}) do print(t.name, t.partitions) end
---```
---@param options? kadmin.list_topics.options
---@return kadmin.list_topics.result[]
function Client:list_topics(options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Abort a producer's open transaction on one partition (writes an abort marker).
---
---Like kafka-transactions.sh abort: a WriteTxnMarkers abort for the producer on that partition, for a transaction left hanging (see find_hanging_transactions). The records of the transaction are discarded for read_committed consumers.
---
---producer_epoch and coordinator_epoch default to the producer's current ones from describe_producers. Producer ids are exact as Lua numbers below 2^53 (Kafka's are); a larger one can be given as a string. Under --dry-run nothing is written; the epochs are still looked up.
---
---```lua
---for _, h in ipairs(find_hanging_transactions()) do
---  abort_transaction{topic = h.topic, partition = h.partition, producer_id = h.producer_id}
---end
---```
---@param args kadmin.abort_transaction.args
---@return kadmin.abort_transaction.result
function Client:abort_transaction(args) end

---List the active producers of every partition of the topics.
---
---topics is a topic name or an array of names; every partition is asked. current_txn_start_offset is the first offset of the producer's open transaction, -1 when none is open.
---
---```lua
---for _, p in ipairs(describe_producers("orders")) do print(p.partition, p.producer_id, p.current_txn_start_offset) end
---```
---@param topics string|string[] the topics whose partitions to ask
---@return kadmin.describe_producers.result[]
function Client:describe_producers(topics) end

---Describe transactional ids: state, producer and the partitions of the open transaction.
---
---ids is a transactional id or an array. An unknown id fails with TRANSACTIONAL_ID_NOT_FOUND (see err.results, or pass {partial=true}). start_timestamp is -1 when no transaction is open.
---
---```lua
---local ok, err = pcall(describe_transactions, "payments-tx")
---print(ok or err.code)
---```
---@param ids string|string[] the transactional ids to describe
---@param options? kadmin.describe_transactions.options
---@return kadmin.describe_transactions.result[]
function Client:describe_transactions(ids, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Fence the producers using transactional ids (bump their epoch; open transactions abort).
---
---Like Admin.fenceProducers: an InitProducerId for each transactional id bumps its producer epoch, so the producer using it fails its next transactional call with an epoch error and its open transaction is aborted. Under --dry-run nothing is sent.
---
---```lua
---fence_producers("stuck-producer")
---```
---@param transactional_ids string|string[] the transactional ids whose producers to fence
---@param options? kadmin.fence_producers.options
---@return kadmin.fence_producers.result[]
function Client:fence_producers(transactional_ids, options) end

---Find transactions left open on partitions that their coordinator has forgotten.
---
---Like kafka-transactions.sh find-hanging: producers with an open transaction on a partition (describe_producers) whose last write is older than max_age_ms (default 15 minutes) and whose transactional id is not ongoing on that partition per list_transactions / describe_transactions. Such a transaction holds back the last stable offset (read_committed consumers stall) until aborted with abort_transaction.
---
---topics defaults to all topics; brokers keeps partitions led by those brokers.
---
---```lua
---for _, h in ipairs(find_hanging_transactions{max_age_ms = 60000}) do print(h.topic, h.partition, h.producer_id, h.reason) end
---```
---@param options? kadmin.find_hanging_transactions.options
---@return kadmin.find_hanging_transactions.result[]
function Client:find_hanging_transactions(options) end

---List transactional ids known to the transaction coordinators.
---
---states keeps only those states ("Ongoing", "PrepareCommit", "CompleteAbort", "Empty", ...); producer_ids keeps only those producer ids; pattern is an RE2 expression on the transactional id (Kafka 4.1+; older brokers ignore it).
---
---```lua
---for _, t in ipairs(list_transactions{states = {"Ongoing"}}) do print(t.transactional_id, t.producer_id) end
---```
---@param options? kadmin.list_transactions.options
---@return kadmin.list_transactions.result[]
function Client:list_transactions(options) end

---kadmin-lua's library (also `require("kafka")`).
kafka = {}

---The default cluster's client (from -b, --profile or --embedded): the globals call it.
---@type kadmin.Client
kafka.default = nil

kafka.json = {}

kafka.log = {}

---JSON's null: what kafka.json.decode gives for null, and what kafka.json.encode writes as null.
---@type userdata
kafka.json.null = nil

---Show the functions, or one function's documentation.
---
---```lua
---help(create_topics)
---```
---@param fn? function|string the function to explain; left out: list every function
function help(fn) end

---Record a health check; when any check failed the run exits 4 at the end. Does not stop the script.
---
---```lua
---kafka.check(#list_topics() > 0, "cluster has topics")
---```
---@param cond? any the check passes unless this is false or nil
---@param message? string what failed (default "check failed")
---@return any
function kafka.check(cond, message) end

---Connect to another cluster; the client has every admin function as a method.
---
---Returns a client object: `c:list_topics()`, `c:create_topics{...}`. It connects lazily, on the first call. Credentials stay with their cluster: `kafka.connect{}` is another client to the default cluster with its credentials; `brokers=` names another cluster, reached with no credentials unless the call names them (`sasl_mechanism` with `sasl_username`, whose password comes from KADMIN_SASL_PASSWORD and never from the script; `tls_cert`/`tls_key`) or a `profile` from the config file whose brokers include every seed. timeout is in milliseconds.
---
---```lua
---local c = kafka.connect{brokers = kafka.default:brokers()}
---return #c:list_topics() >= 0
---```
---@param args kadmin.kafka.connect.args
---@return kadmin.Client
function kafka.connect(args) end

---Turn dry-run on or off for the rest of the run; returns the current setting. In dry-run, mutations validate and print their plan to stderr but change nothing.
---
---```lua
---kafka.dry_run(true)
---local r = create_topics{"dry-run-example"}
---kafka.dry_run(false)
---return r[1].dry_run
---```
---@param on? boolean true: dry-run from now on; false: changes apply again; left out: only ask
---@return boolean
function kafka.dry_run(on) end

---Read an environment variable.
---
---```lua
---return kafka.env("KADMIN_NO_SUCH_VAR", "fallback")
---```
---@param name string the variable
---@param default? any returned when the variable is unset or empty
---@return any
function kafka.env(name, default) end

---Stop the script with an error (exit 1).
---
---```lua
---local ok = pcall(kafka.fail, "stop here")
---return ok == false
---```
---@param message? any the error message (any value: a caught error is shown as tostring gives it)
function kafka.fail(message) end

---Decode JSON; null becomes kafka.json.null.
---
---```lua
---return kafka.json.decode('{"a":[1,2]}').a[2]
---```
---@param text string a JSON document
---@return any
function kafka.json.decode(text) end

---Encode a value as JSON with sorted keys; empty tables are [], kafka.json.null is null.
---
---```lua
---return kafka.json.encode({b = 1, a = {1, 2}})
---```
---@param value? any the value to encode (nil and kafka.json.null are null)
---@param options? kadmin.kafka.json.encode.options
---@return string
function kafka.json.encode(value, options) end

---Structured debug line on stderr.
---
---```lua
---kafka.log.debug{msg = "polling", interval_ms = 500}
---```
---@param message? any a message, or a table {msg=, key=value...} of fields (secret-named keys are redacted)
function kafka.log.debug(message) end

---Structured error line on stderr.
---
---```lua
---kafka.log.error("lag check failed: " .. tostring(42) .. " groups unreadable")
---```
---@param message? any a message, or a table {msg=, key=value...} of fields (secret-named keys are redacted)
function kafka.log.error(message) end

---Structured log line on stderr (also kafka.log.warn, kafka.log.error, kafka.log.debug).
---
---```lua
---kafka.log.info{msg = "checked", topics = 3}
---```
---@param message? any a message, or a table {msg=, key=value...} of fields (secret-named keys are redacted)
function kafka.log.info(message) end

---Structured warning on stderr.
---
---```lua
---kafka.log.warn{msg = "under-replicated", topic = "orders", partitions = 2}
---```
---@param message? any a message, or a table {msg=, key=value...} of fields (secret-named keys are redacted)
function kafka.log.warn(message) end

---Declare a figure (a gauge) that --metrics-file writes for Prometheus after the run.
---
---Each call sets one series: the name with its labels. Calling again with the same name and labels replaces the value; the first help given for a name is kept. Every figure is a gauge: its value as of this run.
---
---Names follow OpenMetrics ([a-zA-Z_:][a-zA-Z0-9_:]*); names starting with kadmin_lua_ are kadmin-lua's own (run duration, last success, check failures) and are refused. Label names are [a-zA-Z_][a-zA-Z0-9_]* and may not start with __; values are strings (numbers are written in decimal). When the run's cluster is a profile (run --profiles), every series also gets the label profile=NAME, replacing a label of that name.
---
---Without --metrics-file the figures are kept for nothing: a script declares them the same way under cron, in a loop or at the REPL. See docs/scheduling.md.
---
---```lua
---kafka.metric("kafka_topics", #list_topics(), {}, "Topics in the cluster")
---kafka.metric("kafka_consumergroup_lag", 42, {group = "billing", topic = "payments"})
---```
---@param name string the metric's name: letters, digits, _ and :, not starting with a digit
---@param value number the figure
---@param labels? table<string, string|number> label names to values (strings or numbers)
---@param help? string what the figure means (the HELP line)
function kafka.metric(name, value, labels, help) end

---POST an alert to a webhook (Alertmanager, Slack or JSON), once when it opens, again after repeat_interval, once when it resolves, with the labels it opened with.
---
---Alerts without Prometheus: a JSON POST to url (or to the URL in the variable url_env, for webhooks whose URL is the secret, as Slack's are).
---
---format "alertmanager" sends Alertmanager's v2 API (POST /api/v2/alerts, added to a URL given without a path): a list of {labels, annotations, startsAt, endsAt, generatorURL}; labels need an alertname. A firing alert's endsAt is two repeat intervals ahead, so Alertmanager keeps it firing between repeats and lets it lapse when the job that sends it stops; a resolved alert's endsAt is now. format "slack" sends {"text": ...} (with blocks=... when slack_blocks is true), which Slack, Mattermost and Rocket.Chat incoming webhooks read. format "json" (the default) sends {"version": "1", "source": "kadmin-lua", "status": "firing"|"resolved", "sentAt": ..., "alerts": [{key, status, state, reason, labels, annotations, startsAt, endsAt}]}.
---
---status is "firing" (the default) or "resolved", or a verdict of lag_status: "OK" resolves; WARN, ERR, NOTFOUND, STALL, STOP and REWIND fire, and a change from one to another (WARN to ERR) is sent as a new opening. summary and description are the annotations of those names.
---
---Identity: key (by default the labels, "alertname=KafkaConsumerLag,group=billing") is what kafka.notify remembers the alert by; its labels are what the webhook knows it by (Alertmanager identifies an alert by its whole label set). status_labels = {ERR = {severity = "critical"}, WARN = {severity = "warning"}} adds labels by status, over the alert's own. An alert is resolved with the labels it was opened with, whatever labels the resolving call gives; when the labels it fires with change while it is open (a status label, or the caller's labels), the open alert is resolved, with its labels, in the same POST as the new one opens, so nothing stays firing at the webhook. An alert opened by an earlier kadmin-lua (which did not record its labels) is taken to have been sent with the labels given now and the status labels of the status it opened with, and is resolved once with those.
---
---De-duplication: what was sent is remembered per webhook and key: in the state file with --state (so across cron runs), else for the process's life (one run, or a loop). An alert is sent when it opens (reason "opened"), again once repeat_interval (seconds, default 14400: 4 hours, Alertmanager's own default) has passed while it stays open ("repeat"), and when it resolves ("resolved"); otherwise nothing is sent ("unchanged": the status is the one last sent, or nothing is open to resolve). Resolving an alert that is not open sends nothing.
---
---Hysteresis: with after_runs = N, a new status (opening, escalating, resolving) is sent once N calls in a row have given it; until then the reason is "pending" (the alert's runs says how many calls have), and a call that gives the status last sent starts the count again. A flapping alert then sends nothing. While a change is pending an open alert is still repeated as it opened.
---
---Several alerts go in one call with alerts={{labels=..., status=...}, ...} (labels and annotations given beside it are common to all; an alert's own win); only those that need sending are POSTed, and each has its outcome in the result's alerts. The result's reason is then the most telling of theirs: failed, opened, resolved, repeat, pending, unchanged. However many there are, none is dropped: a POST carries at most 1000 alerts (a Slack message 50), and posts says how many POSTs they took.
---
---Delivery: each attempt is bounded by timeout (seconds, default 5); a refused or reset connection, a timeout, HTTP 5xx and 429 are retried (retries, default 2) with a short backoff; other answers are not. A failed delivery returns sent=false, reason="failed" and error, writes a WARN line on stderr (the webhook's answer escaped as every string from outside is), counts in --metrics-file's kadmin_lua_notify_failures and records nothing, so the next call tries again; it does not change the exit code unless fail=true, which raises the error (code NOTIFY_FAILED, exit 1 when not caught). Of several POSTs, those delivered are recorded; after one that fails as a webhook that is down does (refused, timed out, 5xx), the rest are not tried. Redirects are not followed.
---
---Secrets: the token (from the variable token_env or the file token_file, sent as "Authorization: Bearer ...") and the URL's credentials (user:pass@, every query value, path segments that are not plain words, such as Slack's /services/T.../B.../...) never appear in results, errors or logs: url in the result is redacted.
---
---Under --dry-run (or kafka.dry_run(true)) nothing is POSTed and nothing recorded: a "dry-run:" line on stderr shows what would be sent, and the result says dry_run=true with the reason a real run would have.
---
---```lua
---kafka.dry_run(true)
---local r = kafka.notify{url = "http://alertmanager:9093", format = "alertmanager",
---  labels = {alertname = "KafkaConsumerLag", group = "billing"},
---  status_labels = {ERR = {severity = "critical"}, WARN = {severity = "warning"}},
---  status = "WARN", summary = "billing is 12000 records behind"}
---kafka.dry_run(false)
---return r.dry_run and r.reason == "opened" and not r.sent
---```
---@param args kadmin.kafka.notify.args
---@return kadmin.kafka.notify.result
function kafka.notify(args) end

---Milliseconds since the Unix epoch (Kafka timestamps are in ms).
---
---```lua
---return kafka.now() > 0
---```
---@return number
function kafka.now() end

---Pretty-print values to stdout: arrays of records as an aligned table, others as indented Lua (JSON under -o json).
---
---```lua
---kafka.pp(list_topics())
---```
---@param ... any the values to print, one after another
function kafka.pp(...) end

---Sleep; Ctrl-C interrupts it.
---
---```lua
---kafka.sleep(10)
---```
---@param ms integer|string how long to sleep
function kafka.sleep(ms) end

---Re-run a function or chunk every few seconds and redraw its result in place, until Ctrl-C (read-only).
---
---fn is a function or a chunk of Lua code, run as the prompt runs it (an expression's values are shown). Each refresh runs it, then waits for the rest of interval seconds (default 2, between 0.1 and 3600).
---
---A lag() result (its groups, or one group) is shown per group and partition: the lag, the ETA (the time left to zero lag at the pace the lag fell), the change since the last refresh, the consume rate (committed offsets) and produce rate (end offsets) in records/s, with a bar scaled to the largest lag. The rates and the ETA are measured over the last window refreshes (default 5): "-" until there are two, "0s" for a partition that does not lag, "keeps up" for one that read in the window at least what it lags and whose lag is no more than the window's production (recent records, which each commit clears: a time to zero read off them would be noise), "never" for one whose lag did not fall (while the window is still filling, a partition whose committed offset has not moved yet shows "-": its consumer may commit less often than the window spans). A window shorter than a consumer's commit interval (Kafka Streams commits every 30 s) shows its lag rising between commits: widen it. On a narrow terminal the lag and ETA come first; long topic names are cut (…) before the figures are. Any other result is printed as the REPL prints it, with every table cell that changed since the last refresh marked with * after it (in reverse video on a terminal).
---
---On a terminal the block is redrawn in place, cut to the terminal's width and height, and Ctrl-C ends the watch: the session goes on at the prompt. Piped (run, -e, stdout not a terminal) one block per refresh is printed after a header line with the time and the refresh number, with no terminal escapes; count ends it, or Ctrl-C or SIGTERM (exit 130 or 143).
---
---A refresh that fails with a Kafka error (a broker down, a timeout) is shown in the block with the last good result, and the watch goes on; any other error (a syntax error in the chunk, calling what is no function, a bad argument) ends the watch at once with that error. The output is always the text view, whatever --output says. watch is read-only: a function that changes the cluster (create_topics, commit_offsets, ...) called while it runs fails with INVALID_ARGUMENT before anything is sent, and ends the watch; so does a watch inside a watch.
---
---```lua
---watch("lag('orders-processor')", 0.1, {count = 2})
---watch(function() return list_topics() end, 0.1, {count = 2})
---```
---@param fn function|string what to re-run: a function, or Lua code as typed at the prompt ("lag('orders-processor')")
---@param interval? number|kadmin.watch.options seconds between refreshes (default 2)
---@param options? kadmin.watch.options
function watch(fn, interval, options) end

---A script's arguments: arg[0] is the script, arg[1..] what followed it on the command line.
---@type table<integer, string>
arg = {}

---The ACLs kafka-acls --producer or --consumer would create, as rows for create_acls and delete_acls.
---
---Needs no cluster: it returns rows, which create_acls creates and delete_acls deletes (a row is also a filter that matches exactly that ACL). The rows are those of Apache Kafka's AclCommand:
---
---producer = P, topics = T: WRITE, DESCRIBE and CREATE on each topic; with transactional_id = X also WRITE and DESCRIBE on each transactional id; with idempotent = true also IDEMPOTENT_WRITE on the cluster (always literal "kafka-cluster"). kafka-acls does not add IDEMPOTENT_WRITE for a transactional id: Kafka allows idempotence to a producer authorized on a transactional id.
---
---consumer = P, topics = T, group = G: READ and DESCRIBE on each topic, READ on each group. producer and consumer can be given together (the rows are merged, as kafka-acls --producer --consumer merges them).
---
---Every row allows, from each of hosts ("*" by default); pattern_type ("literal" by default, or "prefixed", kafka-acls' --resource-pattern-type) applies to topics, groups and transactional ids. Refused as kafka-acls refuses them: no topics, a consumer without group, idempotent or transactional_id without a producer, group without a consumer. Rows are sorted as describe_acls sorts them.
---
---```lua
---local rows = acl_bundle{producer = "User:orders-svc", topics = "orders", idempotent = true}
---create_acls(rows)
---create_acls(acl_bundle{consumer = "User:billing", topics = "orders", group = "billing"})
---print(#describe_acls{principal = "User:orders-svc"}, #describe_acls{principal = "User:billing"})
---delete_acls(acl_bundle{consumer = "User:billing", topics = "orders", group = "billing"})
---return #rows == 4
---```
---@param args kadmin.acl_bundle.args
---@return kadmin.acl_bundle.result[]
function acl_bundle(args) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Create ACLs, one per row.
---
---rows is one row or an array of rows {principal=, operation=, resource_type=, resource_name=, [permission=], [host=], [pattern_type=]}; principal is TYPE:NAME ("User:alice").
---
---Defaults, as kafka-acls: permission "allow", host "*", pattern_type "literal" (or "prefixed"), and resource_name "kafka-cluster" for resource_type "cluster". Names are case-insensitive (see describe_acls).
---
---Creating an ACL that already exists changes nothing and is not an error. Kafka has no validate-only mode for ACLs: under --dry-run the rows are checked here and nothing is created.
---
---```lua
---create_acls{
---  {principal = "User:billing", operation = "read", resource_type = "topic", resource_name = "payments"},
---  {principal = "User:billing", operation = "read", resource_type = "group", resource_name = "billing-", pattern_type = "prefixed"},
---}
---```
---@param rows kadmin.create_acls.rows|kadmin.create_acls.rows[] the ACLs to create
---@param options? kadmin.create_acls.options
---@return kadmin.create_acls.result[]
function create_acls(rows, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete every ACL matching each filter, and say which were deleted.
---
---filters is one filter or an array of them, shaped as describe_acls' filter: a missing field matches anything, so {principal="User:bob"} deletes all of bob's ACLs. A filter must set at least one field; to delete every ACL say so: {resource_type="any"}.
---
---Each result lists the ACLs its filter deleted (none is not an error). Under --dry-run nothing is deleted and deleted lists what would be.
---
---```lua
---create_acls{{principal = "User:temp", operation = "write", resource_type = "topic", resource_name = "orders"}}
---local r = delete_acls{principal = "User:temp"}
---print(#r[1].deleted)
---```
---@param filters kadmin.delete_acls.filters|kadmin.delete_acls.filters[] filters shaped as describe_acls', each with a field set: every ACL a filter matches is deleted
---@param options? kadmin.delete_acls.options
---@return kadmin.delete_acls.result[]
function delete_acls(filters, options) end

---List ACLs matching a filter (all ACLs without one).
---
---filter = {principal=, host=, operation=, permission=, resource_type=, resource_name=, pattern_type=}; a missing field matches anything.
---
---Names are case-insensitive and come back lower-case: operation "read", "write", "create", "delete", "alter", "describe", "cluster_action", "describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens", "all"; permission "allow" or "deny"; resource_type "topic", "group", "cluster", "transactional_id", "delegation_token", "user"; pattern_type "literal", "prefixed", "any" (the default) or "match" (every literal, prefixed and wildcard ACL that applies to resource_name).
---
---Rows are sorted by resource type, resource name, pattern type, then principal; a row is itself a valid filter for delete_acls.
---
---```lua
---create_acls{{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "orders"}}
---for _, a in ipairs(describe_acls{principal = "User:alice"}) do print(a.operation, a.resource_type, a.resource_name) end
---```
---@param filter? kadmin.describe_acls.filter the ACLs to list; a field left out matches anything (every ACL when left out)
---@return kadmin.describe_acls.result[]
function describe_acls(filter) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Make a KRaft controller a voter of the metadata quorum (KIP-853).
---
---Like kafka-metadata-quorum add-controller. voter is {id=, endpoints={{listener=, host=, port=}...}, [directory_id=]}: the controller's node.id, its controller listeners (controller.listener.names, as advertised) and the directory id of its metadata log dir. Without directory_id the controller's id is looked up among the quorum's observers (describe_quorum): start the new controller first (formatted with --no-initial-controllers); it joins as an observer, and Kafka adds it once it has caught up.
---
---Needs a dynamic quorum: kraft.version 1 or more (Kafka 3.9+, formatted with --standalone or --initial-controllers); on a static quorum (controller.quorum.voters) the call is refused before anything is sent. Kafka answers DUPLICATE_VOTER for a controller already voting.
---
---Declared destructive (the REPL asks first unless --yes) and audited; undo removes the voter again. Under --dry-run nothing is sent and the plan names the voters now.
---
---```lua
---local ok, err = pcall(add_raft_voter, {id = 3004, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ",
---  endpoints = {{listener = "CONTROLLER", host = "controller-4", port = 9093}}})
---print(ok or err.code)
---```
---@param voter kadmin.add_raft_voter.voter the controller to make a voter
---@return kadmin.add_raft_voter.result
function add_raft_voter(voter) end

---The KRaft metadata quorum: leader, epoch, and how far each voter and observer lags.
---
---Like kafka-metadata-quorum describe --status --replication. lag is high_watermark minus the replica's log_end_offset; timestamps are Unix milliseconds, -1 when unknown. Voters are the controllers, observers the brokers (and controllers not voting), each sorted by id.
---
---Brokers forward the request to the active controller. When there is none (the quorum has lost its majority, or the brokers cannot reach it), a broker holds the request; the call then fails after 5 s (half of --timeout, when that is shorter), not at --timeout, with TIMEOUT "no controller answered within 5s" (err.retriable: ask again later). 5 s waits out an election at Kafka's defaults (the voters notice a dead leader after controller.quorum.fetch.timeout.ms, 2 s, then vote within 1-2 s); describe_cluster() says the same as quorum = "no_answer".
---
---The embedded demo cluster does not implement it (UNSUPPORTED_VERSION).
---
---```lua
---local ok, q = pcall(describe_quorum)
---if ok then print(q.leader, q.epoch, #q.voters) else print(q.code) end
---```
---@return kadmin.describe_quorum.result
function describe_quorum() end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Remove a voter from the KRaft metadata quorum (KIP-853).
---
---Like kafka-metadata-quorum remove-controller --controller-id --controller-directory-id. voter is {id=, directory_id=}; describe_quorum lists the voters with their directory ids. Kafka answers VOTER_NOT_FOUND for a controller that is not a voter with that directory id.
---
---Needs a dynamic quorum (kraft.version 1 or more); a static one is refused before anything is sent. Removing voters can leave the quorum without a majority of live voters: check describe_quorum first.
---
---Declared destructive and audited; undo adds the voter again with the endpoints recorded before (its controller must be running). Under --dry-run nothing is sent.
---
---```lua
---local ok, err = pcall(remove_raft_voter, {id = 3004, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ"})
---print(ok or err.code)
---```
---@param voter kadmin.remove_raft_voter.voter the voter to remove
---@return kadmin.remove_raft_voter.result
function remove_raft_voter(voter) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Remove a decommissioned broker's registration from the cluster metadata.
---
---For a broker shut down for good (KIP-500): its id stops being listed and its replicas can be reassigned. Kafka does not refuse a running broker: Apache Kafka 4.1 drops its registration, and the broker process goes on running unregistered (its heartbeats get STALE_BROKER_EPOCH) until it is restarted (a Kafka 3.9 broker was seen to register again by itself within seconds), so unregister only brokers that are shut down. Kafka answers BROKER_ID_NOT_REGISTERED for an id it does not know, including one already unregistered.
---
---Under --dry-run nothing changes; the plan says whether the broker is currently registered (live). The embedded demo cluster does not implement it.
---
---```lua
---local ok, err = pcall(unregister_broker, 99)
---print(ok or err.code)
---```
---@param id integer|string the id of the broker to unregister
---@return kadmin.unregister_broker.result
function unregister_broker(id) end

---Describe the cluster: its id, the metadata quorum and active controller, and every broker with its state.
---
---Brokers are sorted by id; rack is nil for a broker without broker.rack. state is one of:
---
---- "live": registered and unfenced, serving;
---
---- "fenced": registered but fenced: stopped, crashed, or not caught up with the metadata yet (Kafka 4.0+ reports fenced brokers: DescribeCluster v2);
---
---- "unregistered": named in partition replicas but not registered (host and port are nil);
---
---- "offline": named in replicas and not live, on a cluster before Kafka 4.0 that cannot tell fenced from unregistered;
---
---- "unknown": the metadata quorum has no leader, none answered, or its leader has no majority (quorum below): the broker that answered knows only the metadata it had when the quorum was lost, where a broker that died since still reads live. reachable then says whether this client got an answer from the broker just now (ApiVersions, within 2 s); it is nil otherwise.
---
---Kafka tells clients nothing of a broker in controlled shutdown: it is "live" until it is fenced (see docs/decisions.md).
---
---quorum is the KRaft metadata quorum's state: "led" (it has a leader: the active controller), "no_leader" (it answered, without a leader: an election), "no_answer" (no controller answered within 5 s, or half of --timeout when shorter: brokers forward DescribeQuorum to the active controller, and there is none: the quorum has lost its majority, or the brokers cannot reach it), "no_majority" (the leader answered, but most of its voters have not fetched from it for over 2 s, Kafka's default controller.quorum.fetch.timeout.ms, by the leader's clock: it can commit nothing, and resigns within a few seconds), "none" (no quorum to ask: a ZooKeeper-era cluster) or "unknown" (asking failed otherwise); quorum_error says why for "no_answer", "no_majority" and "unknown". In all but "led" and "none" the states are "unknown".
---
---active_controller is the metadata quorum's leader (describe_quorum), the controller really in charge (with "no_majority", the leader about to resign); nil where the cluster cannot say (no quorum, no leader, or DESCRIBE on the cluster not allowed: quorum is then "led", as a controller answered). controller is what Kafka's answer names: in KRaft a broker that forwards controller requests, not the active controller (-1 when unknown; without a quorum, whatever the answering broker last knew).
---
---Every topic's replicas are read (in pages) to find the brokers the cluster does not list; with_topics=true returns them as topics, in describe_topics' shape (a topic that failed carries its error instead of raising), so a health check reads them once.
---
---```lua
---local c = describe_cluster()
---print(c.cluster_id, "quorum:", c.quorum, "active controller:", c.active_controller or "unknown")
---for _, b in ipairs(c.brokers) do print(b.id, b.state, (b.host or "?") .. ":" .. (b.port or "?"), b.rack or "-") end
---print(#describe_cluster{with_topics = true}.topics .. " topics")
---```
---@param options? kadmin.describe_cluster.options
---@return kadmin.describe_cluster.result
function describe_cluster(options) end

---Wait until the cluster is ready: enough brokers live and no partition under-replicated or offline.
---
---The readiness gate of a provisioning job (a Kubernetes Job or Helm hook that makes topics and ACLs): looks at the cluster's metadata every interval_ms (default 1000) until at least min_brokers brokers are live (registered and unfenced) and every partition has a leader and all its replicas in sync, then returns what it saw (brokers live, and the empty lists of under-replicated and offline partitions as "topic[partition]"; a topic whose metadata is an error, such as one still being made, is offline as "topic: LEADER_NOT_AVAILABLE"). A cluster that cannot be reached yet (still starting) is looked at again; a refused login or authorization is raised at once, since waiting cannot mend it. When timeout passes first (milliseconds or a duration string like "10m", default 5m) it raises TIMEOUT saying what was missing at the last look: "3 of 5 brokers live; 2 partitions under-replicated (orders[0], orders[3])"; from the CLI that is exit 3, which a Job's podFailurePolicy retries. While it waits, progress goes to stderr as wait_reassignments' does. Changes nothing in the cluster.
---
---```lua
---local r = wait_ready{min_brokers = 3, timeout = "1m"}
---print(r.brokers .. " brokers live after " .. r.waited_ms .. " ms")
---```
---@param options? kadmin.wait_ready.options
---@return kadmin.wait_ready.result
function wait_ready(options) end

---List the resources that have configs: topics, brokers, broker loggers, client metrics, groups.
---
---types is a type or an array of types among "topic", "broker", "broker_logger", "client_metrics", "group"; none means every type. Rows are sorted by type then name; the names feed describe_configs.
---
---Brokers before Kafka 4.1 would list only client_metrics resources (the API was ListClientMetricsResources), so on an older cluster the call fails with UNSUPPORTED_VERSION rather than return a partial list.
---
---```lua
---for _, r in ipairs(list_config_resources("topic")) do print(r.type, r.name) end
---```
---@param types? "topic"|"broker"|"broker_logger"|"client_metrics"|"group"|("topic"|"broker"|"broker_logger"|"client_metrics"|"group")[] the resource types to list (every type when left out)
---@return kadmin.list_config_resources.result[]
function list_config_resources(types) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Change configs incrementally: set, delete (back to default), append to or subtract from lists.
---
---A resource is {topic="t", set={k=v}, delete={"k"}, append={k=v}, subtract={k=v}}, with broker=, broker_logger=, group= or client_metrics= in place of topic= (as for describe_configs); resources is one resource or an array of them.
---
---This is Kafka's IncrementalAlterConfigs: configs not named keep their values (unlike the legacy AlterConfigs, which reset them). Values may be strings, numbers or booleans; for list configs (cleanup.policy, leader.replication.throttled.replicas, ...) a value may also be an array of strings, sent comma-separated. append adds values not already in the list; subtract removes them.
---
---A config may appear in only one of set, delete, append and subtract. validate_only=true (or --dry-run) asks the brokers to validate without changing anything. Values of secret-looking keys (passwords, JAAS configs, keys) are shown as *** in plans and the audit log.
---
---Every operation is idempotent, so a retriable failure (even REQUEST_TIMED_OUT) is sent again until the deadline. If any resource fails the call raises after altering the others; err.results says which.
---
---```lua
---alter_configs{topic = "orders", set = {["retention.ms"] = 86400000}, append = {["cleanup.policy"] = "compact"}}
---local c = describe_configs({topic = "orders"}, {keys = {"retention.ms", "cleanup.policy"}})[1].configs
---print(c["retention.ms"].value, c["cleanup.policy"].value)
---alter_configs{topic = "orders", delete = {"retention.ms", "cleanup.policy"}}
---```
---@param resources kadmin.alter_configs.resources|kadmin.alter_configs.resources[] the resources (as for describe_configs), each with its changes: set, delete, append, subtract
---@param options? kadmin.alter_configs.options
---@return kadmin.alter_configs.result[]
function alter_configs(resources, options) end

---Describe the configs of topics, brokers, broker loggers, groups or client-metrics subscriptions.
---
---A resource is {topic="t"}, {broker=1}, {broker="default"} (the cluster-wide dynamic broker default), {broker_logger=1}, {group="g"} or {client_metrics="name"}; resources is one resource or an array of them.
---
---Each result has type (the resource's key: "topic", "broker", ...), name (the topic, group or subscription name; the broker id as a string, "" for the broker default) and configs keyed by config name.
---
---source is Kafka's name for where the value comes from, as kafka-configs prints it: DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, DYNAMIC_BROKER_LOGGER_CONFIG, DYNAMIC_CLIENT_METRICS_CONFIG, DYNAMIC_GROUP_CONFIG.
---
---dynamic=true keeps only the values set on the resource itself, what kafka-configs --describe shows without --all: a topic's DYNAMIC_TOPIC_CONFIG entries, a broker's DYNAMIC_BROKER_CONFIG, the broker default's DYNAMIC_DEFAULT_BROKER_CONFIG, a group's DYNAMIC_GROUP_CONFIG, a subscription's DYNAMIC_CLIENT_METRICS_CONFIG (broker loggers are shown whole, as kafka-configs does); defaults and static broker settings are left out.
---
---Sensitive values (passwords, keys) are never shown: value is nil and sensitive=true. keys limits the answer to those configs; synonyms=true adds synonyms={{name=, value=, source=}...} to each config, highest precedence first (e.g. log.retention.ms behind a topic's retention.ms).
---
---Broker and broker_logger resources are asked of that broker, as Kafka requires; a broker id not in the cluster fails with BROKER_NOT_AVAILABLE. Results are sorted by type, then name (broker ids numerically).
---
---```lua
---local t = describe_configs({topic = "orders"}, {keys = {"retention.ms", "cleanup.policy"}})[1]
---for k, c in pairs(t.configs) do print(k, c.value, c.source) end
---for k, c in pairs(describe_configs({topic = "orders"}, {dynamic = true})[1].configs) do print(k .. "=" .. c.value) end
---local b = describe_configs{broker = describe_cluster().brokers[1].id}[1]
---local n = 0
---for _ in pairs(b.configs) do n = n + 1 end
---print("broker " .. b.name .. ": " .. n .. " configs")
---```
---@param resources kadmin.describe_configs.resources|kadmin.describe_configs.resources[] the resources: {topic=}, {broker=} (an id or "default"), {broker_logger=}, {group=} or {client_metrics=}
---@param options? kadmin.describe_configs.options
---@return kadmin.describe_configs.result[]
function describe_configs(resources, options) end

---The API versions each broker supports: a row per broker and API key.
---
---Rows are sorted by broker then API key; name is Kafka's request name, as kafka-broker-api-versions prints it ("Produce", "SaslHandshake", "InitProducerId", "AlterPartitionReassignments", ...). One row per broker and key keeps it greppable and easy to compare across brokers during a rolling upgrade.
---
---A broker that cannot be asked gets one row with api -1 and its error.
---
---```lua
---for _, v in ipairs(api_versions()) do
---  if v.broker == 0 and v.name == "Fetch" then print(v.min_version, v.max_version) end
---end
---```
---@return kadmin.api_versions.result[]
function api_versions() end

---The cluster's features (KIP-584): finalized level and supported range, a row per feature.
---
---feature is e.g. "metadata.version", "kraft.version", "transaction.version", "group.version". finalized_level is the level in force (0 when not finalized); supported_min/supported_max the range the brokers support; epoch the finalized features' epoch (the same on every row). Read from a broker's ApiVersions answer, as the Java admin client does.
---
---```lua
---for _, f in ipairs(describe_features()) do print(f.feature, f.finalized_level, f.supported_max) end
---```
---@return kadmin.describe_features.result[]
function describe_features() end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Change finalized feature levels (upgrade metadata.version, ...).
---
---updates is one update or an array of updates {feature=, max_version_level=, [upgrade_type=]}; upgrade_type is "upgrade" (the default), "safe_downgrade" or "unsafe_downgrade" (lossy). max_version_level 0 removes the feature.
---
---Declared destructive: an upgrade of metadata.version cannot be undone without a lossy downgrade, so the REPL asks first unless --yes. validate_only=true (and --dry-run) asks the controller to check without changing anything. Brokers answering UpdateFeatures v2 give one error for the whole request: every feature then carries it.
---
---```lua
---local fs = describe_features()
---for _, f in ipairs(fs) do
---  if f.feature == "transaction.version" then
---    print(update_features({{feature = f.feature, max_version_level = f.supported_max}}, {validate_only = true})[1].error)
---  end
---end
---```
---@param updates kadmin.update_features.updates|kadmin.update_features.updates[] the features and their new levels
---@param options? kadmin.update_features.options
---@return kadmin.update_features.result[]
function update_features(updates, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Commit offsets for a group (rewind or skip ahead an idle group).
---
---offset is the next offset the group will read. Kafka only accepts an admin commit to a group without live members: stop the consumers first, or the commit fails with UNKNOWN_MEMBER_ID. Committing to a group that does not exist creates it (Kafka's semantics).
---
---Under --dry-run nothing is committed: the group is checked to have no live members and each partition to exist.
---
---```lua
---commit_offsets("orders-replay", {{topic = "orders", partition = 0, offset = 0}, {topic = "orders", partition = 1, offset = 0}})
---print(fetch_offsets("orders-replay")[1].offset)
---```
---@param group string the group to commit for (created if it does not exist)
---@param offsets kadmin.commit_offsets.offsets|kadmin.commit_offsets.offsets[] one record per partition, each partition once
---@param options? kadmin.commit_offsets.options
---@return kadmin.commit_offsets.result[]
function commit_offsets(group, offsets, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete a group's committed offsets for topics (or single partitions).
---
---topics is a topic name, or an array of names (all their partitions) and/or {topic=, partition=} records. Kafka (OffsetDelete, 2.4+) drops the group's commits there, so its lag no longer counts topics it stopped reading; a partition without a commit succeeds too.
---
---A group still consuming a topic keeps those offsets: each of its partitions fails with GROUP_SUBSCRIBED_TO_TOPIC (the others are still deleted: see err.results, or pass {partial=true}). A group with live members that is not a consumer group fails as a whole with NON_EMPTY_GROUP; a group that does not exist with GROUP_ID_NOT_FOUND. A named topic that does not exist gets one result with partition=-1 and UNKNOWN_TOPIC_OR_PARTITION; a {topic=, partition=} that does not exist fails the call before anything is deleted.
---
---Under --dry-run nothing is deleted: the group is described and a partition of a topic assigned to one of its members is answered GROUP_SUBSCRIBED_TO_TOPIC (Kafka decides from the members' subscriptions, which describe_groups does not show).
---
---```lua
----- billing is empty; drop its commits on payments partition 2, then on all of payments.
---delete_group_offsets("billing", {{topic = "payments", partition = 2}})
---print(#fetch_offsets("billing"))
---delete_group_offsets("billing", "payments")
---print(#fetch_offsets("billing"))
---```
---@param group string the group whose commits are deleted
---@param topics string|kadmin.delete_group_offsets.topics|(string|kadmin.delete_group_offsets.topics)[] whole topics (by name) and single partitions ({topic=, partition=})
---@param options? kadmin.delete_group_offsets.options
---@return kadmin.delete_group_offsets.result[]
function delete_group_offsets(group, topics, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete groups and their committed offsets.
---
---A group with live members fails with NON_EMPTY_GROUP (stop its consumers first); a missing one with GROUP_ID_NOT_FOUND unless if_exists=true (missing=true). A streams group is deleted like a consumer group (once the application's instances are stopped); its internal topics (repartition and changelog topics, see describe_streams_groups) stay: kafka-streams-groups.sh --delete deletes them too, delete_topics does here.
---
---Under --dry-run nothing is deleted: each group is checked to exist and to have no members.
---
---```lua
---commit_offsets("scratch-group", {{topic = "orders", partition = 0, offset = 0}})
---delete_groups("scratch-group")
---```
---@param groups string|string[] the groups to delete
---@param options? kadmin.delete_groups.options
---@return kadmin.delete_groups.result[]
function delete_groups(groups, options) end

---Describe groups: state, assignor, members and their assigned partitions.
---
---groups is a group name or an array of names. Classic groups and KIP-848 consumer groups (and share groups) are described alike: the group's type, from list_groups, picks the request. A streams group fails with GROUP_ID_NOT_FOUND saying it is one: describe_streams_groups describes it (its tasks and topology have no place here). protocol is the assignor (range, cooperative-sticky, uniform...). instance_id is nil unless the member uses static membership. Members are sorted by instance_id then member_id, assignments by topic and partition.
---
---A group that does not exist fails with GROUP_ID_NOT_FOUND (the other groups are still described: see err.results, or pass {partial=true}).
---
---```lua
---local g = describe_groups("orders-processor")[1]
---print(g.group, g.state, #g.members)
---```
---@param groups string|string[] the groups to describe
---@param options? kadmin.describe_groups.options
---@return kadmin.describe_groups.result[]
function describe_groups(groups, options) end

---Alias of `describe_groups`.
---
---Describe groups: state, assignor, members and their assigned partitions.
---
---groups is a group name or an array of names. Classic groups and KIP-848 consumer groups (and share groups) are described alike: the group's type, from list_groups, picks the request. A streams group fails with GROUP_ID_NOT_FOUND saying it is one: describe_streams_groups describes it (its tasks and topology have no place here). protocol is the assignor (range, cooperative-sticky, uniform...). instance_id is nil unless the member uses static membership. Members are sorted by instance_id then member_id, assignments by topic and partition.
---
---A group that does not exist fails with GROUP_ID_NOT_FOUND (the other groups are still described: see err.results, or pass {partial=true}).
---
---```lua
---local g = describe_groups("orders-processor")[1]
---print(g.group, g.state, #g.members)
---```
---@param groups string|string[] the groups to describe
---@param options? kadmin.describe_groups.options
---@return kadmin.describe_groups.result[]
function describe_consumer_groups(groups, options) end

---Describe Kafka Streams applications' groups (KIP-1071): topology, members and their tasks.
---
---groups is a group name or an array of names: the application.id of Kafka Streams applications running with group.protocol=streams. What kafka-streams-groups.sh --describe shows (--state, --members --verbose), with Kafka's names: state (Empty, NotReady, Assigning, Reconciling, Stable), group_epoch, target_assignment_epoch, topology_epoch.
---
---topology_ready is false while the broker cannot run the topology: state NotReady (a source topic missing or not co-partitioned, internal topics not created yet) or no topology received yet; subtopologies is then empty. Each subtopology lists its source_topics, the repartition topics it reads (repartition_source_topics) and writes (repartition_sink_topics), and its state stores' changelog_topics, with the partition counts the topology asks for (0: left to the source topics).
---
---Each member is a stream thread of an application instance (process_id); member_epoch and topology_epoch are the ones it runs; member_protocol is "classic" for a member not yet on the streams protocol. Its tasks are given per subtopology with their partitions: active_tasks process records, standby_tasks keep a copy of the state, warmup_tasks build one before taking over; the target_ ones are the assignment the broker is moving it to. assignment is what its active tasks consume: each task's partition of its subtopology's source and repartition topics, as in describe_groups. Members are sorted by process_id then member_id.
---
---Offsets are committed as a consumer group's: fetch_offsets, lag (the source and repartition topics), reset_offsets, delete_group_offsets and delete_groups take a streams group by name. describe_groups does not describe one: it fails naming the type, as this function fails for a group of another type. A group that does not exist fails with GROUP_ID_NOT_FOUND (see err.results, or pass {partial=true}).
---
---Kafka 4.1 has streams groups as early access: its brokers answer only when started with unstable.api.versions.enable=true and unstable.feature.versions.enable=true, and with streams.version raised to 1 (update_features); from Kafka 4.2 they are on.
---
---```lua
---local ok, err = pcall(describe_streams_groups, "wordcount-app")
---print(ok or err.code)
---```
---@param groups string|string[] the streams groups to describe
---@param options? kadmin.describe_streams_groups.options
---@return kadmin.describe_streams_groups.result[]
function describe_streams_groups(groups, options) end

---A group's committed offsets, sorted by topic and partition.
---
---Without topics: every partition the group has committed to. With topics (a name or an array): every partition of those topics, offset -1 (and leader_epoch -1) where the group has no commit; a missing topic fails with UNKNOWN_TOPIC_OR_PARTITION.
---
---A group that does not exist has no commits: the result is empty, as Kafka answers. COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE are retried until the deadline.
---
---```lua
---for _, o in ipairs(fetch_offsets("orders-processor")) do print(o.topic, o.partition, o.offset) end
---```
---@param group string the group whose commits are read
---@param topics? string|string[]|kadmin.fetch_offsets.options every partition of these topics, committed or not (default: the partitions the group committed to)
---@param options? kadmin.fetch_offsets.options
---@return kadmin.fetch_offsets.result[]
function fetch_offsets(group, topics, options) end

---Alias of `fetch_offsets`.
---
---A group's committed offsets, sorted by topic and partition.
---
---Without topics: every partition the group has committed to. With topics (a name or an array): every partition of those topics, offset -1 (and leader_epoch -1) where the group has no commit; a missing topic fails with UNKNOWN_TOPIC_OR_PARTITION.
---
---A group that does not exist has no commits: the result is empty, as Kafka answers. COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE are retried until the deadline.
---
---```lua
---for _, o in ipairs(fetch_offsets("orders-processor")) do print(o.topic, o.partition, o.offset) end
---```
---@param group string the group whose commits are read
---@param topics? string|string[]|kadmin.fetch_offsets.options every partition of these topics, committed or not (default: the partitions the group committed to)
---@param options? kadmin.fetch_offsets.options
---@return kadmin.fetch_offsets.result[]
function list_consumer_group_offsets(group, topics, options) end

---Consumer lag per group and partition.
---
---Without groups: every consumer group (classic and KIP-848) and every streams group (Kafka Streams applications with group.protocol=streams, KIP-1071). A group's partitions are those assigned to its members, those it has committed to, and the other partitions of those topics; member_id and client_id are nil where no member is assigned. A streams group's are every partition of the topics its topology consumes (its source topics and the repartition topics it reads: those kafka-streams-groups.sh --describe lists), committed or not, a member's being those its active tasks consume.
---
---committed is -1 where the group has no commit; lag is then counted from the partition's start offset (what a consumer starting at "earliest" would read), unless no_commit="skip": then lag is -1 and total_lag leaves it out, so that totals match kafka-consumer-groups --describe, which prints "-" for such a partition. lag is end_offset - committed, never below 0; total_lag sums the group's lags.
---
---A partition whose end offset cannot be listed gets lag -1 and an error, and fails its group (raised unless {partial=true}); partitions of deleted topics keep their UNKNOWN_TOPIC_OR_PARTITION error without failing the group.
---
---{time=true} adds the lag in time, exactly, from the records themselves: for each lagging partition the first record the group has not read (at its committed offset, or at the log start without a commit; after a compaction gap or a transaction marker, the next record) is read with one small Fetch per leader broker (nothing joins the group or commits). oldest_unconsumed is that record's timestamp (ms), timestamp_type says whether it is CreateTime (the producer's) or LogAppendTime (the broker's), lag_ms is now minus it, and behind_head_ms the partition's newest timestamp (ListOffsets max_timestamp) minus it. A caught-up partition has lag_ms=0; the group's max_lag_ms is the largest. Where no record can be read, time_unknown says why (only markers and aborted records up to the end; or the records were deleted unread and none is left) and the time fields stay nil: nothing is estimated. So they do where the record's timestamp says nothing of its age: a negative one (-1: a record without a timestamp, which Kafka allows; it read as 56 years) or one more than a minute ahead of this machine's clock (it read as 0, a stuck consumer as caught up); a record up to a minute ahead is taken as clock skew, lag_ms 0. The group's odd_timestamps counts those partitions; max_lag_ms leaves them out, and is nil when no other lagging partition has a lag in time. Records deleted before the group read them (records_lost) are lag: the partition's lag_ms is the age of the oldest record left, a floor, and time_unknown says the lag is more; sort = "lag_ms" puts such partitions, and their groups, first.
---
---To look at the worst first: only_lagging=true leaves out the partitions that do not lag (and the groups left with none), sort="lag" (or "lag_ms", with time) orders the groups and their partitions worst first, and top=N keeps each group's N worst partitions; total_lag and the other totals still count every partition.
---
---Data at risk: records_lost (with or without time) is how many records were deleted before the group read them: the log start minus the committed offset, where that is positive; the group's records_lost sums them. With time, at_risk=true marks a partition whose unread records will soon be deleted, and at_risk_by names the config: "retention.ms" when its lag in time has reached at_risk (default 0.8) of the topic's retention.ms; "retention.bytes" when the partition's size (describe_log_dirs, its largest replica) has reached at_risk of the topic's retention.bytes and the committed offset is in its oldest segment, the next one deleted (segments are not visible through the admin API: the place of the committed offset is estimated at the partition's mean record size, within segment.bytes of the log start). The group's at_risk counts them.
---
---When and how many, on each partition at risk (estimates: Kafka deletes whole log segments, which the admin API does not show): next_deletion_ms is the time until retention next deletes the partition's oldest segment, next_deletion_by the config that deletes it, and next_deletion_records how many of the group's unread records go with it (0: none of them; a later deletion takes them). The oldest segment is taken to hold segment.bytes at the partition's mean record size, and to end before the first record stamped segment.ms after its oldest (list_offsets by timestamp); retention.ms deletes it when its newest record (read) is retention.ms old; retention.bytes once the partition holds retention.bytes besides it, at the pace it grew (its size over the span of its records' timestamps), and a partition already past the limit loses every whole segment over it. next_deletion_ms=0 means due: the broker deletes at its next retention check (log.retention.check.interval.ms, 5 minutes by default); while the oldest segment is still the one being written, each new record puts its deletion later. Where an estimate cannot be made (the partition's size and oldest timestamp unreadable, timestamps negative or in the future, no span of time to measure a pace by) it is nil and next_deletion_unknown says why: never 0.
---
---Tiered storage (KIP-405): with time, reading_remote=true marks a partition whose first unread record is no longer on the brokers' disks, only in remote storage (below earliest_local, the partition's earliest local offset, given for topics with remote.storage.enable=true): the group reads from object storage, slower and costlier, long before it loses anything. remote_only counts the unread records that are only in remote storage. Both are nil on a topic without tiered storage, false and 0 on a partition of a tiered topic that does not lag, and nil where it cannot be known, with remote_unknown saying why (the earliest local offset or the topic's configs could not be read). The group's reading_remote counts the partitions reading from remote storage and remote_only sums theirs; its remote_unknown counts the lagging partitions of which it is not known, for which reading_remote does not speak. Data at risk is judged against the whole log, which retention.ms and retention.bytes bound (local.retention.ms and local.retention.bytes only decide what stays on disk): for a tiered partition the size against retention.bytes is the local size (describe_log_dirs counts only local segments) over its local records, times all its records, an estimate, and a partition whose local records cannot be counted is judged by time alone.
---
---Stuck: with time, stuck_ms is how long the committed offset has not moved while the partition lags, read from the state store's samples (those lag_status took, in this process or in the --state file), where that window with this reading added is judged STALL or STOP (see lag_status); nil where the store has no earlier sample at that offset, and where it is judged OK or WARN: a consumer that keeps up stands still between its commits too. Within one call, observe=N (seconds, with or without time) reads the commits of the lagging groups again N seconds after the call began (Ctrl-C ends the wait): a lagging partition whose committed offset is still where it was has stuck_ms of at least N (the store's figure when longer), and one that moved has none, whatever the store said; the rows are the first reading's. A consumer commits every few seconds (Java's auto-commit: 5 s), so N should be longer than that. peek(topic, partition, {group = G}) shows the record it is stuck on; the skip-record runbook skips it.
---
---At scale: the groups are listed once, and match and exclude (RE2 on the group name, unanchored) and states (as list_groups says them) choose them right there, before any group is described or any offset asked for. They are then read a page of 2,000 groups at a time (their descriptions and commits, then their topics' start and end offsets), so the requests grow with the pages, not the groups. summary=true gives one row per group instead of its partitions: group, state, total_lag, max_lag (the most a partition lags), partition_count, lagging (how many lag), worst_topic and worst_partition (the partition lagging most; nil when none lags), max_lag_ms with time, records_lost, at_risk, failed_in and error; no partitions. Each page's partitions are let go once summed: 65,000 groups of 40 partitions are 65,000 rows. sort orders the summaries worst first; only_lagging leaves out groups without lag. iterate=true returns an iterator instead (for g in lag(nil, {iterate = true}) do ... end): the rows come a page at a time, in group order (sort then orders each group's partitions only), and a loop that keeps none holds one page. A group listed but deleted before its page was read is left out (as if listed a moment later). failed_in names the phase a group's error came from (describe_groups, fetch_offsets, list_offsets, first_records): nothing of it is computed from the other phases, and the error the read raises says it too ("2 of 6 failed in fetch_offsets: g0, g2"). A coordinator that timed out on a page is not asked again in later pages of the call: its groups fail with TIMEOUT saying so, rather than each page waiting the whole timeout. observe needs every partition: not with summary or iterate.
---
---```lua
---for _, g in ipairs(lag()) do print(g.group, g.state, g.total_lag) end
---for _, g in ipairs(lag("orders-processor", {time = true})) do print(g.group, g.max_lag_ms .. " ms behind") end
---for _, p in ipairs(lag("orders-processor", {observe = 2})[1].partitions) do
---  if p.stuck_ms then print(p.topic, p.partition, "stuck at", p.committed) end
---end
---local worst = lag(nil, {only_lagging = true, sort = "lag", top = 1})
---print(worst[1].group, worst[1].partitions[1].topic, worst[1].partitions[1].partition, worst[1].partitions[1].lag)
---for g in lag(nil, {summary = true, iterate = true, match = "^orders"}) do
---  print(g.group, g.total_lag, g.max_lag, g.worst_topic, g.worst_partition)
---end
---```
---@param groups? string|string[]|kadmin.lag.options the groups (default: every consumer and streams group)
---@param options? kadmin.lag.options
---@return kadmin.lag.result[]
function lag(groups, options) end

---Judge one partition's lag over a window of samples with Burrow's rules: OK, WARN, STALL, STOP or REWIND.
---
---Needs no cluster: it judges the samples it is given. samples is one partition's window, oldest first, each {offset=, time=, lag=}: the committed offset, when it was sampled (ms) and the lag then (nil or -1 when unknown); a sample with offset -1 (no commit, as lag() says) is left out. The rules are Burrow's, in its order, and rule names the one that decided:
---
---within_allowed_lag (OK): the current lag is at most allowed_lag; stopped (STOP): no commit for longer than the window spans (without committing: the offset has stood still one and a half times as long as the longest it stood still between its moves in the window), unless a recent end offset is at or below the newest committed offset (the consumer was caught up a moment ago); rewound (REWIND): the offset went back and has not come back up; lag_zero_in_window (OK): the lag was at most allowed_lag somewhere in the window, so the rules below are skipped; window_too_short (OK): the samples span no time; within_usual_pause (OK, without committing): the offset never moved but has not stood still for longer than stopped allows; stalled (STALL, with committing): the offset never moved; recently_caught_up (OK): the lag never decreased, but a recent end offset is at or below the newest committed offset; lag_not_decreasing (WARN): the offset moves but the lag never decreased; lag_decreasing (OK): otherwise. no_samples and lag_unknown (OK) say there was nothing to judge.
---
---Samples are not commits: without committing, the last commit is when the offset was first seen at its newest value, and a consumer whose offset stands still reads STOP once it has stood still half as long again as it did between its moves (from runs a minute apart and moving each run: at the second run it did not). committing=true says each sample stands for a commit (a live member owns the partition and commits, moving or not), as Burrow sees commits: standing still then reads STALL, and STOP is Burrow's own rule. lag_status also uses what its state store remembers of the offset from before the window. Samples are used in the order given; a time earlier than the sample before it (a clock stepped back) counts as that sample's time, and a now before the newest sample as the newest sample's time. docs/decisions.md ("Lag verdicts") says why.
---
---```lua
---local samples = {
---  {offset = 100, time = 0, lag = 50}, {offset = 200, time = 60000, lag = 60}, {offset = 300, time = 120000, lag = 80},
---  {offset = 300, time = 180000, lag = 90}, {offset = 300, time = 240000, lag = 95}, {offset = 300, time = 300000, lag = 99},
---}
---local v = lag_evaluate(samples, {now = 300000})
---print(v.status, v.rule)
---print(lag_evaluate(samples, {now = 300000, committing = true}).status)
---print(lag_evaluate(samples, {now = 300000, end_offsets = {300, 399}}).status)
---return v.status == "STOP"
---```
---@param samples kadmin.lag_evaluate.samples[] one partition's window of samples, oldest first
---@param options? kadmin.lag_evaluate.options
---@return kadmin.lag_evaluate.result
function lag_evaluate(samples, options) end

---Consumer lag judged over time: Burrow's verdicts (OK, WARN, STALL, STOP, REWIND) from samples kept between runs.
---
---Each call samples every partition's lag now (as lag() does), adds the sample to the state store (--state FILE keeps it between runs; without it the store lives as long as the process: the REPL, a loop) and judges each partition's window of samples with Burrow's rules (see lag_evaluate): OK, WARN (the offset moves but the lag never falls), STALL (the offset never moves and the lag is never zero), STOP (no commit for longer than the window spans, while behind) or REWIND (the offset went back). A group is ERR when any partition is STOP, STALL or REWIND, WARN when any is WARN, else OK; NOTFOUND when it does not exist (its samples are dropped, so a group made again starts afresh).
---
---max_lag and max_lag_ms add thresholds: a group past either is ERR whatever its trend, and reason says which; a group that lost records (deleted before it read them) is ERR under max_lag_ms, since how far behind it is cannot be known. reason also names the worst partition and its rule; worst lists the worst partitions (ERR-making first, then by lag). records_lost, at_risk, reading_remote, remote_only, remote_unknown and odd_timestamps are lag()'s (with time, max_lag_ms leaves out partitions whose first unread record has a negative or future timestamp). A partition's stuck_ms is how long its committed offset has not moved while it lags (from the window), on partitions judged STALL or STOP: nil on the others (a healthy consumer's offset stands still between its commits) and with one sample.
---
---The window is a span of time (--state-window, 45 s by default: Burrow's 10 commits at Java's 5 s auto-commit): a partition's samples taken within it, and the newest one before it, so that from cron (runs further apart than the window) each verdict compares this run with the one before. A partition's window_ms is the time its window covers and complete that over --state-window (at most 1: Burrow's "complete", in time); the group's are its least complete partition's, samples its longest window's. With min_complete, a lagging partition on a part of a window is not judged (rule window_incomplete) and incomplete counts them: the group's status does not speak for them, and reason says so. state_file is true when the samples are kept in a --state file for the next run.
---
---consume_rate and produce_rate are records per second between the oldest and newest samples of the window (summed over the partitions); trend is "falling" (consumed faster than produced), "rising", "steady" or "unknown" (fewer than two samples); eta_seconds is when the lag will be zero at those rates, while it falls.
---
---Samples are kept at least a second apart (Burrow's min-distance: one taken sooner after the newest is merged into it, which keeps its time, and the partition is judged as of it), and at most --state-samples of them a window (a fast loop's window is thinned, not shortened). A partition whose end offset went back (the topic was deleted and made again) or whose samples are newer than now (the clock went back) starts a new window and says so in reset. A partition without a commit is not judged (Burrow sees only commits): OK, rule "no_commit". Changes nothing in the cluster.
---
---At scale, as lag: match, exclude and states choose the groups right after listing; the groups are read a page at a time, each page recorded and judged while the next is read, and the --state file is written once, behind the run. max_lag is the most a partition lags. summary=true leaves out worst and partitions and names the worst partition in worst_topic and worst_partition: one small row per group. iterate=true returns an iterator (for g in lag_status(nil, {summary = true, iterate = true}) do ... end); the file is written once the loop has gone through every row. A group whose read failed (error, failed_in names the phase) is ERR with the error as its reason and is not sampled: nothing is judged from half of it.
---
---```lua
---local s = lag_status("orders-processor", {max_lag = 100000})
---print(s[1].group, s[1].status, s[1].trend, s[1].reason)
---for _, g in ipairs(lag_status()) do
---  if g.status ~= "OK" then print(g.group, g.status, g.reason) end
---end
---for g in lag_status(nil, {summary = true, iterate = true}) do
---  if g.status ~= "OK" then print(g.group, g.status, g.total_lag, g.max_lag, g.worst_topic, g.worst_partition) end
---end
---```
---@param groups? string|string[]|kadmin.lag_status.options the groups (default: every consumer and streams group)
---@param options? kadmin.lag_status.options
---@return kadmin.lag_status.result[]
function lag_status(groups, options) end

---List consumer groups (and share/streams groups), sorted by name.
---
---states keeps groups in those states (Stable, Empty, PreparingRebalance, CompletingRebalance, Dead, Assigning, Reconciling, NotReady); types keeps groups of those types (classic, consumer for KIP-848 groups, share, streams). Names are case-insensitive: "stable" is "Stable".
---
---type is "classic" on brokers older than Kafka 3.8, which do not report it. coordinator is the id of the broker coordinating the group.
---
---```lua
---for _, g in ipairs(list_groups{states = {"stable", "empty"}}) do print(g.group, g.state, g.type) end
---```
---@param options? kadmin.list_groups.options
---@return kadmin.list_groups.result[]
function list_groups(options) end

---Alias of `list_groups`.
---
---List consumer groups (and share/streams groups), sorted by name.
---
---states keeps groups in those states (Stable, Empty, PreparingRebalance, CompletingRebalance, Dead, Assigning, Reconciling, NotReady); types keeps groups of those types (classic, consumer for KIP-848 groups, share, streams). Names are case-insensitive: "stable" is "Stable".
---
---type is "classic" on brokers older than Kafka 3.8, which do not report it. coordinator is the id of the broker coordinating the group.
---
---```lua
---for _, g in ipairs(list_groups{states = {"stable", "empty"}}) do print(g.group, g.state, g.type) end
---```
---@param options? kadmin.list_groups.options
---@return kadmin.list_groups.result[]
function list_consumer_groups(options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Remove members from a group (LeaveGroup on their behalf), or all of them.
---
---members is an array of {instance_id=} (static members, KIP-345) and/or {member_id=} (dynamic members, as describe_groups shows them; Kafka 2.6+), or one such record. Without members, every current member is removed, each by its instance_id when it has one and by its member_id otherwise, as the Java Admin's removeMembersFromConsumerGroup does; a group without members gives an empty result.
---
---A removed member's consumer, if it is still running, rejoins at once with a new member_id: this is for members that are gone but not yet expired (a crashed consumer, a static member within session.timeout.ms), or to force a rebalance. A member that is not in the group fails with UNKNOWN_MEMBER_ID (the others are still removed: see err.results, or pass {partial=true}); a group that does not exist fails with GROUP_ID_NOT_FOUND.
---
---Under --dry-run nothing changes: the group and each member are checked to exist. Results are sorted by instance_id (static members first), then member_id.
---
---```lua
----- orders-processor has one live member; remove it (it rejoins: the demo consumer is still running).
---local d = describe_groups("orders-processor")[1]
---for _, r in ipairs(remove_group_members("orders-processor", {{member_id = d.members[1].member_id}})) do
---  print(r.group, r.member_id, r.error)
---end
---```
---@param group string the group
---@param members? table|kadmin.remove_group_members.options the members to remove (default: every current member)
---@param options? kadmin.remove_group_members.options
---@return kadmin.remove_group_members.result[]
function remove_group_members(group, members, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Reset a group's offsets: to earliest, latest, an offset, a shift, a time, another group's, a file's.
---
---to is one of:
---
---  "earliest": the log start offset; "latest": the end (high watermark);
---
---  "current": the committed offset (the end where nothing is committed, as kafka-consumer-groups does);
---
---  {offset=N}: offset N on every partition; {shift=N}: the committed offset moved by N (negative goes back; a partition without a commit fails);
---
---  {timestamp=ms}: the first offset whose record is at or after ms (milliseconds since the epoch); the end where no record is that recent;
---
---  {datetime="2026-11-30T10:00:00Z"}: the same for an RFC 3339 time (the zone is required);
---
---  {duration="-1h"}: the same for now minus a duration, in Go's syntax ("-1h30m", "90m") or ISO-8601's ("PT1H", "P1DT2H"); the sign is optional and the time is always in the past, as kafka-consumer-groups --by-duration;
---
---  {group="other-group"}: the other group's committed offsets;
---
---  {file="offsets.csv"}: a CSV of topic,partition,offset lines (kafka-consumer-groups --export output; an optional header line, # comments). A relative path is relative to the current directory.
---
---topics is a topic name, or an array of names (all their partitions) and/or {topic=, partition=} records. Without topics: the partitions in the other group or the file for {group=} and {file=}, else the partitions the group has committed offsets for. Every partition in scope needs a target: one missing from the file or the other group fails with NOT_FOUND.
---
---Every target is clamped to the partition's [earliest, latest] (clamped=true says it was). current is the committed offset before the reset (-1 where none); target is -1 where none could be worked out (see the row's error).
---
---The plan is worked out completely before anything changes; if any row has no target, nothing is committed and the call raises that row's error (with partial=true it returns the plan instead, the failed rows carrying their error). Otherwise the targets are committed (creating the group if it does not exist) and each row carries its commit's error. dry_run=true (or --dry-run, kafka.dry_run(true)) returns the plan and commits nothing.
---
---A group with live members is refused with NON_EMPTY_GROUP before anything is worked out (under dry-run too): Kafka rejects admin commits to it (UNKNOWN_MEMBER_ID), and kafka-consumer-groups refuses as well. force=true removes the members first (as remove_group_members(group) does), waits until the group is empty, then commits. It is meant for members whose consumers are gone but not yet expired (crashed consumers, static members within session.timeout.ms). Consumers still running learn of their removal at their next heartbeat, their commits under the old member id are refused, and they rejoin and resume from the reset offsets, dropping whatever they were processing; one that rejoins before the commit makes the call fail (TIMEOUT waiting for the group to empty, or UNKNOWN_MEMBER_ID on the commit). Stopping the consumers first remains the safe way.
---
---A streams group (a Kafka Streams application, KIP-1071) is reset the same way once the application's instances are stopped, as kafka-streams-groups.sh --reset-offsets requires; force cannot remove its members (Kafka has no admin request for that). Its state stores are not reset with it: kafka-streams-groups.sh --execute also deletes the application's internal topics, which here is delete_topics' work (the topics are in describe_streams_groups), and the instances' local state is theirs (KafkaStreams#cleanUp).
---
---```lua
----- billing is empty: rewind it on payments by 5 records, then look at the plan for "earliest" without committing.
---for _, r in ipairs(reset_offsets{group = "billing", topics = "payments", to = {shift = -5}}) do
---  print(r.topic, r.partition, r.current, "->", r.target, r.clamped and "(clamped)" or "")
---end
---local plan = reset_offsets{group = "billing", to = "earliest", dry_run = true}
---print(#plan, plan[1].target)
----- Copy billing's offsets to a new group.
---reset_offsets{group = "billing-replay", to = {group = "billing"}}
---print(fetch_offsets("billing-replay")[1].offset)
---```
---@param args kadmin.reset_offsets.args
---@return kadmin.reset_offsets.result[]
function reset_offsets(args) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Elect partition leaders: move leadership back to the preferred replica, or (unclean) to any live replica.
---
---topics (a name or array: all their partitions), partitions ({{topic=, partition=}...}) or all=true (every partition in the cluster) say where; type is "preferred" (the default) or "unclean".
---
---A partition that already has the leader the election would pick comes back with not_needed=true: that is not a failure. leader is the partition's leader afterwards. A topic that does not exist gets a row with partition -1 and UNKNOWN_TOPIC_OR_PARTITION.
---
---Declared destructive because type="unclean" can elect an out-of-sync replica and lose committed records; the REPL asks before any election unless --yes. Kafka has no validate-only election: under --dry-run nothing is elected and each partition's current and preferred leader is planned.
---
---```lua
---for _, r in ipairs(elect_leaders{topics = "orders"}) do print(r.topic, r.partition, r.leader, r.not_needed) end
---```
---@param args kadmin.elect_leaders.args
---@return kadmin.elect_leaders.result[]
function elect_leaders(args) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Move replicas between log directories of their brokers (JBOD).
---
---moves is one move or an array of moves {topic=, partition=, broker=, dir=}: broker moves its replica of topic[partition] into dir, an absolute path among its log.dirs. The broker copies in the background; describe_log_dirs shows the copy as is_future until it takes over.
---
---Declared destructive: it moves data and loads the broker's disks. Kafka has no validate-only mode: under --dry-run each move is checked (the broker exists and has that dir) and nothing moves.
---
---```lua
---local d = describe_log_dirs{brokers = 0, topics = "orders"}[1]
---alter_replica_log_dirs{{topic = "orders", partition = 0, broker = 0, dir = d.dir}}
---```
---@param moves kadmin.alter_replica_log_dirs.moves|kadmin.alter_replica_log_dirs.moves[] the replicas to move
---@param options? kadmin.alter_replica_log_dirs.options
---@return kadmin.alter_replica_log_dirs.result[]
function alter_replica_log_dirs(moves, options) end

---Bytes on disk per broker (or per log dir): replicas, leaders, and the volumes' size and free space.
---
---From describe_log_dirs and the metadata. bytes sums the replicas on the broker (or in the dir), leader_bytes those it leads; replicas and leaders count them; dirs is the broker's log dirs; total_bytes and usable_bytes are the volumes' size and free space summed over its dirs (-1 when the broker does not say: Kafka before 3.3). rack is the broker's rack ("" for none).
---
---Every broker is a row, one that holds nothing included. A broker that cannot be asked (or an offline log dir) gets its error, bytes -1 and, per broker, the replicas and leaders the metadata gives it; the call then raises unless {partial=true}. per="dir" gives a row per log dir, sorted by broker then dir.
---
---```lua
---for _, b in ipairs(broker_sizes()) do print(b.broker, b.rack, b.replicas, b.leaders, b.bytes) end
---return #broker_sizes(nil, {per = "dir"}) >= 3
---```
---@param topics? string|string[]|kadmin.broker_sizes.options count only these topics' replicas (every topic when left out)
---@param options? kadmin.broker_sizes.options
---@return kadmin.broker_sizes.result[]
function broker_sizes(topics, options) end

---Describe brokers' log directories and the replicas in them: a row per broker and dir.
---
---brokers (an id or array of ids) defaults to every broker, topics (a name or array: all their partitions) to every partition. Rows are sorted by broker then dir, partitions by topic then partition.
---
---size is in bytes; offset_lag is how far a replica is behind its log end (for a future replica: behind the replica it replaces); is_future marks a replica being moved into this dir by alter_replica_log_dirs. total_bytes and usable_bytes are -1 from brokers older than Kafka 3.3.
---
---A broker that fails (or is not in the cluster: BROKER_NOT_AVAILABLE) gets a row with dir "" and its error; an offline dir (KAFKA_STORAGE_ERROR) a row with its error.
---
---```lua
---for _, d in ipairs(describe_log_dirs{topics = "orders"}) do print(d.broker, d.dir, #d.partitions) end
---```
---@param query? kadmin.describe_log_dirs.query|kadmin.describe_log_dirs.options which brokers and topics (every one when left out)
---@param options? kadmin.describe_log_dirs.options
---@return kadmin.describe_log_dirs.result[]
function describe_log_dirs(query, options) end

---Tiered storage (KIP-405) per topic: what is only in remote storage, what waits to be copied, local against total size, and the retention horizons.
---
---A row per topic, sorted by name: every topic with remote.storage.enable=true when none are named; a named topic without it has remote_storage=false and no partitions.
---
---The horizons: retention_ms and retention_bytes bound the whole log, local and remote: they are what data at risk is judged against (lag's at_risk; at_risk_against says so); local_retention_ms and local_retention_bytes only decide what stays on the brokers' disks (Kafka's -2, "as the whole log", is given as the whole log's value; -1 is no limit).
---
---Per partition, from list_offsets: log_start is the oldest record anywhere, earliest_local the oldest on the brokers' disks, latest_tiered the last offset copied to remote storage (-1: none yet, or Kafka before 3.9), earliest_pending_upload the first not yet copied (Kafka 4.2+, KIP-1023; -1 and pending_upload nil where the broker does not report it). remote_only counts the records only in remote storage (log_start to earliest_local), local_records the rest, pending_upload those not yet copied.
---
---Sizes: local_bytes is the partition's largest replica on disk (describe_log_dirs counts local segments only; -1 when unread); total_bytes estimates the whole log at the local part's mean record size, and pending_upload_bytes the records pending upload the same way (nil when there is no local record to measure by). A topic's remote_only, local_bytes, total_bytes and pending_upload sum its partitions' (nil when one is unknown).
---
---A topic that does not exist, or whose configs or offsets cannot be read, gets its error, and the call raises unless {partial=true}.
---
---```lua
---for _, t in ipairs(describe_tiered_storage()) do
---  print(t.topic, t.remote_only .. " records only in remote storage", t.local_bytes, t.total_bytes)
---end
---local orders = describe_tiered_storage("orders")[1]
---return orders.remote_storage == false and #orders.partitions == 0
---```
---@param topics? string|string[]|kadmin.describe_tiered_storage.options a topic or an array of them (every topic with remote.storage.enable=true when left out)
---@param options? kadmin.describe_tiered_storage.options
---@return kadmin.describe_tiered_storage.result[]
function describe_tiered_storage(topics, options) end

---How evenly partitions, leaders and bytes are spread over the brokers and racks.
---
---A row per broker (one that holds nothing, such as a broker just added, included) with the replicas it holds (partitions), the partitions it leads (leaders) and its bytes on disk; a row per rack summing its brokers (racks is empty when no broker has a rack). spread is how uneven each is: the largest broker's over the mean, in percent, to one decimal: 100 is perfectly even, 150 a broker with half as much again as the mean (the figure kafka-ui and cruise-control call skew). rack_spread is the same over racks.
---
---partitions and leaders come from the metadata (the assignment), bytes from describe_log_dirs. A broker whose log dirs cannot be read has bytes -1 and its error, and is left out of bytes_pct. With topics, only their partitions count: the skew of one topic, or of a set of topics.
---
---```lua
---local s = skew()
---for _, b in ipairs(s.brokers) do print(b.broker, b.partitions, b.leaders, b.bytes) end
---print("leaders spread", s.spread.leaders_pct .. "%")
---return s.spread.partitions_pct >= 100
---```
---@param topics? string|string[] only these topics (the whole cluster when left out)
---@return kadmin.skew.result
function skew(topics) end

---Bytes on disk per topic (or per partition), every replica counted and the leaders' apart.
---
---From describe_log_dirs (every broker's replicas and their sizes) and the metadata (who leads each partition). bytes sums every replica, so a topic with replication factor 3 counts three times: the disk it takes; leader_bytes sums the leaders' replicas only: the data once. replicas counts the replicas measured, leaders the partitions whose leader's replica was measured (fewer than partitions when a partition has no leader), largest_replica_bytes is the biggest single replica.
---
---Rows per topic are sorted by bytes, largest first, then by name; per="partition" gives a row per partition with its partition and leader (-1: none), sorted by topic and partition. A replica being moved between log dirs of its broker (is_future in describe_log_dirs) counts in bytes but not as a replica.
---
---When a broker or a log dir cannot be read the call fails, naming it, since the sums would be short: broker_sizes shows every broker's state. Internal topics (__consumer_offsets) are included when no topics are named.
---
---For a topic in tiered storage (remote.storage.enable=true) the bytes are the local segments only, what describe_log_dirs counts: describe_tiered_storage gives the local against the whole log's (estimated) and what is only in remote storage.
---
---```lua
---for _, t in ipairs(topic_sizes()) do print(t.topic, t.bytes, t.leader_bytes) end
---local p = topic_sizes("orders", {per = "partition"})
---return #p == 6 and p[1].partition == 0
---```
---@param topics? string|string[]|kadmin.topic_sizes.options a topic or an array of them (every topic when left out)
---@param options? kadmin.topic_sizes.options
---@return kadmin.topic_sizes.result[]
function topic_sizes(topics, options) end

---List an offset of every partition of topics: earliest, latest, at a time, ...
---
---topics is a topic name or an array of names. at is one of:
---
---  "latest" (default): the high watermark, the offset the next record will get;
---
---  "earliest": the log start offset;
---
---  "committed": the last stable offset, the end a read_committed consumer sees;
---
---  "max_timestamp": the record with the largest timestamp (and that timestamp);
---
---  "earliest_local": the first offset still on the brokers' disks (tiered storage);
---
---  "latest_tiered": the last offset copied to remote storage (-1 when nothing is tiered);
---
---  "earliest_pending_upload": the first offset not yet copied to remote storage (KIP-1023, Kafka 4.2+; -1 when the topic is not tiered; older brokers answer UNSUPPORTED_VERSION);
---
---  {timestamp=ms}: the first offset whose record timestamp is at or after ms (milliseconds since the epoch, as kafka.now() gives).
---
---For {timestamp=ms}, a partition with no record at or after the time answers its end offset (the high watermark) with timestamp=-1: the position a consumer seeking to that time starts from, as kafka-consumer-groups --reset-offsets --to-datetime does (Kafka's raw answer, and kafka-get-offsets' output, is -1).
---
---timestamp is -1 unless the query was by time or max_timestamp; leader_epoch is -1 when unknown. Results are sorted by topic then partition.
---
---topics may instead give each partition its own time, {orders = {[0] = ms, [3] = ms}, payments = {[1] = ms}}: those partitions only, each listed at its time (as {timestamp=ms} does for one), in one request per leader broker; at is then not given.
---
---A topic that does not exist fails with UNKNOWN_TOPIC_OR_PARTITION (its result has partition=-1; the other topics are still listed: see err.results, or pass {partial=true}, alone or with a timestamp: {timestamp=ms, partial=true}). Partitions whose leader is moving (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER) are asked again until the call's deadline.
---
---At scale: topics nil lists every partition of the cluster (internal topics included); iterate=true returns an iterator over the rows instead (for o in list_offsets(nil, "latest", {iterate = true}) do ... end), the partitions described and listed a page of about 20,000 at a time, each page within the call's timeout, so no table of every partition is held. match and exclude (RE2 on the topic name, unanchored) leave topics out before their partitions are listed.
---
---```lua
---for _, o in ipairs(list_offsets("payments", "earliest")) do print(o.partition, o.offset) end
---local hour_ago = kafka.now() - 3600 * 1000
---local at = list_offsets({"orders"}, {timestamp = hour_ago})
---print(#at, at[1].offset)
---local each = list_offsets{orders = {[0] = hour_ago, [1] = kafka.now() - 60 * 1000}}
---print(each[1].partition, each[1].offset, each[2].partition, each[2].offset)
---```
---@param topics? string|string[]|kadmin.list_offsets.options every partition of these topics (every topic when nil), or {topic = {[partition] = ms}}: each partition at its own time
---@param at? "earliest"|"latest"|"max_timestamp"|"earliest_local"|"latest_tiered"|"earliest_pending_upload"|"committed"|kadmin.list_offsets.at|kadmin.list_offsets.options which offset (default "latest"; see below)
---@param options? kadmin.list_offsets.options
---@return kadmin.list_offsets.result[]
function list_offsets(topics, at, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Set and remove client quotas.
---
---entries is one entry or an array of entries {entity={user=, client_id=, ip=}, set={key=number}, remove={"key"}}. An entity name "<default>" (or "" or kafka.json.null) means the type's default entity: {user="<default>"} is the quota every user without its own gets.
---
---Removing a quota an entity does not have is not an error. validate_only=true (and --dry-run) asks the broker to check without changing anything.
---
---```lua
---alter_client_quotas{
---  {entity = {user = "alice", client_id = "reporting"}, set = {consumer_byte_rate = 2097152}},
---  {entity = {user = "<default>"}, set = {producer_byte_rate = 1048576}},
---}
---```
---@param entries kadmin.alter_client_quotas.entries|kadmin.alter_client_quotas.entries[] the entities and their quota changes
---@param options? kadmin.alter_client_quotas.options
---@return kadmin.alter_client_quotas.result[]
function alter_client_quotas(entries, options) end

---Describe client quotas (all of them without entities).
---
---entities is one entity filter or an array of them; each is {user=, client_id=, ip=} where a name matches that entity exactly, "<default>" (or "" or kafka.json.null) matches the type's default entity, and true matches every named entity of the type. A type left out is not constrained, unless strict=true (then entities with other types are left out).
---
---Results cover the entities matching any filter, sorted by entity; an entity's default parts read "<default>". Quota values are numbers (producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate, connection_creation_rate, ...).
---
---```lua
---alter_client_quotas{{entity = {user = "alice"}, set = {producer_byte_rate = 1048576}}}
---for _, q in ipairs(describe_client_quotas{user = "alice"}) do print(q.entity.user, q.quotas.producer_byte_rate) end
---```
---@param entities? kadmin.describe_client_quotas.entities|kadmin.describe_client_quotas.entities[]|kadmin.describe_client_quotas.options the entities to describe (every one when left out)
---@param options? kadmin.describe_client_quotas.options
---@return kadmin.describe_client_quotas.result[]
function describe_client_quotas(entities, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Move partitions to new replicas (data is copied to the new brokers).
---
---A row is {topic=, partition=, replicas={broker ids}}; the first replica is the preferred leader. A plan from plan_reassignment (or its partitions) is accepted as is: its rows' target is the new replicas.
---
---The call returns once Kafka has accepted the reassignments; the data moves in the background (see list_partition_reassignments and wait_reassignments). Under --dry-run nothing moves: each partition is checked to exist and each broker to be in the cluster.
---
---throttle=BYTES_PER_SEC sets the replication throttle first, as kafka-reassign-partitions --throttle does: leader.replication.throttled.rate and follower.replication.throttled.rate on every broker a moving replica leaves or joins, and on each moving topic leader.replication.throttled.replicas (partition:broker of the replicas copied from) and follower.replication.throttled.replicas (the new replicas), reassignments already in progress included. If the throttle cannot be set nothing is reassigned. Calling again with another throttle changes it. wait_reassignments removes the throttles once the moves are done; until then replication of those replicas stays limited.
---
---```lua
---local plan = plan_reassignment{topics = {"orders"}, brokers = {0, 1, 2}}
---if plan.moves > 0 then alter_partition_reassignments(plan, {throttle = 50 * 1024 * 1024}) end
---wait_reassignments{topics = {"orders"}}
---```
---@param rows kadmin.alter_partition_reassignments.rows|kadmin.alter_partition_reassignments.rows[] the partitions to move and their new replicas, or a plan from plan_reassignment
---@param options? kadmin.alter_partition_reassignments.options
---@return kadmin.alter_partition_reassignments.result[]
function alter_partition_reassignments(rows, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Cancel reassignments in progress: partitions go back to their original replicas.
---
---A row is {topic=, partition=}. A partition that is not being reassigned fails with NO_REASSIGNMENT_IN_PROGRESS.
---
---```lua
---local ok, err = pcall(cancel_partition_reassignments, {{topic = "orders", partition = 0}})
---print(ok or err.code)
---```
---@param rows kadmin.cancel_partition_reassignments.rows|kadmin.cancel_partition_reassignments.rows[] the partitions whose reassignment to cancel
---@param options? kadmin.cancel_partition_reassignments.options
---@return kadmin.cancel_partition_reassignments.result[]
function cancel_partition_reassignments(rows, options) end

---List the partition reassignments in progress.
---
---topics (a name or an array) keeps only those topics; without it every reassignment in the cluster is listed. replicas is the union of the old and new replicas while data moves.
---
---```lua
---for _, r in ipairs(list_partition_reassignments()) do print(r.topic, r.partition, #r.adding_replicas) end
---```
---@param topics? string|string[] only these topics; every reassignment in the cluster when left out
---@return kadmin.list_partition_reassignments.result[]
function list_partition_reassignments(topics) end

---Plan a reassignment: balanced by count or bytes, rack-aware, moving the fewest replicas; or a drain, a demote, a leader balance, a replication factor change.
---
---Spreads the topics' replicas and preferred leaders (first replicas) evenly over brokers (default: every broker), keeping each partition's replication factor and every replica that can stay: among balanced assignments it picks one with (nearly) the fewest replica moves. No two replicas of a partition share a rack when the brokers span enough racks (else at most an even share per rack); racks come from the cluster's broker racks unless given as {[broker_id]="rack"}; a broker without a rack counts as its own.
---
---by = "bytes" then evens out disk usage (each broker's log dirs' used bytes over their capacity, from DescribeLogDirs; Kafka 3.3+, else the replicas' bytes), moving or swapping the replicas whose sizes fit best, never a broker above max_disk_usage; min_partition_bytes and partition_limit limit the moves as topicmappr's size threshold and per-broker limit do. A plan whose moves would not narrow the usage spread moves nothing and says so in notes.
---
---replication_factor = N raises or lowers every partition to N replicas: new ones go last to the least loaded brokers of racks the partition does not use; a decrease removes a replica sharing a rack, else the most loaded broker's, never the leader. leaders_only = true moves no data: replicas are reordered so that in-sync replicas lead evenly.
---
---drain = {broker ids} (topics default to every topic) plans a decommission in two steps: leadership rows reorder the partitions the brokers lead so they come last, elect lists the partitions whose preferred leader to elect then; partitions move their replicas to the least loaded brokers left, within the rack rule. With leaders_only it is a demote: the reorders alone, as partitions.
---
---moves counts replicas copied to a broker that did not hold them, bytes what they copy; partitions lists only the partitions that change (replicas or preferred leader): passed straight to alter_partition_reassignments, the plan reaches its end state. brokers reports every broker's replicas, leaders and bytes before and after; steps says what carrying it out does, notes what the plan could not do or did not know. Nothing changes on the cluster. A replication factor larger than the broker count fails with INVALID_REPLICATION_FACTOR.
---
---```lua
---local plan = plan_reassignment{topics = {"orders", "payments"}, by = "bytes"}
---print(plan.moves .. " replicas move")
---for _, p in ipairs(plan.partitions) do print(p.topic, p.partition, table.concat(p.target, ",")) end
---local demote = plan_reassignment{drain = {2}, leaders_only = true} -- leadership off broker 2, no data moves
---for _, s in ipairs(demote.steps) do print(s) end
---```
---@param args kadmin.plan_reassignment.args
---@return kadmin.plan_reassignment.result
function plan_reassignment(args) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Move partitions to a plan's replicas, paced under caps, throttled, resumable and undoable.
---
---Carries a plan out in batches: at most max_moves_per_broker moves in flight that a broker takes part in (as a broker a replica joins or leaves), at most max_moves partitions moving in the cluster (every reassignment in progress counts, this run's or not), and leadership-only changes (the same replicas in another order) max_leader_moves at a time. The next moves are sent as earlier ones finish, smallest first (order = "small_first"; "large_first", "urgent_first": under-replicated partitions first, or "plan": as listed); a move to a broker that is down waits for it. Once a partition is moved its preferred leader is elected (elect_leaders = false leaves leadership as the move leaves it).
---
---The plan is checked first and refused whole, nothing sent, when a partition or broker is unknown, a broker a replica joins is down or fenced (BROKER_NOT_AVAILABLE), a partition's replicas are not those the plan was made against (STALE_PLAN: plan again), or a reassignment to another target is in progress on it (REASSIGNMENT_IN_PROGRESS); one already moving to its target is adopted and not sent again.
---
---throttle = BYTES_PER_SEC sets leader/follower.replication.throttled.rate on every broker a move touches and the throttled-replica lists on each moving topic while the run goes on, and lifts them when nothing of it moves any more. A function instead is called at each poll with the status and returns the rate, a table {[broker_id] = rate, all = rate}, or nil to keep it: the throttle can be raised or lowered while the run goes on. A rate set by hand on a broker (kafka-configs) is not set back unless the function changes it.
---
---Progress goes to stderr (the terminal's line, or a log line every 10 s): done, moving and queued partitions, bytes copied (the log dirs of the joining replicas) against bytes to copy, rate and ETA; a move whose bytes have not grown for stalled_after is flagged stalled by name and stays in flight. on_progress(status) gets the same as a table {run=, partitions=, done=, moving=, queued=, failed=, batches=, total_bytes=, copied_bytes=, rate_bytes=, eta_seconds=, stalled={...}, waiting_for_brokers={...}}.
---
---With --audit-log the run is written ahead: its intent line holds the plan and every partition's replicas before, each batch is an alter_partition_reassignments marked with the run's id, and the outcome line is written when nothing is left to move. After Ctrl-C, kill -9 or a lost connection, resume = true (or the run's id) reads the log and the cluster and finishes the run's own plan: nothing done or in flight is sent again. Ctrl-C stops sending, asks whether to cancel the moves in flight (with --yes, or with no terminal, they go on), and raises CANCELED naming the run to resume. kadmin-lua undo moves what the run completed back to where it was, through the same caps.
---
---Under --dry-run nothing is sent: the result says the batch each move would be in (if every batch finished before the next) and its bytes. The result is a row per partition: state "done", "moving", "queued" or "failed" (with its error). docs/moving-data.md tells more.
---
---```lua
---local plan = plan_reassignment{topics = {"orders"}}
---local rows = reassign(plan, {max_moves_per_broker = 2, throttle = 50 * 1024 * 1024})
---print(#rows .. " partitions moved")
---```
---@param plan? kadmin.reassign.plan[]|kadmin.reassign.options a plan from plan_reassignment, or rows {topic=, partition=, replicas=} (nil with resume: the run's own plan)
---@param options? kadmin.reassign.options
---@return kadmin.reassign.result[]
function reassign(plan, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Wait until no partition reassignment is in progress, then remove the replication throttles.
---
---Polls list_partition_reassignments (every interval_ms, default 1000) until none is in progress (of topics, when given) and returns the partitions that finished meanwhile, with their final replicas. timeout is milliseconds or a duration string like "30m" (default 30m); when it passes first the call raises TIMEOUT naming the partitions still moving.
---
---While it waits, progress goes to stderr: a kafka.log-style line every 10 s when stderr is not a terminal (a cron log shows a move of hours going on), a line kept up to date in place on a terminal. The line says how far the data has copied, in bytes and percent, where the log dirs show it: each replica being added against its source (the largest replica not being added), and each future replica (a move between log dirs) against the one it replaces: "2 partition(s) moving: orders[0] orders[3]; 5 finished; 1.2 GiB of 3.0 GiB copied (40.0%)".
---
---Then it removes the replication throttles, as kafka-reassign-partitions --verify does: leader/follower.replication.throttled.replicas on the topics waited for (every topic when topics is not given) and the throttle rates (leader/follower.replication.throttled.rate, replica.alter.log.dirs.io.max.bytes.per.second) on every broker, unless another reassignment is still in progress in the cluster (then the rates stay, and a line says so). Only configs set on the topic or broker itself are removed, and a line on stderr names them; keep_throttles=true leaves them; without the right to read configs a WARN line says they were not looked for. Under --dry-run it waits and only says what it would remove.
---
---```lua
---local done = wait_reassignments{timeout = "10m"}
---print(#done .. " partitions finished moving")
---```
---@param options? kadmin.wait_reassignments.options
---@return kadmin.wait_reassignments.result[]
function wait_reassignments(options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete a partition's records below an offset (move its log start offset).
---
---Each entry deletes the records of one partition below offset; offset=-1 means below the high watermark (everything written so far), as in Kafka. A single entry table is accepted without the outer array.
---
---low_watermark is the partition's new log start offset. An offset above the high watermark fails with OFFSET_OUT_OF_RANGE; a missing topic or partition with UNKNOWN_TOPIC_OR_PARTITION. Results are sorted by topic then partition; if any partition fails the call raises after deleting the others (err.results).
---
---Deleting below an offset is idempotent, so retriable errors (even REQUEST_TIMED_OUT) are retried until the deadline; with offset=-1 a retry deletes up to the high watermark of that moment.
---
---Kafka has no validate-only delete: under --dry-run each partition is checked to exist and its offset to be at most the high watermark, the plan says how many records would go, low_watermark is the one it would get, and nothing is deleted. An offset at or below the current low watermark deletes nothing (Kafka accepts it).
---
---In the REPL this asks for confirmation unless --yes.
---
---```lua
---create_topics({{name = "scratch-records", partitions = 1}}, {if_not_exists = true})
---local r = delete_records{{topic = "scratch-records", partition = 0, offset = -1}}
---print(r[1].topic, r[1].partition, r[1].low_watermark)
---```
---@param deletions kadmin.delete_records.deletions|kadmin.delete_records.deletions[] each partition and the offset below which its records go
---@param options? kadmin.delete_records.options
---@return kadmin.delete_records.result[]
function delete_records(deletions, options) end

---Read a few records of one partition, without a consumer group (read-only).
---
---from is an offset (an integer), "earliest" (the log start), "latest" (the last count records before the end: offsets high watermark - count up to it, as kcat -o -N does; fewer rows where transaction markers or compaction left gaps), {timestamp=ms} (the first record at or after the time; none when there is none) or {group="G"} (that group's committed offset on the partition: the next record it would read).
---
---Each row has offset, timestamp (ms) and timestamp_type (CreateTime or LogAppendTime), key (nil for a null key), headers ({{key=, value=}...}), size (bytes of key and value) and, with values=true, value (nil for a null value, a tombstone).
---
---format says how keys, header values and values are shown: "text" (default) is the bytes as text with what could drive a terminal escaped (controls as \x1b, bytes that are not UTF-8 as \xff) in every output, JSON too; "hex" is lowercase hex, the exact bytes; "json" parses the value as JSON into a Lua value (keys and headers stay text); a value that is not JSON keeps its text and the row gets an error (INVALID_JSON).
---
---Bounded: count (default 10, at most 10,000) and max_bytes (default 1 MiB) of what the rows hold; fewer rows come back at the end of the partition or when the next record would pass max_bytes. A record that alone holds more than max_bytes is a row with its offset, timestamp and size and an error RECORD_TOO_LARGE instead of key, headers and value; rows go on after it. Decompression is bounded too, whatever --max-memory says: a compressed record batch that would decompress to more than 64 MiB (a decompression bomb: 1 MB of gzip can hold 1 GB) is not read, and is one row at its first offset with timestamp -1 and an error DECOMPRESS_LIMIT naming the partition and the batch's offsets; rows go on after the batch.
---
---decode decodes keys and values written for a Schema Registry: "auto" reads each key and value framed for the registry (a magic byte 0, the 4-byte schema id; for Protobuf the message indexes) with its schema (fetched once per id and run) and leaves the rest as format says; "avro", "protobuf" or "json" (JSON Schema) require that format; {key=, value=} decides per side (a string decode is for both). value_schema={file=} (key_schema too) reads every record with a local schema file (.avsc, .proto, .json), no registry needed; the records are the bare encoding unless framed=true. Asking to decode values implies values=true.
---
---A decoded value is a table (records and maps as tables, arrays as arrays, a null as kafka.json.null) in the row's value (or key), with the schema id in value_schema_id (key_schema_id) and, where the registry can tell, the subject and version holding that id in value_subject and value_version (key_subject, key_version): the topic name strategy's subject (TOPIC-value, TOPIC-key) when it holds the id, else the one subject that does (its highest version holding the id, soft-deleted versions included); none when several subjects hold the id and none is the topic's, or the registry cannot say (asked once per id and call); Avro unions are their branch's value, enums their symbol, decimal a string with its scale, date "YYYY-MM-DD", timestamps RFC 3339 in UTC, uuid its text; Protobuf fields are named as in the .proto file, enums by name, unset proto3 scalars their zero value, well-known types in their JSON mapping; bytes are shown as format says. A record that cannot be decoded (an unknown schema id, bytes that are not what the framing says, a truncated record, a schema that does not compile, a registry that is down) keeps its bytes as format shows them and gets an error in the row (SCHEMA_NOT_FOUND, SCHEMA_DECODE_FAILED, NOT_SCHEMA_FRAMED, SCHEMA_INVALID, ...); the other rows decode on. A registry that is down, slow or failing is waited for once per call (up to --timeout): the later rows get its error at once.
---
---Read with raw Fetches to the partition's leader (compressed batches, transaction markers skipped; with read_committed, aborted records too): nothing joins a group or commits, and the call changes nothing.
---
---An offset at the end gives no rows; one below the log start or past the end fails with OFFSET_OUT_OF_RANGE, a missing topic or partition with UNKNOWN_TOPIC_OR_PARTITION, a group with no commit on the partition with NO_COMMITTED_OFFSET, each naming the partition.
---
---```lua
---for _, r in ipairs(peek("orders", 0, "earliest", {count = 3})) do print(r.offset, r.key, r.size) end
---local last = peek("orders", 0, "latest", {count = 1, values = true})
---print(#last, last[1].value)
---local next_up = peek("orders", 4, {group = "orders-processor"}, {count = 1, values = true, format = "json"})
---print(next_up[1].offset, next_up[1].value.status)
---local stuck = peek("payments", 0, {group = "billing"}, {count = 1, decode = "auto"})
---print(stuck[1].value_schema_id, stuck[1].value_subject, stuck[1].value_version, stuck[1].value.amount)
---```
---@param topic string the topic
---@param partition integer|string its partition
---@param from "earliest"|"latest"|integer|string|kadmin.peek.from where to start (see below)
---@param options? kadmin.peek.options
---@return kadmin.peek.result[]
function peek(topic, partition, from, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Check the cluster end to end: write a record to each partition of a probe topic, read it back, commit; timed.
---
---After KMinion's end-to-end probe. A record goes to each partition of the probe topic (idempotent, acks=all), a consumer of its own reads each back from where the partition ended before, and the offsets are committed to the probe group. Per partition (with broker, its leader): produce_ms (until the write is acknowledged), end_to_end_ms (from the write until the record is read back) and the error of a step that failed; commit_ms times the commit. failures names each failure in words ("kadmin-lua-probe[2] (leader 3): produce: NOT_ENOUGH_REPLICAS: ..."), ok is true when there is none. A failure is in the result, not raised: the probe raises only when it cannot start (the topic is missing, the cluster cannot be reached).
---
---The probe topic, "kadmin-lua-probe", is created on first use with one partition per broker, partition i led by the i-th broker (so each broker is probed as a leader), replication factor min(3, brokers), and cleanup.policy=delete, retention.ms=3600000 (an hour), segment.ms=600000. A topic that is named must exist; every partition of it is probed. The first probe on a client includes connecting to the brokers in its figures; later ones (a loop, the REPL) reuse its producer and consumer.
---
---Its writes are changes like any other, each audited as its own operation: create_topics (once), produce and commit_offsets. Under --dry-run nothing is written: the plan says what would be, and the partitions come back unprobed.
---
---With --metrics-file the figures are written for Prometheus: kadmin_lua_probe_ok{topic}, kadmin_lua_probe_failures{topic}, kadmin_lua_probe_produce_seconds{topic,partition,broker}, kadmin_lua_probe_end_to_end_seconds{topic,partition,broker} and kadmin_lua_probe_commit_seconds{topic,group} (docs/scheduling.md).
---
---```lua
---local p = probe()
---print(p.ok, p.produce_ms_max, p.end_to_end_ms_max, p.commit_ms)
---for _, f in ipairs(p.failures) do print(f) end
---return p.ok and #p.partitions == 3
---```
---@param topic? string|kadmin.probe.options the topic to probe (default "kadmin-lua-probe", created on first use)
---@param options? kadmin.probe.options
---@return kadmin.probe.result
function probe(topic, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Write records (key, value, headers, partition, timestamp) to a topic and say where each landed.
---
---records is one record or an array of them: {key=, value=, headers={name = value, ...}, partition=, timestamp=}; every field is optional (a record with no value is a tombstone for compacted topics). key and value are strings (Lua strings are bytes: binary is fine), or tables with key_schema/value_schema. headers are written sorted by name. partition, when left out, is the partitioner's choice, as the Java producer's: the key's murmur2 hash, or one partition per batch for records without a key. timestamp is milliseconds since the epoch (default: now; the broker's own under message.timestamp.type=LogAppendTime).
---
---A producer of its own is used, with the connection settings of the client: idempotent with acks=all by default, as the Java producer since Kafka 3.0. Each result has the record's index (its place in records), partition, offset (-1 if not written, or with acks "none", where nobody says) and timestamp, sorted by index.
---
---A change like any other: audited (the intent line has each partition's end offset before and each record's key, partition, timestamp, header names, value size and SHA-256, not the value itself; the outcome line each record's partition and offset), refused under --dry-run (the topic and partitions are checked and the plan says what would be written), and the REPL asks first unless --yes. It cannot be undone: records cannot be un-produced, and undo does not delete them (delete_records up to the produced offsets would also delete what others wrote before). The topic must exist (no auto-creation) and an explicit partition must be one of its partitions: otherwise nothing is sent. It needs WRITE on the topic, and for idempotence on brokers before Kafka 2.8 IDEMPOTENT_WRITE on the cluster (idempotent=false does without).
---
---With value_schema={subject=S} (key_schema too) each value is a table (or any value the schema takes) encoded with the subject's latest schema (or version=), framed for the registry as Confluent's serializers frame it (magic byte, schema id, Protobuf message indexes): Avro (decimals as strings or numbers, timestamps as RFC 3339 or numbers, dates as YYYY-MM-DD, unions by the first branch the value fits), Protobuf (fields by name, enums by name or number, well-known types in their JSON form) or JSON Schema (validated, written as JSON). Every record is checked before anything is sent, under --dry-run too: one that does not fit refuses the whole call with INVALID_ARGUMENT naming the record and the field path (record #3: value.total.amount: ...). peek's decoded values are accepted back as they are, but for what peek escapes for the terminal: a bytes field (shown as format says) and a string holding controls or bytes that are not UTF-8 (shown as \x1b, \xff) would be written as that text, so give those as Lua strings of their real bytes. A value left out stays a tombstone.
---
---```lua
---local r = produce("orders", {
---  {key = "order-1", value = '{"total": 42}', headers = {source = "kadmin-lua"}},
---  {value = "ping", partition = 2},
---})
---for _, x in ipairs(r) do print(x.index, x.partition, x.offset) end
----- A table encoded with the registry's schema (the subject's latest), framed as Confluent's serializers do:
---local a = produce("orders", {key = "o-1", value = {order_id = "o-1", customer = "acme", amount_cents = 1250, status = "NEW"}},
---  {value_schema = {subject = "orders-value"}})
---print(a[1].partition, a[1].offset)
---return r[2].partition == 2
---```
---@param topic string the topic to write to (it must exist)
---@param records kadmin.produce.records|kadmin.produce.records[] a record or an array of records
---@param options? kadmin.produce.options
---@return kadmin.produce.result[]
function produce(topic, records, options) end

---Ask the registry whether a schema may be registered under a subject.
---
---The registry checks the schema against the subject's versions as its compatibility level says (BACKWARD: the newest; *_TRANSITIVE: all of them); messages say why not. A subject with no versions accepts any schema. Reads only: nothing changes.
---
---```lua
---local r = check_compatibility("orders-value", {type = "AVRO", schema = [[{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}]]})
---print(r.compatible, #r.messages)
---```
---@param subject string the subject the schema would be registered under
---@param schema string|kadmin.check_compatibility.schema the schema: its text (Avro, the registry's default type), {type="AVRO"|"PROTOBUF"|"JSON", schema=TEXT, references={{name=, subject=, version=}...}}, or {file="x.avsc"|"x.proto"|"x.json"} (the type from the extension)
---@param options? kadmin.check_compatibility.options
---@return kadmin.check_compatibility.result
function check_compatibility(subject, schema, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete one version of a subject: soft or permanent.
---
---As delete_subject, for one version. Undo of a soft delete registers its schema again, if the subject does not hold it.
---
---```lua
---register_schema("scratch-value", [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]])
---local r = delete_schema_version("scratch-value", 1)
---print(r.versions[1])
---```
---@param subject string the subject
---@param version integer|string the version to delete
---@param options? kadmin.delete_schema_version.options
---@return kadmin.delete_schema_version.result
function delete_schema_version(subject, version, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete a subject: soft (its ids stay readable) or permanent.
---
---A soft delete hides the subject's versions; records framed with their ids still decode (the registry keeps them by id). permanent=true deletes them for good, as the registry allows only after a soft delete (done first when needed). versions are the versions deleted.
---
---Declared destructive: the REPL asks first unless --yes. The intent line records every version's schema and id; undo registers a soft-deleted subject's schemas again (the registry gives them their ids back; the version numbers are new). A permanent delete cannot be undone. Under --dry-run nothing is deleted and the plan lists the versions.
---
---```lua
---register_schema("scratch-value", [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]])
---local r = delete_subject("scratch-value")
---print(r.subject, #r.versions)
---```
---@param subject string the subject
---@param options? kadmin.delete_subject.options
---@return kadmin.delete_subject.result
function delete_subject(subject, options) end

---Read one version of a subject: its id, type, schema text and references.
---
---type is AVRO, PROTOBUF or JSON; schema is the text as registered; references name the subjects' versions it imports ({{name=, subject=, version=}...}). A missing subject fails with SUBJECT_NOT_FOUND, a missing version with VERSION_NOT_FOUND.
---
---```lua
---local s = describe_schema("orders-value")
---print(s.id, s.version, s.type)
---```
---@param subject string the subject
---@param version? "latest"|integer|string|kadmin.describe_schema.options a version number, or "latest" (default)
---@param options? kadmin.describe_schema.options
---@return kadmin.describe_schema.result
function describe_schema(subject, version, options) end

---Read the compatibility level of subjects, and the registry's global one.
---
---The first row is the registry's global level (global=true, no subject); then one row per subject: its level, own=true when the subject has a level of its own, false when it inherits the global one.
---
---```lua
---for _, c in ipairs(describe_schema_compatibility{"orders-value"}) do print(c.subject or "(global)", c.level, c.own) end
---```
---@param subjects? string|string[] the subjects (default: none, only the registry's global level)
---@return kadmin.describe_schema_compatibility.result[]
function describe_schema_compatibility(subjects) end

---Read the schema a record's framing names by id, and the subject versions that hold it.
---
---An id the registry does not have fails with SCHEMA_NOT_FOUND.
---
---```lua
---local s = describe_schema_id(describe_schema("orders-value").id)
---print(s.type, s.subjects[1].subject)
---```
---@param id integer|string the schema id (what a record's framing carries)
---@return kadmin.describe_schema_id.result
function describe_schema_id(id) end

---List a subject's versions, ascending.
---
---A subject the registry does not have fails with SUBJECT_NOT_FOUND.
---
---```lua
---for _, v in ipairs(list_schema_versions("orders-value")) do print(v.version) end
---```
---@param subject string the subject
---@param options? kadmin.list_schema_versions.options
---@return kadmin.list_schema_versions.result[]
function list_schema_versions(subject, options) end

---List the Schema Registry's subjects, sorted.
---
---Needs a schema registry (--schema-registry URL, KADMIN_SCHEMA_REGISTRY_URL, a profile's schema_registry, or kafka.connect{schema_registry=}); without one every registry function fails with NO_SCHEMA_REGISTRY.
---
---Soft-deleted subjects are left out unless deleted=true. Registry errors keep the registry's names (SUBJECT_NOT_FOUND, INCOMPATIBLE_SCHEMA, ...); a refused login is AUTH, a registry that is down SCHEMA_REGISTRY_UNAVAILABLE (retried until --timeout), an answer that is not the registry's API SCHEMA_REGISTRY_BAD_RESPONSE.
---
---```lua
---for _, s in ipairs(list_subjects{match = "^orders"}) do print(s.subject) end
---```
---@param options? kadmin.list_subjects.options
---@return kadmin.list_subjects.result[]
function list_subjects(options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Register a schema under a subject and return its id.
---
---Returns the schema's id: a new version's, or the one the subject already holds it as (then nothing changes). The registry refuses a schema its compatibility level does not allow (INCOMPATIBLE_SCHEMA) or cannot parse (INVALID_SCHEMA).
---
---Audited (the intent line names the registry and the schema); undo soft-deletes the version it registered, if it is still the subject's newest. Under --dry-run nothing is registered: the plan says whether the subject holds the schema already and checks its compatibility, and the call returns the existing id, or nil.
---
---```lua
---local id = register_schema("scratch-value", {type = "AVRO", schema = [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]]})
---print(id)
---```
---@param subject string the subject
---@param schema string|kadmin.check_compatibility.schema the schema: its text (Avro, the registry's default type), {type="AVRO"|"PROTOBUF"|"JSON", schema=TEXT, references={{name=, subject=, version=}...}}, or {file="x.avsc"|"x.proto"|"x.json"} (the type from the extension)
---@return integer
function register_schema(subject, schema) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Set a subject's compatibility level, or the registry's global one.
---
---before is the level in force before. Audited; undo sets the level back (or removes the subject's own level when it had none), if it is still the one set. Under --dry-run nothing changes and the plan says the level now.
---
---```lua
---local r = set_schema_compatibility{subject = "orders-value", level = "FULL"}
---print(r.before, r.level)
---```
---@param args kadmin.set_schema_compatibility.args
---@return kadmin.set_schema_compatibility.result
function set_schema_compatibility(args) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Create, change or delete users' SCRAM credentials.
---
---mechanism is "SCRAM-SHA-256" (the default) or "SCRAM-SHA-512"; iterations defaults to 4096 and must be 4096..16384. The password is salted on this side and never printed, logged, put in errors, in --dry-run plans or in the audit log (keys containing "password" are redacted).
---
---Kafka answers per user: a user with several changes gets one result. Deleting a credential the user does not have fails with RESOURCE_NOT_FOUND. Kafka has no validate-only mode here: under --dry-run the arguments are checked and nothing changes.
---
---```lua
---alter_user_scram_credentials{
---  upsert = {{user = "svc-billing", mechanism = "SCRAM-SHA-512", iterations = 8192, password = kafka.env("BILLING_PASSWORD", "example-only")}},
---}
---alter_user_scram_credentials{delete = {{user = "svc-billing", mechanism = "SCRAM-SHA-512"}}}
---```
---@param changes kadmin.alter_user_scram_credentials.changes credentials to upsert, {user=, password=, [mechanism=], [iterations=]}, and to delete, {user=, [mechanism=]}
---@param options? kadmin.alter_user_scram_credentials.options
---@return kadmin.alter_user_scram_credentials.result[]
function alter_user_scram_credentials(changes, options) end

---Describe users' SCRAM credentials: a row per user and mechanism (every user's without users).
---
---users is a user name or an array of names. Rows are sorted by user then mechanism ("SCRAM-SHA-256", "SCRAM-SHA-512"); Kafka never returns passwords or salts.
---
---A named user without any SCRAM credential fails with RESOURCE_NOT_FOUND (the other users are still described: see err.results, or pass {partial=true}).
---
---```lua
---alter_user_scram_credentials{upsert = {{user = "alice", password = kafka.env("ALICE_PASSWORD", "example-only")}}}
---for _, c in ipairs(describe_user_scram_credentials("alice")) do print(c.user, c.mechanism, c.iterations) end
---```
---@param users? string|string[]|kadmin.describe_user_scram_credentials.options a user name or an array of them (every user when left out)
---@param options? kadmin.describe_user_scram_credentials.options
---@return kadmin.describe_user_scram_credentials.result[]
function describe_user_scram_credentials(users, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Reset a share group's start offsets (the group must have no members).
---
---offsets is an array of {topic=, partition=, offset=}. Like a consumer group offset reset: records before the new start offset are skipped, records after it are delivered again. Kafka refuses while the group has members. Under --dry-run nothing changes.
---
---```lua
---alter_share_group_offsets("orders-queue", {{topic = "orders", partition = 0, offset = 0}})
---```
---@param group string the share group
---@param offsets kadmin.alter_share_group_offsets.offsets|kadmin.alter_share_group_offsets.offsets[] one record per partition, each partition once
---@param options? kadmin.alter_share_group_offsets.options
---@return kadmin.alter_share_group_offsets.result[]
function alter_share_group_offsets(group, offsets, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete a share group's offsets for whole topics (the group must have no members).
---
---topics is a topic name or an array. The group forgets its progress on those topics. Under --dry-run nothing changes.
---
---```lua
---alter_share_group_offsets("orders-queue", {{topic = "orders", partition = 0, offset = 0}})
---delete_share_group_offsets("orders-queue", "orders")
---```
---@param group string the share group
---@param topics string|string[] the topics whose offsets are deleted
---@param options? kadmin.delete_share_group_offsets.options
---@return kadmin.delete_share_group_offsets.result[]
function delete_share_group_offsets(group, topics, options) end

---List share groups' start offsets per partition.
---
---One row per group and partition, sorted by group, topic and partition. start_offset is where the share group's records start (records before it are done); lag is -1 when the broker does not know it. A group that fails gets one row with its error.
---
---```lua
---for _, o in ipairs(describe_share_group_offsets("orders-queue")) do print(o.topic, o.partition, o.start_offset) end
---```
---@param groups string|string[] the share groups whose offsets are listed
---@param options? kadmin.describe_share_group_offsets.options
---@return kadmin.describe_share_group_offsets.result[]
function describe_share_group_offsets(groups, options) end

---Describe share groups (KIP-932 queues): state and members with their assignments.
---
---groups is a group name or an array. An unknown group fails with GROUP_ID_NOT_FOUND (see err.results, or pass {partial=true}).
---
---```lua
---local ok, err = pcall(describe_share_groups, "orders-queue")
---print(ok or err.code)
---```
---@param groups string|string[] the share groups to describe
---@param options? kadmin.describe_share_groups.options
---@return kadmin.describe_share_groups.result[]
function describe_share_groups(groups, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Create a delegation token; returns its id and HMAC (the secret).
---
---owner and renewers are principals like "User:alice" ("alice" alone means a User); owner defaults to the caller. max_lifetime_ms defaults to the broker's maximum.
---
---The result holds the token id and its base64 HMAC, which clients use as SCRAM credentials (username = token_id, password = hmac). Keep them secret: they are never written to the audit log or logs. The call is not retried after an unknown outcome (it would create a second token). Needs a broker with delegation tokens enabled (kfake has none).
---
---```lua
---local ok, t = pcall(create_delegation_token, {renewers = {"User:ops"}})
---print(ok and t.token_id or t.code)
---```
---@param options? kadmin.create_delegation_token.options
---@return kadmin.create_delegation_token.result
function create_delegation_token(options) end

---List delegation tokens (without their HMACs).
---
---owners is a principal ("User:alice") or an array; without it every token the caller may see is listed. HMACs are left out on purpose: only create_delegation_token returns one.
---
---```lua
---local ok, ts = pcall(describe_delegation_tokens)
---if ok then for _, t in ipairs(ts) do print(t.token_id, t.owner, t.expiry_timestamp) end end
---```
---@param owners? string|string[] only these owners' tokens (default: every token the caller may see)
---@return kadmin.describe_delegation_tokens.result[]
function describe_delegation_tokens(owners) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Expire a delegation token (now, or after period_ms).
---
---hmac is the base64 HMAC from create_delegation_token. period_ms defaults to -1: expire now. The HMAC never appears in the audit log or in errors.
---
---```lua
---local ok, err = pcall(expire_delegation_token, "bm90LWEtdG9rZW4=")
---print(ok or err.code)
---```
---@param hmac string the token's base64 HMAC (a secret: never shown)
---@param options? kadmin.expire_delegation_token.options
---@return kadmin.expire_delegation_token.result
function expire_delegation_token(hmac, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Extend a delegation token's expiry.
---
---hmac is the base64 HMAC from create_delegation_token. period_ms defaults to the broker's renew period (-1). The HMAC never appears in the audit log or in errors.
---
---```lua
---local ok, err = pcall(renew_delegation_token, "bm90LWEtdG9rZW4=", {period_ms = 86400000})
---print(ok or err.code)
---```
---@param hmac string the token's base64 HMAC (a secret: never shown)
---@param options? kadmin.renew_delegation_token.options
---@return kadmin.renew_delegation_token.result
function renew_delegation_token(hmac, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Raise topics' partition counts to the given totals.
---
---Counts are totals, not increments; Kafka cannot lower a partition count (INVALID_PARTITIONS).
---
---```lua
---create_topics({{name = "growing", partitions = 2}}, {if_not_exists = true})
---create_partitions{growing = 4}
---```
---@param totals table<string, integer|string> each topic's new total partition count
---@param options? kadmin.create_partitions.options
---@return kadmin.create_partitions.result[]
function create_partitions(totals, options) end

---**Changes the cluster**: dry-run and the audit log apply.
---
---Create topics, each with its own partitions, replication factor, configs or explicit assignment.
---
---A spec is a name (broker defaults) or {name=, partitions=, replication_factor=, configs={k=v}, assignment={[p]={brokers}}}; partition numbers in an assignment start at 0.
---
---if_not_exists=true makes an existing topic a success (existed=true). validate_only=true asks the broker to check without creating (as does --dry-run).
---
---If any topic fails the call raises after creating all the others; err.results says exactly which were created.
---
---```lua
---create_topics({{name = "payments", partitions = 6, configs = {["cleanup.policy"] = "compact"}}}, {if_not_exists = true})
---```
---@param specs string|kadmin.create_topics.specs|(string|kadmin.create_topics.specs)[] a topic name (broker defaults), a spec table, or an array of them
---@param options? kadmin.create_topics.options
---@return kadmin.create_topics.result[]
function create_topics(specs, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Delete topics and all their data.
---
---if_exists=true makes a missing topic a success (missing=true). Under --dry-run nothing is deleted; each topic is checked to exist.
---
---```lua
---create_topics({"scratch"}, {if_not_exists = true})
---delete_topics("scratch")
---```
---@param names string|string[] the topics to delete
---@param options? kadmin.delete_topics.options
---@return kadmin.delete_topics.result[]
function delete_topics(names, options) end

---Describe topics' partitions: leaders, replicas, ISR, eligible leader replicas.
---
---names is a topic name or an array of names; without it every topic is described, internal ones included (as kafka-topics --describe does).
---
---elr and last_known_elr are the eligible leader replicas and the last known ones (KIP-966), the Elr and LastKnownElr columns of kafka-topics 4.1: empty while the cluster's eligible.leader.replicas.version is 0, nil where the broker does not report them (before Kafka 3.8).
---
---Kafka 3.8+ is asked with DescribeTopicPartitions in pages of at most 2000 partitions, so no single answer from a large cluster is held at once; older brokers with one Metadata request.
---
---A missing topic fails with UNKNOWN_TOPIC_OR_PARTITION (the other topics are still described: see err.results, or pass {partial=true}).
---
---At scale: iterate=true returns an iterator over the topics (for t in describe_topics(nil, {iterate = true}) do ... end), handed over in pages of about 20,000 partitions as the broker's pages come, the next read while the loop handles one: a script that keeps none holds one page, however many partitions the cluster has. match and exclude (RE2 on the name, unanchored) leave topics out as they come, before they are made into rows. Topics caught half made (no leaders yet) are asked again by name and come last.
---
---```lua
---local t = describe_topics("orders")[1]
---print(t.name, #t.partitions, t.partitions[1].leader)
---local partitions = 0
---for _, t in ipairs(describe_topics()) do partitions = partitions + #t.partitions end
---print(partitions)
---local n = 0
---for t in describe_topics(nil, {iterate = true, exclude = "^__"}) do n = n + #t.partitions end
---print(n)
---```
---@param names? string|string[]|kadmin.describe_topics.options the topics to describe (default: every topic, internal ones included)
---@param options? kadmin.describe_topics.options
---@return kadmin.describe_topics.result[]
function describe_topics(names, options) end

---List topics, sorted by name.
---
---Internal topics (__consumer_offsets, ...) are left out unless internal=true. match keeps names matching an RE2 regular expression (unanchored: use ^...$ for a whole name).
---
---```lua
---for _, t in ipairs(list_topics{match = "^orders"}) do print(t.name, t.partitions) end
---```
---@param options? kadmin.list_topics.options
---@return kadmin.list_topics.result[]
function list_topics(options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Abort a producer's open transaction on one partition (writes an abort marker).
---
---Like kafka-transactions.sh abort: a WriteTxnMarkers abort for the producer on that partition, for a transaction left hanging (see find_hanging_transactions). The records of the transaction are discarded for read_committed consumers.
---
---producer_epoch and coordinator_epoch default to the producer's current ones from describe_producers. Producer ids are exact as Lua numbers below 2^53 (Kafka's are); a larger one can be given as a string. Under --dry-run nothing is written; the epochs are still looked up.
---
---```lua
---for _, h in ipairs(find_hanging_transactions()) do
---  abort_transaction{topic = h.topic, partition = h.partition, producer_id = h.producer_id}
---end
---```
---@param args kadmin.abort_transaction.args
---@return kadmin.abort_transaction.result
function abort_transaction(args) end

---List the active producers of every partition of the topics.
---
---topics is a topic name or an array of names; every partition is asked. current_txn_start_offset is the first offset of the producer's open transaction, -1 when none is open.
---
---```lua
---for _, p in ipairs(describe_producers("orders")) do print(p.partition, p.producer_id, p.current_txn_start_offset) end
---```
---@param topics string|string[] the topics whose partitions to ask
---@return kadmin.describe_producers.result[]
function describe_producers(topics) end

---Describe transactional ids: state, producer and the partitions of the open transaction.
---
---ids is a transactional id or an array. An unknown id fails with TRANSACTIONAL_ID_NOT_FOUND (see err.results, or pass {partial=true}). start_timestamp is -1 when no transaction is open.
---
---```lua
---local ok, err = pcall(describe_transactions, "payments-tx")
---print(ok or err.code)
---```
---@param ids string|string[] the transactional ids to describe
---@param options? kadmin.describe_transactions.options
---@return kadmin.describe_transactions.result[]
function describe_transactions(ids, options) end

---**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.
---
---Fence the producers using transactional ids (bump their epoch; open transactions abort).
---
---Like Admin.fenceProducers: an InitProducerId for each transactional id bumps its producer epoch, so the producer using it fails its next transactional call with an epoch error and its open transaction is aborted. Under --dry-run nothing is sent.
---
---```lua
---fence_producers("stuck-producer")
---```
---@param transactional_ids string|string[] the transactional ids whose producers to fence
---@param options? kadmin.fence_producers.options
---@return kadmin.fence_producers.result[]
function fence_producers(transactional_ids, options) end

---Find transactions left open on partitions that their coordinator has forgotten.
---
---Like kafka-transactions.sh find-hanging: producers with an open transaction on a partition (describe_producers) whose last write is older than max_age_ms (default 15 minutes) and whose transactional id is not ongoing on that partition per list_transactions / describe_transactions. Such a transaction holds back the last stable offset (read_committed consumers stall) until aborted with abort_transaction.
---
---topics defaults to all topics; brokers keeps partitions led by those brokers.
---
---```lua
---for _, h in ipairs(find_hanging_transactions{max_age_ms = 60000}) do print(h.topic, h.partition, h.producer_id, h.reason) end
---```
---@param options? kadmin.find_hanging_transactions.options
---@return kadmin.find_hanging_transactions.result[]
function find_hanging_transactions(options) end

---List transactional ids known to the transaction coordinators.
---
---states keeps only those states ("Ongoing", "PrepareCommit", "CompleteAbort", "Empty", ...); producer_ids keeps only those producer ids; pattern is an RE2 expression on the transactional id (Kafka 4.1+; older brokers ignore it).
---
---```lua
---for _, t in ipairs(list_transactions{states = {"Ongoing"}}) do print(t.transactional_id, t.producer_id) end
---```
---@param options? kadmin.list_transactions.options
---@return kadmin.list_transactions.result[]
function list_transactions(options) end

