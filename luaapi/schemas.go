package luaapi

import (
	"regexp"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// The Schema Registry as an admin area (engine/schemas.go): subjects,
// versions, schemas, compatibility, registering and deleting. The
// arguments that are schemas are read in schemas_args.go.

func init() {
	register(
		&Func{Name: "list_subjects", Area: "schemas",
			Options: []Field{
				{Name: "deleted", Type: Bool(), Doc: "the soft-deleted subjects too (deleted=true)"},
				{Name: "match", Type: regexpType, Doc: "keep subjects matching this RE2 regular expression (unanchored)"},
			},
			Returns: "{{subject=string, deleted=bool}...}",
			Summary: "List the Schema Registry's subjects, sorted.",
			Doc: `Needs a schema registry (--schema-registry URL, KADMIN_SCHEMA_REGISTRY_URL, a profile's schema_registry, or kafka.connect{schema_registry=}); without one every registry function fails with NO_SCHEMA_REGISTRY.
Soft-deleted subjects are left out unless deleted=true. Registry errors keep the registry's names (SUBJECT_NOT_FOUND, INCOMPATIBLE_SCHEMA, ...); a refused login is AUTH, a registry that is down SCHEMA_REGISTRY_UNAVAILABLE (retried until --timeout), an answer that is not the registry's API SCHEMA_REGISTRY_BAD_RESPONSE.`,
			Example: `for _, s in ipairs(list_subjects{match = "^orders"}) do print(s.subject) end`,
			Run:     listSubjects},
		&Func{Name: "list_schema_versions", Area: "schemas",
			Params:  []Param{{Name: "subject", Type: subjectName, Doc: "the subject"}},
			Options: []Field{{Name: "deleted", Type: Bool(), Doc: "the soft-deleted versions too (deleted=true)"}},
			Returns: "{{subject=string, version=int, deleted=bool}...}",
			Summary: "List a subject's versions, ascending.",
			Doc:     "A subject the registry does not have fails with SUBJECT_NOT_FOUND.",
			Example: `for _, v in ipairs(list_schema_versions("orders-value")) do print(v.version) end`,
			Run:     listSchemaVersions},
		&Func{Name: "describe_schema", Area: "schemas",
			Params: []Param{
				{Name: "subject", Type: subjectName, Doc: "the subject"},
				{Name: "version", Type: schemaVersion, Optional: true, Doc: `a version number, or "latest" (default)`},
			},
			Options: []Field{{Name: "deleted", Type: Bool(), Doc: "a soft-deleted version too (then deleted=true)"}},
			Returns: schemaShape,
			Summary: "Read one version of a subject: its id, type, schema text and references.",
			Doc:     `type is AVRO, PROTOBUF or JSON; schema is the text as registered; references name the subjects' versions it imports ({{name=, subject=, version=}...}). A missing subject fails with SUBJECT_NOT_FOUND, a missing version with VERSION_NOT_FOUND.`,
			Example: `local s = describe_schema("orders-value")
print(s.id, s.version, s.type)`,
			Run: describeSchema},
		&Func{Name: "describe_schema_id", Area: "schemas",
			Params:  []Param{{Name: "id", Type: schemaID, Doc: "the schema id (what a record's framing carries)"}},
			Returns: "{id=int, type=string, schema=string, references={{name=string, subject=string, version=int}...}, subjects={{subject=string, version=int}...}}",
			Summary: "Read the schema a record's framing names by id, and the subject versions that hold it.",
			Doc:     "An id the registry does not have fails with SCHEMA_NOT_FOUND.",
			Example: `local s = describe_schema_id(describe_schema("orders-value").id)
print(s.type, s.subjects[1].subject)`,
			Run: describeSchemaID},
		&Func{Name: "check_compatibility", Area: "schemas",
			Params: []Param{
				{Name: "subject", Type: subjectName, Doc: "the subject the schema would be registered under"},
				{Name: "schema", Type: schemaArg, Doc: schemaArgDoc},
			},
			Options: []Field{{Name: "version", Type: schemaVersion, Doc: `the version to check against (default "latest"); the subject's compatibility level decides which versions count`}},
			Returns: "{compatible=bool, messages={string...}}",
			Summary: "Ask the registry whether a schema may be registered under a subject.",
			Doc:     `The registry checks the schema against the subject's versions as its compatibility level says (BACKWARD: the newest; *_TRANSITIVE: all of them); messages say why not. A subject with no versions accepts any schema. Reads only: nothing changes.`,
			Example: `local r = check_compatibility("orders-value", {type = "AVRO", schema = [[{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}]]})
print(r.compatible, #r.messages)`,
			Run: checkCompatibility},
		&Func{Name: "describe_schema_compatibility", Area: "schemas",
			Params:  []Param{{Name: "subjects", Type: subjectNames, Optional: true, Doc: "the subjects (default: none, only the registry's global level)"}},
			Returns: "{{subject=string?, global=bool, level=string, own=bool}...}",
			Summary: "Read the compatibility level of subjects, and the registry's global one.",
			Doc:     "The first row is the registry's global level (global=true, no subject); then one row per subject: its level, own=true when the subject has a level of its own, false when it inherits the global one.",
			Example: `for _, c in ipairs(describe_schema_compatibility{"orders-value"}) do print(c.subject or "(global)", c.level, c.own) end`,
			Run:     describeSchemaCompatibility},
		&Func{Name: "register_schema", Area: "schemas",
			Params: []Param{
				{Name: "subject", Type: subjectName, Doc: "the subject"},
				{Name: "schema", Type: schemaArg, Doc: schemaArgDoc},
			},
			Returns: "int",
			Summary: "Register a schema under a subject and return its id.",
			Doc: `Returns the schema's id: a new version's, or the one the subject already holds it as (then nothing changes). The registry refuses a schema its compatibility level does not allow (INCOMPATIBLE_SCHEMA) or cannot parse (INVALID_SCHEMA).
Audited (the intent line names the registry and the schema); undo soft-deletes the version it registered, if it is still the subject's newest. Under --dry-run nothing is registered: the plan says whether the subject holds the schema already and checks its compatibility, and the call returns the existing id, or nil.`,
			Example: `local id = register_schema("scratch-value", {type = "AVRO", schema = [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]]})
print(id)`,
			Run: registerSchema},
		&Func{Name: "set_schema_compatibility", Area: "schemas", TableCall: true,
			Options: []Field{
				{Name: "subject", Type: subjectName, Doc: "the subject (default: the registry's global level)"},
				{Name: "level", Type: Enum(schemas.Levels...), Required: true, Doc: "NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE"},
			},
			Returns: "{subject=string?, global=bool, level=string, before=string}",
			Summary: "Set a subject's compatibility level, or the registry's global one.",
			Doc:     `before is the level in force before. Audited; undo sets the level back (or removes the subject's own level when it had none), if it is still the one set. Under --dry-run nothing changes and the plan says the level now.`,
			Example: `local r = set_schema_compatibility{subject = "orders-value", level = "FULL"}
print(r.before, r.level)`,
			Run: setSchemaCompatibility},
		&Func{Name: "delete_subject", Area: "schemas",
			Params:  []Param{{Name: "subject", Type: subjectName, Doc: "the subject"}},
			Options: []Field{{Name: "permanent", Type: Bool(), Doc: "delete for good (a soft delete first, then a hard one): the registry forgets the ids"}},
			Returns: "{subject=string, versions={int...}, permanent=bool}",
			Summary: "Delete a subject: soft (its ids stay readable) or permanent.",
			Doc: `A soft delete hides the subject's versions; records framed with their ids still decode (the registry keeps them by id). permanent=true deletes them for good, as the registry allows only after a soft delete (done first when needed). versions are the versions deleted.
Declared destructive: the REPL asks first unless --yes. The intent line records every version's schema and id; undo registers a soft-deleted subject's schemas again (the registry gives them their ids back; the version numbers are new). A permanent delete cannot be undone. Under --dry-run nothing is deleted and the plan lists the versions.`,
			Example: `register_schema("scratch-value", [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]])
local r = delete_subject("scratch-value")
print(r.subject, #r.versions)`,
			Run: deleteSubject},
		&Func{Name: "delete_schema_version", Area: "schemas",
			Params: []Param{
				{Name: "subject", Type: subjectName, Doc: "the subject"},
				{Name: "version", Type: schemaVersionNumber, Doc: "the version to delete"},
			},
			Options: []Field{{Name: "permanent", Type: Bool(), Doc: "delete for good (soft first, then hard)"}},
			Returns: "{subject=string, versions={int...}, permanent=bool}",
			Summary: "Delete one version of a subject: soft or permanent.",
			Doc:     `As delete_subject, for one version. Undo of a soft delete registers its schema again, if the subject does not hold it.`,
			Example: `register_schema("scratch-value", [[{"type":"record","name":"Scratch","fields":[{"name":"n","type":"long"}]}]])
local r = delete_schema_version("scratch-value", 1)
print(r.versions[1])`,
			Run: deleteSchemaVersion},
	)
}

const schemaShape = "{subject=string, version=int, id=int, type=string, schema=string, references={{name=string, subject=string, version=int}...}, deleted=bool?}"

// subjectName is a registry subject, completed from the registry.
var subjectName = NonEmptyStr().Naming(NameSubject)

var subjectNames = List[string](subjectName).NonEmpty()

// schemaID is a schema id: the framing holds it as 4 bytes.
var schemaID = Int32(0).Named("schema id")

// schemaVersionNumber is a subject's version: 1 on.
var schemaVersionNumber = Int32(1).Named("schema version")

func listSubjects(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListSubjects(c.Ctx(), engine.ListSubjectsOptions{Deleted: param[bool](c, "deleted"), Match: param[*regexp.Regexp](c, "match")})
}

func listSchemaVersions(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListSchemaVersions(c.Ctx(), param[string](c, "subject"), param[bool](c, "deleted"))
}

func describeSchema(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeSchema(c.Ctx(), param[string](c, "subject"), versionParam(c), param[bool](c, "deleted"))
}

func describeSchemaID(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeSchemaID(c.Ctx(), int(param[int32](c, "id")))
}

func checkCompatibility(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.CheckCompatibility(c.Ctx(), param[string](c, "subject"), param[schemas.Schema](c, "schema"), versionParam(c))
}

func describeSchemaCompatibility(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeSchemaCompatibility(c.Ctx(), append([]string{schemas.Global}, param[[]string](c, "subjects")...))
}

func registerSchema(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	subject, s := param[string](c, "subject"), param[schemas.Schema](c, "schema")
	if c.DryRun() {
		res, plan, err := cl.PlanRegisterSchema(c.Ctx(), subject, s)
		if err != nil {
			return nil, err
		}
		c.Plan("%s", plan)
		if res.ID == 0 {
			return nil, nil
		}
		return res.ID, nil
	}
	res, err := cl.RegisterSchema(c.Ctx(), subject, s)
	if err != nil {
		return nil, err
	}
	return res.ID, nil
}

func setSchemaCompatibility(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	subject, level := param[string](c, "subject"), param[string](c, "level")
	if c.DryRun() {
		cur, err := cl.DescribeSchemaCompatibility(c.Ctx(), []string{subject})
		if err != nil {
			return nil, err
		}
		c.Plan("%s: would set the compatibility level from %s to %s", engineCompatKey(subject), cur[0].Level, level)
		return engine.CompatibilitySet{Subject: subject, Global: subject == schemas.Global, Level: level, Before: cur[0].Level}, nil
	}
	return cl.SetSchemaCompatibility(c.Ctx(), subject, level)
}

func engineCompatKey(subject string) string {
	return engine.CompatibilitySet{Subject: subject}.Key()
}

func deleteSubject(c *Call) (any, error) {
	return deleteSchemas(c, schemas.Latest)
}

func deleteSchemaVersion(c *Call) (any, error) {
	return deleteSchemas(c, int(param[int32](c, "version")))
}

func deleteSchemas(c *Call, version int) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	subject, permanent := param[string](c, "subject"), param[bool](c, "permanent")
	if c.DryRun() {
		res, plan, err := cl.PlanDeleteSchemas(c.Ctx(), subject, version, permanent)
		if err != nil {
			return nil, err
		}
		c.Plan("%s", plan)
		return res, nil
	}
	if version == schemas.Latest {
		return cl.DeleteSubject(c.Ctx(), subject, permanent)
	}
	return cl.DeleteSchemaVersion(c.Ctx(), subject, version, permanent)
}

// versionParam is the call's version, schemas.Latest when not given.
func versionParam(c *Call) int {
	if c.Given("version") {
		return param[int](c, "version")
	}
	return schemas.Latest
}
