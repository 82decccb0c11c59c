package luaapi

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
	"github.com/kadmin-lua/kadmin-lua/engine/undo"
)

const testOrderSchema = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}`

// registryEnv is a kfake cluster with an in-memory Schema Registry on
// loopback, a runtime bound to both, and an independent registry client
// (franz-go's sr) that asks the REST API what really happened.
type registryEnv struct {
	*env
	reg  *srfake.Registry
	rest *sr.Client
}

func newRegistryEnv(t *testing.T, cfg engine.Config) *registryEnv {
	t.Helper()
	reg := srfake.New()
	t.Cleanup(reg.Close)
	reg.SeedSchema("orders-value", 1, 1, sr.Schema{Schema: testOrderSchema})
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cfg.Registry = &schemas.Config{URLs: []string{reg.URL()}}
	rest, err := sr.NewClient(sr.URLs(reg.URL()))
	require.NoError(t, err)
	return &registryEnv{env: newEnvOn(t, c, Options{Config: cfg}), reg: reg, rest: rest}
}

// The read functions give what the registry's REST API answers.
func TestRegistryReadsAgreeWithTheRESTAPI(t *testing.T) {
	e := newRegistryEnv(t, engine.Config{})
	ctx := e.ctx()
	_, err := e.rest.CreateSchema(ctx, "orders-value", sr.Schema{Schema: `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"n","type":["null","long"],"default":null}]}`})
	require.NoError(t, err)
	_, err = e.rest.CreateSchema(ctx, "payments-value", sr.Schema{Schema: `"string"`})
	require.NoError(t, err)

	subjects, err := e.rest.Subjects(ctx)
	require.NoError(t, err)
	assert.JSONEq(t, asJSON(t, subjectsOf(subjects)), e.json(`return list_subjects()`))

	versions, err := e.rest.SubjectVersions(ctx, "orders-value")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2}, versions)
	assert.JSONEq(t, `[{"subject":"orders-value","version":1,"deleted":false},{"subject":"orders-value","version":2,"deleted":false}]`,
		e.json(`return list_schema_versions("orders-value")`))

	latest, err := e.rest.SchemaByVersion(ctx, "orders-value", -1)
	require.NoError(t, err)
	got := e.run(`local s = describe_schema("orders-value"); return s.id .. " " .. s.version .. " " .. s.type .. " " .. s.schema`)
	assert.Equal(t, jsonInt(latest.ID)+" 2 AVRO "+latest.Schema.Schema, got.String())

	byID, err := e.rest.SchemaByID(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, byID.Schema, e.run(`return describe_schema_id(1).schema`).String())
	assert.Equal(t, "orders-value", e.run(`return describe_schema_id(1).subjects[1].subject`).String())

	global := e.rest.Compatibility(ctx)[0]
	assert.Equal(t, global.Level.String(), e.run(`return describe_schema_compatibility()[1].level`).String())
	assert.Equal(t, "false", e.run(`return tostring(describe_schema_compatibility{"orders-value"}[2].own)`).String())

	assert.Equal(t, "true", e.run(`return tostring(check_compatibility("orders-value", {schema = [[`+testOrderSchema+`]]}).compatible)`).String())

	re := e.runErr(`describe_schema("missing-value")`)
	assert.Equal(t, "SUBJECT_NOT_FOUND", re.Code)
	re = e.runErr(`describe_schema_id(424242)`)
	assert.Equal(t, "SCHEMA_NOT_FOUND", re.Code)
}

func subjectsOf(names []string) []map[string]any {
	out := []map[string]any{}
	for _, n := range names {
		out = append(out, map[string]any{"subject": n, "deleted": false})
	}
	return out
}

func asJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// The writes change what the REST API answers, are audited, do nothing
// under dry-run, and undo reverts them.
func TestRegistryWritesAreAuditedDryRunAndUndone(t *testing.T) {
	audit, path := testAudit(t)
	e := newRegistryEnv(t, engine.Config{Audit: audit})
	ctx := e.ctx()
	const newSchema = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"note","type":"string","default":""}]}`

	e.run(`kafka.dry_run(true)`)
	assert.Equal(t, "nil", e.run(`return tostring(register_schema("orders-value", [[`+newSchema+`]]))`).String())
	e.run(`set_schema_compatibility{subject = "orders-value", level = "NONE"}`)
	e.run(`delete_subject("orders-value")`)
	e.run(`kafka.dry_run(false)`)
	versions, err := e.rest.SubjectVersions(ctx, "orders-value")
	require.NoError(t, err)
	assert.Equal(t, []int{1}, versions, "a dry run changes nothing")
	assert.Empty(t, readChanges(t, path), "and writes no audit line")

	id := e.run(`return register_schema("orders-value", [[` + newSchema + `]])`)
	got, err := e.rest.SchemaByVersion(ctx, "orders-value", 2)
	require.NoError(t, err)
	assert.Equal(t, jsonInt(got.ID), id.String())
	again := e.run(`return register_schema("orders-value", [[` + newSchema + `]])`)
	assert.Equal(t, id.String(), again.String(), "registering the same schema again gives its id")

	e.run(`set_schema_compatibility{subject = "orders-value", level = "FULL"}`)
	assert.Equal(t, sr.CompatFull, e.rest.Compatibility(ctx, "orders-value")[0].Level)

	cl := e.engine()
	steps, err := undo.Run(context.Background(), cl, readChanges(t, path), undo.Options{Confirm: func(string) bool { return true }})
	require.NoError(t, err)
	actions := map[string]string{}
	for _, s := range steps {
		actions[s.Op+" "+s.Resource] += s.Action + ";"
	}
	assert.Equal(t, engine.UndoReverted+";", actions["set_schema_compatibility orders-value"], "%+v", steps)
	assert.Contains(t, actions["register_schema orders-value"], engine.UndoReverted, "%+v", steps)
	assert.Contains(t, actions["register_schema orders-value"], engine.UndoSkipped, "the second call registered nothing")
	versions, err = e.rest.SubjectVersions(ctx, "orders-value")
	require.NoError(t, err)
	assert.Equal(t, []int{1}, versions, "the registered version is soft-deleted again")
	res := e.rest.Compatibility(sr.WithParams(ctx, sr.RawParams(url.Values{"defaultToGlobal": {"false"}})), "orders-value")[0]
	assert.Error(t, res.Err, "the subject has no level of its own again")

	// A soft-deleted version comes back under its id.
	e.run(`delete_schema_version("orders-value", 1)`)
	left, err := e.rest.SubjectVersions(ctx, "orders-value")
	assert.True(t, err != nil || len(left) == 0, "no live version left: %v %v", left, err)
	changes := readChanges(t, path)
	steps, err = undo.Run(context.Background(), cl, changes[len(changes)-1:], undo.Options{})
	require.NoError(t, err)
	require.Len(t, steps, 1)
	assert.Equal(t, engine.UndoReverted, steps[0].Action, steps[0].Message)
	back, err := e.rest.SchemaByVersion(ctx, "orders-value", -1)
	require.NoError(t, err)
	assert.Equal(t, 1, back.ID)
}

