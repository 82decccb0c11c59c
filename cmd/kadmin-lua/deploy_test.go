package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// The Kubernetes package (deploy/kubernetes) is plain manifests that
// `kubectl apply -k` applies. Its kustomization may only list resources:
// then what these tests read is exactly what kustomize renders, with no
// kustomize in CI. Each manifest is decoded strictly into the Kubernetes
// API's own Go types (k8s.io/api): a misspelt or misplaced field fails,
// as `kubectl apply --validate=strict` would.

const deployDir = "../../deploy/kubernetes"

// rendered is the package's objects, by kind and name.
type rendered struct {
	configMaps  map[string]*corev1.ConfigMap
	cronJobs    map[string]*batchv1.CronJob
	jobs        map[string]*batchv1.Job
	deployments map[string]*appsv1.Deployment
}

// strictDecode reads one YAML document into out, refusing unknown fields
// and duplicate keys.
func strictDecode(t *testing.T, what string, b []byte, out any) {
	t.Helper()
	j, err := yaml.YAMLToJSONStrict(b)
	require.NoError(t, err, what)
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(out), what)
}

func renderDeploy(t *testing.T) *rendered {
	t.Helper()
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	b, err := os.ReadFile(filepath.Join(deployDir, "kustomization.yaml"))
	require.NoError(t, err)
	strictDecode(t, "kustomization.yaml (resources only: a generator or patch would render differently from what this test reads)", b, &k)
	require.Equal(t, "Kustomization", k.Kind)
	r := &rendered{configMaps: map[string]*corev1.ConfigMap{}, cronJobs: map[string]*batchv1.CronJob{}, jobs: map[string]*batchv1.Job{}, deployments: map[string]*appsv1.Deployment{}}
	files, _ := filepath.Glob(filepath.Join(deployDir, "*.yaml"))
	require.Len(t, k.Resources, len(files)-1, "every manifest is listed in the kustomization")
	for _, f := range k.Resources {
		b, err := os.ReadFile(filepath.Join(deployDir, f))
		require.NoError(t, err)
		require.NotContains(t, string(b), "\n---", "%s: one object a file", f)
		var tm metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal(b, &tm), f)
		var meta *metav1.ObjectMeta
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 ConfigMap":
			o := &corev1.ConfigMap{}
			strictDecode(t, f, b, o)
			r.configMaps[o.Name], meta = o, &o.ObjectMeta
		case "batch/v1 CronJob":
			o := &batchv1.CronJob{}
			strictDecode(t, f, b, o)
			r.cronJobs[o.Name], meta = o, &o.ObjectMeta
		case "batch/v1 Job":
			o := &batchv1.Job{}
			strictDecode(t, f, b, o)
			r.jobs[o.Name], meta = o, &o.ObjectMeta
		case "apps/v1 Deployment":
			o := &appsv1.Deployment{}
			strictDecode(t, f, b, o)
			r.deployments[o.Name], meta = o, &o.ObjectMeta
		default:
			t.Fatalf("%s: %s %s is not a kind this test validates", f, tm.APIVersion, tm.Kind)
		}
		assert.Empty(t, validation.IsDNS1123Subdomain(meta.Name), "%s: name %q", f, meta.Name)
	}
	return r
}

// strimziSecrets are the Secrets the manifests read that Strimzi makes, and
// the keys Strimzi puts in each: the KafkaUser's (named after the user;
// SCRAM: password and sasl.jaas.config; tls: user.crt, user.key, user.p12,
// user.password, ca.crt) and the cluster CA's (CLUSTER-cluster-ca-cert).
var strimziSecrets = map[string][]string{
	"kadmin-lua":                 {"password", "sasl.jaas.config", "ca.crt", "user.crt", "user.key", "user.p12", "user.password"},
	"my-cluster-cluster-ca-cert": {"ca.crt", "ca.p12", "ca.password"},
}

