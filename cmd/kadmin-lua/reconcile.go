package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/desired"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

const planLong = `Diff a desired-state spec (Lua, YAML or JSON: docs/reconcile.md) against the
cluster and print what would change: topics created, configs altered (before
-> after, config by config), partitions raised, replication factors changed
(as a partition reassignment), ACLs created, quotas, SCRAM users and group,
client-metrics and broker configs created or altered, and with --prune what the spec
owns (owns) but does not list deleted. What cannot be done (a partition
decrease, a row outside owns, a policy violation) fails the plan, each problem
named with its file:line.

A Lua spec is data: it is evaluated with no cluster, no files and no
secrets (kafka.env refuses KADMIN_* and secret-looking variables), under
--max-memory and a time limit; YAML and JSON specs refuse self-containing
or exploding aliases and keys given twice.

--out PLAN.json writes the plan file that "kadmin-lua apply PLAN.json"
applies exactly as reviewed; it records the cluster (id, brokers,
profile), the spec's owns and policies, the state each change was planned
against, and a digest of itself, printed with the plan.

Exit codes: as every command (0 ok, 1, 2 usage or a bad spec, 3 Kafka)
unless --exit-code, terraform's detailed exit codes: 0 no changes, 2
changes, 1 an error.`

const applyLong = `Apply a plan file written by "kadmin-lua plan --out", exactly: every change
whose resource is no longer in the state recorded in the plan (a stale plan)
is refused, saying what changed, and nothing is sent for it. A plan is
refused whole when it was made on another cluster (its id, brokers or
profile), when its content does not match its digest or --digest, or when
a change does not name the resource its payload changes, lies outside the
spec's owns or breaks its policies. "kadmin-lua apply SPEC" plans and
applies in one step after confirmation (--yes to skip it).

Every change goes through the audited admin calls (create_topics,
alter_configs, ...): with --audit-log, "kadmin-lua undo" reverts an apply,
and after an interrupted apply the log says which items were applied;
planning again shows the rest. --dry-run says what would be applied and
changes nothing.

Exit 0 when every change was applied; 1 when one was stale (plan again);
3 when Kafka refused one.`