// Without a registry every registry function says so, and sends nothing.
func TestRegistryFunctionsNeedARegistry(t *testing.T) {
	e := newEnv(t, kfake.NumBrokers(1))
	re := e.runErr(`list_subjects()`)
	assert.Equal(t, schemas.CodeNoRegistry, re.Code)
	assert.Contains(t, re.Error(), "--schema-registry")
}

// kafka.connect clients carry their own registry: named in the call, or
// none for another cluster; kafka.connect{} keeps the default's.
func TestConnectCarriesItsOwnRegistry(t *testing.T) {
	e := newRegistryEnv(t, engine.Config{})
	other := srfake.New()
	t.Cleanup(other.Close)
	other.SeedSchema("elsewhere-value", 1, 7, sr.Schema{Schema: `"long"`})
	addr := e.cluster.ListenAddrs()[0]
	assert.Equal(t, "orders-value", e.run(`return kafka.connect{}:list_subjects()[1].subject`).String())
	assert.Equal(t, "elsewhere-value", e.run(`return kafka.connect{brokers = {"`+addr+`"}, schema_registry = "`+other.URL()+`"}:list_subjects()[1].subject`).String())
	re := e.runErr(`kafka.connect{brokers = {"` + addr + `"}}:list_subjects()`)
	assert.Equal(t, schemas.CodeNoRegistry, re.Code, "another cluster named by brokers does not get the default's registry")
	re = e.runErr(`kafka.connect{schema_registry_user = "ops"}`)
	assert.Contains(t, re.Error(), "schema_registry_user needs schema_registry")
}

// The REPL completes subjects where a function takes one, from the registry.
func TestSubjectsAreCompleted(t *testing.T) {
	e := newRegistryEnv(t, engine.Config{})
	assert.Equal(t, Expected{Kind: NameSubject}, ExpectedAt("describe_schema", []Step{Arg(1)}))
	assert.Equal(t, Expected{Kind: NameSubject}, ExpectedAt("set_schema_compatibility", []Step{Arg(1), Key("subject")}))
	src, ok := e.rt.DefaultNames()
	require.True(t, ok)
	names, err := src.Names(e.ctx(), NameSubject)
	require.NoError(t, err)
	assert.Equal(t, []string{"orders-value"}, names)
}