// checkPod holds every pod of the package to the same rules: non-root,
// read-only root file system, no privilege, volumes that exist, credentials
// from Strimzi's Secrets by their keys and never a JAAS string.
func checkPod(t *testing.T, r *rendered, what string, spec *corev1.PodSpec) {
	t.Helper()
	require.NotNil(t, spec.SecurityContext, what)
	require.NotNil(t, spec.SecurityContext.RunAsNonRoot, what)
	assert.True(t, *spec.SecurityContext.RunAsNonRoot, what)
	require.NotEmpty(t, spec.Containers, what)
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
		switch {
		case v.ConfigMap != nil:
			assert.Contains(t, r.configMaps, v.ConfigMap.Name, "%s: volume %s: a ConfigMap of the package", what, v.Name)
		case v.Secret != nil:
			keys, ok := strimziSecrets[v.Secret.SecretName]
			require.True(t, ok, "%s: volume %s: secret %s is none of Strimzi's", what, v.Name, v.Secret.SecretName)
			for _, it := range v.Secret.Items {
				assert.Contains(t, keys, it.Key, "%s: volume %s", what, v.Name)
			}
		case v.EmptyDir != nil:
		default:
			t.Errorf("%s: volume %s: only ConfigMaps, Secrets and emptyDirs", what, v.Name)
		}
	}
	for _, c := range spec.Containers {
		where := what + " container " + c.Name
		assert.Empty(t, validation.IsDNS1123Label(c.Name), where)
		assert.NotEmpty(t, c.Image, where)
		require.NotNil(t, c.SecurityContext, where)
		sc := c.SecurityContext
		require.True(t, sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem, "%s: read-only root file system", where)
		require.True(t, sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation, where)
		require.NotNil(t, sc.Capabilities, where)
		assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop, where)
		require.NotNil(t, c.Resources.Limits.Memory(), where)
		assert.False(t, c.Resources.Limits.Memory().IsZero(), "%s: a memory limit", where)
		for _, m := range c.VolumeMounts {
			assert.Contains(t, volumes, m.Name, "%s: mount %s", where, m.Name)
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				continue
			}
			ref := e.ValueFrom.SecretKeyRef
			assert.Contains(t, strimziSecrets[ref.Name], ref.Key, "%s: env %s", where, e.Name)
			assert.NotEqual(t, "sasl.jaas.config", ref.Key, "%s: no JAAS strings", where)
		}
	}
}

// checkJob holds a Job to the exit codes: a Kafka outage (3) is retried, a
// script error (1), a usage error (2) or a failed check (4) fails the Job
// at once, an evicted pod is retried without counting.
func checkJob(t *testing.T, r *rendered, what string, spec *batchv1.JobSpec) {
	t.Helper()
	pod := &spec.Template.Spec
	checkPod(t, r, what, pod)
	assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy, "%s: podFailurePolicy needs restartPolicy Never", what)
	require.NotNil(t, spec.BackoffLimit, what)
	assert.Positive(t, *spec.BackoffLimit, "%s: a Kafka outage is retried", what)
	require.NotNil(t, spec.PodFailurePolicy, what)
	actions := map[int32]batchv1.PodFailurePolicyAction{}
	disruption := false
	for _, rule := range spec.PodFailurePolicy.Rules {
		if rule.OnExitCodes == nil {
			require.Len(t, rule.OnPodConditions, 1, what)
			disruption = rule.OnPodConditions[0].Type == corev1.DisruptionTarget && rule.Action == batchv1.PodFailurePolicyActionIgnore
			continue
		}
		x := rule.OnExitCodes
		require.NotNil(t, x.ContainerName, what)
		assert.True(t, slices.ContainsFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == *x.ContainerName }), what)
		assert.Equal(t, batchv1.PodFailurePolicyOnExitCodesOpIn, x.Operator, what)
		assert.True(t, slices.IsSorted(x.Values) && !slices.Contains(x.Values, 0), "%s: values ascending, without 0 (Kubernetes refuses both)", what)
		for _, code := range x.Values {
			actions[code] = rule.Action
		}
	}
	assert.Equal(t, map[int32]batchv1.PodFailurePolicyAction{
		ExitScript: batchv1.PodFailurePolicyActionFailJob,
		ExitUsage:  batchv1.PodFailurePolicyActionFailJob,
		ExitCheck:  batchv1.PodFailurePolicyActionFailJob,
		ExitKafka:  batchv1.PodFailurePolicyActionCount,
	}, actions, what)
	assert.True(t, disruption, "%s: an evicted pod is retried, not counted", what)
}

func TestKubernetesManifestsAreValid(t *testing.T) {
	r := renderDeploy(t)
	require.Len(t, r.cronJobs, 1)
	require.Len(t, r.jobs, 1)
	require.Len(t, r.deployments, 1)
	for name, cj := range r.cronJobs {
		assert.Equal(t, batchv1.ForbidConcurrent, cj.Spec.ConcurrencyPolicy, name)
		assert.Len(t, strings.Fields(cj.Spec.Schedule), 5, "%s: a five-field cron schedule", name)
		checkJob(t, r, name, &cj.Spec.JobTemplate.Spec)
		assert.Contains(t, strings.Join(cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args, " "), "--state kafka:", "%s: state in Kafka (no volume)", name)
	}
	for name, j := range r.jobs {
		checkJob(t, r, name, &j.Spec)
	}
	for name, d := range r.deployments {
		checkPod(t, r, name, &d.Spec.Template.Spec)
		require.NotNil(t, d.Spec.Selector, name)
		for k, v := range d.Spec.Selector.MatchLabels {
			assert.Equal(t, v, d.Spec.Template.Labels[k], "%s: the selector selects the pods", name)
		}
		args := strings.Join(d.Spec.Template.Spec.Containers[0].Args, " ")
		assert.Contains(t, args, "--every", name)
		assert.Contains(t, args, "--metrics-file /metrics/", name)
	}
	// The profiles are a kadmin-lua config file.
	cfg := r.configMaps["kadmin-lua"].Data["config.json"]
	_, err := clientconfig.ParseConfigFile("config.json", []byte(cfg))
	require.NoError(t, err)
	assert.NotContains(t, cfg, "jaas")
}
