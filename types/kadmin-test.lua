---@meta kadmin-lua-test
-- The functions kadmin-lua test gives a test file (*_test.lua), for the Lua language server, generated
-- by `kadmin-lua meta --luals DIR` (`make docs`) from the list the test runner installs them from.
-- Do not edit: regenerate. An editor defines them in every file of the folder; kadmin-lua check and the
-- luacheck standard know them in *_test.lua files only.

---Options of test.
---@class kadmin.test.options
---@field fixture? string|table<string, any> this test's own fixture (fixture table, or a fixture or snapshot file (relative to the test file))
---@field timeout? integer|string this test's own timeout (timeout in ms (integer) >= 1)

---{[dry_run=], [env=]}
---@class kadmin.run.args
---@field dry_run? boolean run it under --dry-run (boolean)
---@field env? table<string, string> environment variables the runbook sees (it sees none otherwise) (table of non-empty string = string)

---@class kadmin.run.result
---@field exit integer
---@field ok boolean
---@field rows any
---@field values any
---@field error? string
---@field stdout string
---@field stderr string
---@field plan string[]
---@field changes kadmin.run.result.changes[]
---@field checks string[]

---@class kadmin.run.result.changes
---@field op string
---@field args any
---@field items kadmin.run.result.changes.items[]
---@field applied string[]
---@field error? string

---@class kadmin.run.result.changes.items
---@field key string
---@field outcome string
---@field error? string

---{[env=]}
---@class kadmin.dry_run.args
---@field env? table<string, string> environment variables the runbook sees (it sees none otherwise) (table of non-empty string = string)

---@class kadmin.dry_run.result
---@field exit integer
---@field ok boolean
---@field rows any
---@field values any
---@field error? string
---@field stdout string
---@field stderr string
---@field plan string[]
---@field changes kadmin.dry_run.result.changes[]
---@field checks string[]

---@class kadmin.dry_run.result.changes
---@field op string
---@field args any
---@field items kadmin.dry_run.result.changes.items[]
---@field applied string[]
---@field error? string

---@class kadmin.dry_run.result.changes.items
---@field key string
---@field outcome string
---@field error? string

---The arguments of fault, named.
---@class kadmin.fault.args
---@field api string the Kafka request, in any case, with or without underscores: CreatePartitions, create_partitions (Kafka request name)
---@field error? string answer with this Kafka error (NOT_CONTROLLER, REQUEST_TIMED_OUT, ...) (Kafka error name)
---@field latency_ms? number delay the requests by this long instead (number between 1 and 600000)
---@field times? "always"|integer|string how many requests (1; "always" until removed) (count >= 1, or "always")
---@field topic? string only requests about this topic (string)
---@field group? string only requests about this group (string)
---@field resource? string only requests about this resource (string)
---@field broker? integer|string only requests to this broker (broker id (int32) >= 0)

---@class kadmin.fault.result
---@field hits any
---@field remove any

---Options of snapshot.
---@class kadmin.snapshot.options
---@field records? integer|string also read the first N records of each partition (integer between 0 and 10000)

---@class kadmin.changes.result
---@field action string
---@field kind string
---@field name string
---@field change string

---@class kadmin.audit.result
---@field op string
---@field args any
---@field items kadmin.audit.result.items[]
---@field applied string[]
---@field error? string

---@class kadmin.audit.result.items
---@field key string
---@field outcome string
---@field error? string

---@class kadmin.cluster.result
---@field brokers string[]

---@class kadmin.assert.dry_run_matches.result
---@field exit integer
---@field ok boolean
---@field rows any
---@field values any
---@field error? string
---@field stdout string
---@field stderr string
---@field plan string[]
---@field changes kadmin.assert.dry_run_matches.result.changes[]
---@field checks string[]

---@class kadmin.assert.dry_run_matches.result.changes
---@field op string
---@field args any
---@field items kadmin.assert.dry_run_matches.result.changes.items[]
---@field applied string[]
---@field error? string

---@class kadmin.assert.dry_run_matches.result.changes.items
---@field key string
---@field outcome string
---@field error? string

---What `expect(got)` returns: its checks are methods, `expect(got):is(want)`.
---@class kadmin.test.Expectation
local Expectation = {}

---Lua's assert, with busted's checks as fields: same, equal, is_true, is_false, is_nil, is_not_nil, truthy, falsy, matches, contains, has_error.
---@class kadmin.test.Assert
---@overload fun(v: any, msg?: any, ...: any): any
local Assert = {}

---Register a test: fn runs on a fresh in-process cluster; a failed check or an error fails it.
---@param name string the test's name, as reports and -run show it
---@param fn function the test: an error or a failed check fails it
---@param options? kadmin.test.options
function test(name, fn, options) end

---The cluster each test of the file starts from: a fixture table, or a fixture or snapshot file.
---@param source string|table<string, any> the fixture
function fixture(source) end

---Run a runbook as kadmin-lua run does, on the test's cluster.
---@param name string the runbook: a file beside the test (or above a tests/ directory), a built-in runbook or a plugin command
---@param ... string|number|kadmin.run.args its arguments, as on a command line, then the options table
---@return kadmin.run.result
function run(name, ...) end

