package luaapi

import (
	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "api_versions", Area: "features", NoArgs: true,
			Returns: "{{broker=int, api=int, name=string, min_version=int, max_version=int, error=error?}...}",
			Summary: "The API versions each broker supports: a row per broker and API key.",
			Doc: `Rows are sorted by broker then API key; name is Kafka's request name, as kafka-broker-api-versions prints it ("Produce", "SaslHandshake", "InitProducerId", "AlterPartitionReassignments", ...). One row per broker and key keeps it greppable and easy to compare across brokers during a rolling upgrade.
A broker that cannot be asked gets one row with api -1 and its error.`,
			Example: `for _, v in ipairs(api_versions()) do
  if v.broker == 0 and v.name == "Fetch" then print(v.min_version, v.max_version) end
end`,
			Run: func(c *Call) (any, error) {
				cl, err := c.Client()
				if err != nil {
					return nil, err
				}
				return cl.APIVersions(c.Ctx())
			}},
		&Func{Name: "describe_features", Area: "features", NoArgs: true,
			Returns: "{{feature=string, finalized_level=int, supported_min=int, supported_max=int, epoch=int}...}",
			Summary: "The cluster's features (KIP-584): finalized level and supported range, a row per feature.",
			Doc:     `feature is e.g. "metadata.version", "kraft.version", "transaction.version", "group.version". finalized_level is the level in force (0 when not finalized); supported_min/supported_max the range the brokers support; epoch the finalized features' epoch (the same on every row). Read from a broker's ApiVersions answer, as the Java admin client does.`,
			Example: `for _, f in ipairs(describe_features()) do print(f.feature, f.finalized_level, f.supported_max) end`,
			Run: func(c *Call) (any, error) {
				cl, err := c.Client()
				if err != nil {
					return nil, err
				}
				return cl.DescribeFeatures(c.Ctx())
			}},
		&Func{Name: "update_features", Area: "features", Batch: true,
			Params: []Param{{Name: "updates", Type: featureUpdates,
				Doc: "the features and their new levels"}},
			Returns: "{{feature=string, max_version_level=int, error=error?}...}",
			Summary: "Change finalized feature levels (upgrade metadata.version, ...).",
			Doc: `updates is one update or an array of updates {feature=, max_version_level=, [upgrade_type=]}; upgrade_type is "upgrade" (the default), "safe_downgrade" or "unsafe_downgrade" (lossy). max_version_level 0 removes the feature.
Declared destructive: an upgrade of metadata.version cannot be undone without a lossy downgrade, so the REPL asks first unless --yes. validate_only=true (and --dry-run) asks the controller to check without changing anything. Brokers answering UpdateFeatures v2 give one error for the whole request: every feature then carries it.`,
			Example: `local fs = describe_features()
for _, f in ipairs(fs) do
  if f.feature == "transaction.version" then
    print(update_features({{feature = f.feature, max_version_level = f.supported_max}}, {validate_only = true})[1].error)
  end
end`,
			Run: updateFeatures},
	)
}

// featureUpdates reads update_features' updates.
var featureUpdates = List[engine.FeatureUpdate](Record(
	Field{Name: "feature", Type: NonEmptyStr(), Required: true, Doc: `the feature: "metadata.version", "transaction.version", ...`},
	Field{Name: "max_version_level", Type: Int16(0).Named("feature level"), Required: true, Doc: "the new finalized level; 0 removes the feature"},
	Field{Name: "upgrade_type", Type: Enum("upgrade", "safe_downgrade", "unsafe_downgrade"), Doc: `"upgrade" when left out`},
).Then(func(rec Rec, _ string) (any, error) {
	return engine.FeatureUpdate{Feature: get[string](rec, "feature"), MaxVersionLevel: get[int16](rec, "max_version_level"),
		UpgradeType: get[string](rec, "upgrade_type")}, nil
})).Items("update").NonEmpty()

func updateFeatures(c *Call) (any, error) {
	ups := param[[]engine.FeatureUpdate](c, "updates")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	for _, u := range ups {
		c.Plan("set %s to level %d (%s)", u.Feature, u.MaxVersionLevel, orUpgrade(u.UpgradeType))
	}
	return cl.UpdateFeatures(c.Ctx(), ups, c.ValidateOnly())
}

func orUpgrade(s string) string {
	if s == "" {
		return "upgrade"
	}
	return s
}
