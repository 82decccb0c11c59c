package main

import (
	"crypto/tls"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	corev1 "k8s.io/api/core/v1"

	"github.com/kadmin-lua/kadmin-lua/internal/testpki"
)

// strimziWorld is a Strimzi-like cluster for the manifests: TLS with the
// cluster CA, SCRAM-SHA-512 for the KafkaUser "kadmin-lua", and the
// contents of the Secrets Strimzi would make.
type strimziWorld struct {
	c         *cluster
	pki       *testpki.PKI
	secrets   map[string]map[string][]byte // Secret name -> key -> value
	bootstrap string                       // what the config file names
	admin     *kadm.Client
}

func newStrimziWorld(t *testing.T) *strimziWorld {
	p := testpki.New(t)
	const userPass = "generated-by-strimzi"
	c := newCluster(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{p.Server}, MinVersion: tls.VersionTLS12}),
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "admin", "admin-pass"), kfake.User("SCRAM-SHA-512", "kadmin-lua", userPass))
	caPEM, err := os.ReadFile(p.CAFile)
	require.NoError(t, err)
	adm := c.admin(t, kgo.DialTLSConfig(&tls.Config{RootCAs: p.Pool}), kgo.SASL(scram.Auth{User: "admin", Pass: "admin-pass"}.AsSha512Mechanism()))
	return &strimziWorld{c: c, pki: p, admin: adm, bootstrap: "my-cluster-kafka-bootstrap:9093",
		secrets: map[string]map[string][]byte{
			"kadmin-lua":                 {"password": []byte(userPass), "sasl.jaas.config": []byte(`org.apache.kafka.common.security.scram.ScramLoginModule required username="kadmin-lua" password="` + userPass + `";`)},
			"my-cluster-cluster-ca-cert": {"ca.crt": caPEM},
		}}
}

// runPod runs a manifest's kadmin-lua container in-process as the pod would:
// its args and environment as written, its volumes laid out under a
// temporary root (paths in the args and the ConfigMap's files moved under
// it), its working directory. The only other change is the brokers' name:
// the config file's bootstrap address becomes the test cluster's.
func (w *strimziWorld) runPod(t *testing.T, r *rendered, spec *corev1.PodSpec) (*cli, int) {
	t.Helper()
	root := t.TempDir()
	c := spec.Containers[slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == "kadmin-lua" })]
	var mounts []string
	for _, m := range c.VolumeMounts {
		mounts = append(mounts, m.MountPath)
	}
	slices.SortFunc(mounts, func(a, b string) int { return len(b) - len(a) })
	moved := func(s string) string {
		for _, m := range mounts {
			s = strings.ReplaceAll(s, m, filepath.Join(root, m))
		}
		return s
	}
	for _, m := range c.VolumeMounts {
		dir := filepath.Join(root, m.MountPath)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		v := spec.Volumes[slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })]
		switch {
		case v.ConfigMap != nil:
			for k, val := range r.configMaps[v.ConfigMap.Name].Data {
				val = strings.ReplaceAll(moved(val), w.bootstrap, w.c.addrs)
				require.NoError(t, os.WriteFile(filepath.Join(dir, k), []byte(val), 0o644))
			}
		case v.Secret != nil:
			for _, it := range v.Secret.Items {
				require.NoError(t, os.WriteFile(filepath.Join(dir, it.Path), w.secrets[v.Secret.SecretName][it.Key], 0o600))
			}
		}
	}
	cl := newCLI(t)
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			cl.env[e.Name] = string(w.secrets[ref.Name][ref.Key])
		default:
			cl.env[e.Name] = moved(e.Value)
		}
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = moved(a)
	}
	require.Empty(t, c.Command, "the image's entrypoint runs")
	t.Chdir(filepath.Join(root, c.WorkingDir))
	return cl, cl.run(args...)
}

// TestKubernetesCronJobRunsCheckLagAsTheManifestWould: the provisioning Job
// makes its topics on a ready cluster, then the documented CronJob runs the
// shipped check-lag with the manifest's arguments and environment: logged
// in with the KafkaUser's password over TLS with the cluster CA, its state
// kept in the cluster, so that its second pod's window holds the first
// pod's sample.
func TestKubernetesCronJobRunsCheckLagAsTheManifestWould(t *testing.T) {
	r := renderDeploy(t)
	w := newStrimziWorld(t)

	job := r.jobs["kadmin-lua-provision"]
	run, code := w.runPod(t, r, &job.Spec.Template.Spec)
	require.Equal(t, ExitOK, code, run.stderr.String())
	assert.Equal(t, "orders\tcreated\n", run.stdout.String())
	assert.Contains(t, run.stderr.String(), "cluster ready")

	kc, err := kgo.NewClient(kgo.SeedBrokers(w.c.ListenAddrs()...), kgo.DialTLSConfig(&tls.Config{RootCAs: w.pki.Pool}),
		kgo.SASL(scram.Auth{User: "admin", Pass: "admin-pass"}.AsSha512Mechanism()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	recs := make([]*kgo.Record, 50)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: "orders", Partition: 0, Value: []byte("v")}
	}
	require.NoError(t, kc.ProduceSync(ctx(t), recs...).FirstErr())
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 10, LeaderEpoch: -1})
	_, err = w.admin.CommitOffsets(ctx(t), "billing", offs)
	require.NoError(t, err)

	cj := r.cronJobs["kadmin-lua-check-lag"]
	pod := &cj.Spec.JobTemplate.Spec.Template.Spec
	complete := func(c *cli) float64 {
		var rows []map[string]any
		require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &rows), c.stdout.String())
		for _, row := range rows {
			if row["group"] == "billing" {
				return row["complete"].(float64)
			}
		}
		t.Fatalf("no row for billing: %s", c.stdout.String())
		return 0
	}
	first, code := w.runPod(t, r, pod)
	require.Equal(t, ExitOK, code, first.stderr.String())
	assert.Zero(t, complete(first), "one sample: no window yet")
	topics, err := w.admin.ListTopics(ctx(t))
	require.NoError(t, err)
	assert.True(t, topics.Has("kadmin-lua-state"), "the state is kept in the cluster")

	time.Sleep(1100 * time.Millisecond) // past the samples' min-distance (the CLI has no driven clock)
	second, code := w.runPod(t, r, pod)
	require.Equal(t, ExitOK, code, second.stderr.String())
	assert.Positive(t, complete(second), "the second pod's window holds the first pod's sample")
	assert.NotContains(t, first.stdout.String()+first.stderr.String()+second.stdout.String()+second.stderr.String(), "generated-by-strimzi")

	// The loop's arguments parse, and name a metrics file in its emptyDir.
	loop := r.deployments["kadmin-lua-lag-metrics"]
	args := strings.Join(loop.Spec.Template.Spec.Containers[0].Args, " ")
	assert.Contains(t, args, "--metrics-file /metrics/kadmin-lag.prom")
}