---run under --dry-run.
---@param name string the runbook, found as run finds it
---@param ... string|number|kadmin.dry_run.args its arguments, then the options table
---@return kadmin.dry_run.result
function dry_run(name, ...) end

---Fail or delay the next requests of a Kafka API; the handle has hits() and remove().
---@param args kadmin.fault.args
---@return kadmin.fault.result
function fault(args) end

---Take a broker down: its connections fail, its partitions move to their next live replica.
---@param id integer|string the broker
function broker_down(id) end

---Bring a broker taken down back on its address.
---@param id integer|string the broker
function broker_up(id) end

---The test's cluster now, as a fixture table.
---@param options? kadmin.snapshot.options
---@return table<string, any>
function snapshot(options) end

---The plan rows that take the cluster from one snapshot to another.
---@param before table<string, any> a snapshot()
---@param after table<string, any> a later snapshot()
---@return kadmin.changes.result[]
function changes(before, after) end

---The changes the test's audit log holds.
---@return kadmin.audit.result[]
function audit() end

---Where the test's cluster listens: kafka.connect{brokers = cluster().brokers}.
---@return kadmin.cluster.result
function cluster() end

---Checks that read got first: expect(got):equals(want); expect(got).never negates the next check.
---@param got? any the value the checks read
---@return kadmin.test.Expectation
function expect(got) end

---Fail unless the value is the same as want (tables by content, with a diff).
---@param want? any the value expected
function Expectation:equals(want) end

---expectation:equals.
---@param want? any the value expected
function Expectation:same(want) end

---Fail unless the value == want.
---@param want? any the value expected
function Expectation:is(want) end

---Fail unless the value is true.
function Expectation:is_true() end

---Fail unless the value is false.
function Expectation:is_false() end

---Fail unless the value is nil.
function Expectation:is_nil() end

---Fail unless the value is not nil.
function Expectation:is_not_nil() end

---Fail unless the value is neither nil nor false.
function Expectation:truthy() end

---Fail unless the value is nil or false.
function Expectation:falsy() end

---Fail unless the value is a string matching pattern.
---@param pattern string a Lua pattern
function Expectation:matches(pattern) end

---Fail unless the value (a table or a string) contains v.
---@param v? any the element or substring
function Expectation:contains(v) end

---Fail unless #value is n.
---@param n number the length
function Expectation:has_length(n) end

---Call the value (a function); fail unless it raises an error (matching pattern). Returns the error.
---@param pattern? string a Lua pattern the error matches
---@return any
function Expectation:fails(pattern) end

---The same checks, negated.
---@type kadmin.test.Expectation
Expectation.never = nil

---Lua's assert, with busted's checks as fields: same, equal, is_true, is_false, is_nil, is_not_nil, truthy, falsy, matches, contains, has_error.
---@type kadmin.test.Assert
assert = nil

---Fail unless got is the same as want (tables by content, with a diff).
---@param want? any the value expected
---@param got? any the value got
---@param msg? string said before the failure
function Assert.same(want, got, msg) end

---Fail unless got == want.
---@param want? any the value expected
---@param got? any the value got
---@param msg? string said before the failure
function Assert.equal(want, got, msg) end

---Fail unless v is true.
---@param v? any the value
---@param msg? string said before the failure
function Assert.is_true(v, msg) end

---Fail unless v is false.
---@param v? any the value
---@param msg? string said before the failure
function Assert.is_false(v, msg) end

---Fail unless v is nil.
---@param v? any the value
---@param msg? string said before the failure
function Assert.is_nil(v, msg) end

---Fail unless v is not nil.
---@param v? any the value
---@param msg? string said before the failure
function Assert.is_not_nil(v, msg) end

---Fail unless v is neither nil nor false.
---@param v? any the value
---@param msg? string said before the failure
function Assert.truthy(v, msg) end

---Fail unless v is nil or false.
---@param v? any the value
---@param msg? string said before the failure
function Assert.falsy(v, msg) end

---Fail unless s is a string matching pattern.
---@param pattern string a Lua pattern
---@param s? any the string
---@param msg? string said before the failure
function Assert.matches(pattern, s, msg) end

---Fail unless list (a table or a string) contains v.
---@param list? any a table or a string
---@param v? any the element or substring
---@param msg? string said before the failure
function Assert.contains(list, v, msg) end

---Call fn; fail unless it raises an error (matching pattern). Returns the error.
---@param fn function called with no arguments
---@param pattern? string a Lua pattern the error matches
---@return any
function Assert.has_error(fn, pattern) end

---assert itself: assert.are.same reads as busted's.
---@type kadmin.test.Assert
Assert.are = nil

---assert itself: assert.is.equal reads as busted's.
---@type kadmin.test.Assert
Assert.is = nil

---Run a runbook dry then for real; fail unless the dry run announced exactly what the real run did. Returns both results.
---@param name string the runbook, found as run finds it
---@param ... string|number|kadmin.dry_run.args its arguments, then the options table
---@return kadmin.assert.dry_run_matches.result dry
---@return kadmin.assert.dry_run_matches.result real
function Assert.dry_run_matches(name, ...) end