func (a *app) planCmd() *cobra.Command {
	var out string
	var prune, exitCodes bool
	cmd := &cobra.Command{
		Use:   "plan SPEC",
		Short: "Show what applying a desired-state spec would change (--out PLAN.json to apply it as reviewed)",
		Long:  planLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.planSpec(cmd, args[0], prune)
			if err == nil && out != "" {
				err = writePlan(out, p)
			}
			if err == nil {
				err = a.printPlan(p)
			}
			if !exitCodes {
				return err
			}
			switch {
			case err != nil:
				return withCode(ExitPlanError, err)
			case len(p.Changes) > 0:
				return &exitError{code: ExitPlanChanges, err: errors.New("")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the plan to this file, for kadmin-lua apply")
	cmd.Flags().BoolVar(&prune, "prune", false, "delete what the spec owns (owns) and does not list")
	cmd.Flags().BoolVar(&exitCodes, "exit-code", false, "exit 0 when nothing would change, 2 when something would, 1 on an error")
	return cmd
}

func (a *app) applyCmd() *cobra.Command {
	var prune bool
	var digest string
	cmd := &cobra.Command{
		Use:   "apply PLAN.json|SPEC",
		Short: "Apply a reviewed plan file, or plan and apply a spec after confirmation",
		Long:  applyLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, isPlan, err := readPlanFile(args[0])
			if err != nil {
				return err
			}
			if isPlan && prune {
				return usageErr(errors.New("--prune is decided when planning; the plan file says it"))
			}
			if !isPlan && digest != "" {
				return usageErr(errors.New("--digest names a plan file's digest; " + args[0] + " is a spec"))
			}
			if !isPlan {
				if p, err = a.planSpec(cmd, args[0], prune); err != nil {
					return err
				}
				if len(p.Changes) == 0 {
					return a.printApplied(nil)
				}
				if err := a.printPlan(p); err != nil {
					return err
				}
				if !a.flags.dryRun && !a.confirmApply(len(p.Changes)) {
					return exitf(ExitScript, "apply: not confirmed: nothing was applied (--yes to apply without asking)")
				}
			}
			return a.applyPlan(cmd, p, digest)
		},
	}
	cmd.Flags().BoolVar(&prune, "prune", false, "with a SPEC: delete what the spec owns (owns) and does not list")
	cmd.Flags().StringVar(&digest, "digest", "", "apply the plan file only if its digest is this one (the digest printed with the reviewed plan)")
	return cmd
}

// planSpec reads the spec (as data: a Lua spec is evaluated with no
// cluster, no files and no secrets, under --max-memory and a time limit)
// and plans it on the default cluster.
func (a *app) planSpec(cmd *cobra.Command, path string, prune bool) (desired.Plan, error) {
	spec, err := luaapi.ReadSpec(cmd.Context(), path, luaapi.SpecOptions{Env: a.scriptEnv, Secret: a.credentialEnv(),
		MaxMemory: int64(a.flags.maxMemory), Runaway: a.runaway, Stderr: a.st.Stderr})
	if err != nil {
		return desired.Plan{}, withCode(ExitUsage, err)
	}
	cl, err := a.client(cmd)
	if err != nil {
		return desired.Plan{}, err
	}
	defer cl.Close()
	p, err := desired.PlanSpec(cmd.Context(), cl, spec, desired.PlanSpecOptions{Prune: prune, Env: a.scriptEnv})
	var se desired.SpecErrors
	if errors.As(err, &se) {
		return p, withCode(ExitUsage, err)
	}
	return p, err
}

// credentialEnv reports the variables the config file's profiles read
// credentials from (a spec's kafka.env refuses them), whatever their names.
func (a *app) credentialEnv() func(string) bool {
	names := map[string]bool{}
	if cf, err := a.configFile(false); err == nil && cf != nil {
		for _, p := range cf.Profiles {
			if p != nil {
				for _, n := range p.SecretEnvNames() {
					names[n] = true
				}
			}
		}
	}
	return func(name string) bool { return names[name] }
}

func (a *app) client(cmd *cobra.Command) (*engine.Client, error) {
	a.noStateFile()
	cfg, err := a.clusterConfig(cmd)
	if err != nil {
		return nil, err
	}
	return engine.New(cfg)
}

func (a *app) applyPlan(cmd *cobra.Command, p desired.Plan, digest string) error {
	cl, err := a.client(cmd)
	if err != nil {
		return err
	}
	defer cl.Close()
	res, err := desired.Apply(cmd.Context(), cl, p, desired.ApplyOptions{Env: a.scriptEnv, Digest: digest})
	var se desired.SpecErrors
	if errors.As(err, &se) {
		return exitf(ExitUsage, "apply: the plan was refused, nothing was applied: %v", err)
	}
	if sig, _ := a.sigs.result(); sig != nil {
		return withCode(signalCode(sig), errors.New("interrupted"))
	}
	if err != nil {
		return err
	}
	if err := a.printApplied(res); err != nil {
		return err
	}
	failed, stale := 0, 0
	for _, r := range res {
		switch r.Status {
		case desired.StatusFailed:
			failed++
		case desired.StatusStale:
			stale++
		}
	}
	switch {
	case failed > 0:
		return exitf(ExitKafka, "apply: %d of %d changes failed, %d stale", failed, len(res), stale)
	case stale > 0:
		return exitf(ExitScript, "apply: %d of %d changes were stale and not applied: plan again", stale, len(res))
	}
	return nil
}

// confirmApply asks on a terminal; elsewhere only --yes applies a spec.
func (a *app) confirmApply(n int) bool {
	ask := a.undoConfirm()
	return ask != nil && ask(fmt.Sprintf("apply %s?", changes(n)))
}

// readPlanFile reads path as a plan file; isPlan is false for anything
// else (a spec). A plan file is a regular file (a FIFO is refused, not
// waited on) of at most boundedfile.Plan bytes.
func readPlanFile(path string) (desired.Plan, bool, error) {
	var p desired.Plan
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".json" {
		return p, false, nil
	}
	b, err := boundedfile.Read(path, boundedfile.Plan)
	if err != nil {
		return p, false, exitf(ExitUsage, "apply: %v", err)
	}
	var probe struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.Format == "" {
		return p, false, nil // a JSON spec
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, false, exitf(ExitUsage, "apply: %s: not a plan file: %v", path, err)
	}
	if p.Format != desired.PlanFormat {
		return p, false, exitf(ExitUsage, "apply: %s: plan format %q; this kadmin-lua reads %q: plan again", path, p.Format, desired.PlanFormat)
	}
	return p, true, nil
}

func writePlan(path string, p desired.Plan) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return exitf(ExitScript, "plan: %v", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return exitf(ExitScript, "plan: writing %s: %v", path, err)
	}
	return nil
}

func (a *app) printPlan(p desired.Plan) error {
	if ok, err := a.printData("plan", p); ok {
		return err
	}
	if len(p.Changes) == 0 {
		return writeText(a.st.Stdout, "No changes: the cluster matches the spec.\n")
	}
	tw := tabwriter.NewWriter(a.st.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tKIND\tNAME\tCHANGE")
	for _, ch := range p.Changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ch.Action, ch.Kind, luaapi.CellText(ch.Name), luaapi.CellText(ch.String()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeText(a.st.Stdout, fmt.Sprintf("Plan: %s.\nDigest: %s\n", changes(len(p.Changes)), p.Digest))
}

func (a *app) printApplied(res []desired.AppliedChange) error {
	if res == nil {
		res = []desired.AppliedChange{}
	}
	if ok, err := a.printData("apply", res); ok {
		return err
	}
	if len(res) == 0 {
		return writeText(a.st.Stdout, "No changes: the cluster matches the spec.\n")
	}
	tw := tabwriter.NewWriter(a.st.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tACTION\tKIND\tNAME\tMESSAGE")
	for _, r := range res {
		msg := r.String()
		switch {
		case r.Stale != "":
			msg = r.Stale + " since the plan; plan again"
		case r.Err != nil:
			msg = r.Err.Error()
		case r.Note != "":
			msg += " (" + r.Note + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Status, r.Action, r.Kind, luaapi.CellText(r.Name), luaapi.CellText(msg))
	}
	return tw.Flush()
}

// changes is "1 change", "2 changes".
func changes(n int) string {
	if n == 1 {
		return "1 change"
	}
	return fmt.Sprintf("%d changes", n)
}
