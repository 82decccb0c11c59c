package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	corev1 "k8s.io/api/core/v1"

	"github.com/kadmin-lua/kadmin-lua/internal/testpki"
)

// strimziWorld is a Strimzi-like cluster for the manifests: TLS with the
// cluster CA, the KafkaUser "kadmin-lua", and the contents of the Secrets
// Strimzi would make.
type strimziWorld struct {
	c         *cluster
	pki       *testpki.PKI
	secrets   map[string]map[string][]byte // Secret name -> key -> value
	bootstrap string                       // what the config file names
	admin     *kadm.Client
	login     []kgo.Opt // how the test's own clients reach the cluster
}

// newStrimziWorld is a cluster whose KafkaUser has authentication
// scram-sha-512: its Secret holds password and sasl.jaas.config.
func newStrimziWorld(t *testing.T) *strimziWorld { return newStrimziWorldGranting(t) }

// newStrimziWorldGranting is newStrimziWorld with ACLs enforced when acls
// are given: the KafkaUser may do what they allow and nothing else.
func newStrimziWorldGranting(t *testing.T, acls ...kfake.ACL) *strimziWorld {
	p := testpki.New(t)
	const userPass = "generated-by-strimzi"
	opts := []kfake.Opt{kfake.TLS(&tls.Config{Certificates: []tls.Certificate{p.Server}, MinVersion: tls.VersionTLS12}),
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "admin", "admin-pass"), kfake.User("SCRAM-SHA-512", "kadmin-lua", userPass, acls...)}
	if len(acls) > 0 {
		opts = append(opts, kfake.EnableACLs())
	}
	c := newCluster(t, opts...)
	login := []kgo.Opt{kgo.DialTLSConfig(&tls.Config{RootCAs: p.Pool}), kgo.SASL(scram.Auth{User: "admin", Pass: "admin-pass"}.AsSha512Mechanism())}
	return &strimziWorld{c: c, pki: p, admin: c.admin(t, login...), login: login, bootstrap: "my-cluster-kafka-bootstrap:9093",
		secrets: map[string]map[string][]byte{
			"kadmin-lua":                 {"password": []byte(userPass), "sasl.jaas.config": []byte(`org.apache.kafka.common.security.scram.ScramLoginModule required username="kadmin-lua" password="` + userPass + `";`)},
			"my-cluster-cluster-ca-cert": {"ca.crt": []byte(readFile(t, p.CAFile))},
		}}
}

// newStrimziTLSUserWorld is a cluster whose listener requires a client
// certificate, and whose KafkaUser has authentication tls: its Secret holds
// user.crt, user.key (PKCS #8 PEM, as Strimzi writes it), user.p12,
// user.password and the clients CA's ca.crt.
func newStrimziTLSUserWorld(t *testing.T) *strimziWorld {
	p := testpki.New(t)
	c := newCluster(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{p.Server}, MinVersion: tls.VersionTLS12,
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.Pool}))
	key, err := x509.MarshalPKCS8PrivateKey(p.ClientKey)
	require.NoError(t, err)
	caPEM := []byte(readFile(t, p.CAFile))
	client := tls.Certificate{Certificate: [][]byte{p.Client.Raw}, PrivateKey: p.ClientKey}
	login := []kgo.Opt{kgo.DialTLSConfig(&tls.Config{RootCAs: p.Pool, Certificates: []tls.Certificate{client}})}
	return &strimziWorld{c: c, pki: p, admin: c.admin(t, login...), login: login, bootstrap: "my-cluster-kafka-bootstrap:9093",
		secrets: map[string]map[string][]byte{
			"kadmin-lua": {"user.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.Client.Raw}),
				"user.key": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}),
				"user.p12": []byte("not read"), "user.password": []byte("not read"), "ca.crt": caPEM},
			"my-cluster-cluster-ca-cert": {"ca.crt": caPEM},
		}}
}

// ordersTopic makes the topic the provisioning Job would.
func (w *strimziWorld) ordersTopic(t *testing.T) {
	t.Helper()
	_, err := w.admin.CreateTopic(ctx(t), 1, 3, nil, "orders")
	require.NoError(t, err)
}

// laggingGroup writes 50 records to orders[0] and commits the group
// billing at offset 10: a lag of 40, under check-lag's --max.
func (w *strimziWorld) laggingGroup(t *testing.T) {
	t.Helper()
	kc, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(w.c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner())}, w.login...)...)
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
}

// hasStateTopic asserts the jobs' state topic was made in the cluster.
func (w *strimziWorld) hasStateTopic(t *testing.T, why string) {
	t.Helper()
	topics, err := w.admin.ListTopics(ctx(t))
	require.NoError(t, err)
	assert.True(t, topics.Has("kadmin-lua-state"), why)
}

// billingComplete is the window_complete check-lag's JSON gives billing.
func billingComplete(t *testing.T, c *cli) float64 {
	t.Helper()
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

// runPod runs a manifest's kadmin-lua container in-process as the pod would,
// to its end.
func (w *strimziWorld) runPod(t *testing.T, r *rendered, spec *corev1.PodSpec) (*cli, int) {
	t.Helper()
	cl, args, _ := w.preparePod(t, r, spec)
	return cl, cl.run(args...)
}

// preparePod readies a manifest's kadmin-lua container to run in-process as
// the pod would: its args and environment as written, its volumes laid out
// under a temporary root (paths in the args and the ConfigMap's files moved
// under it), its working directory. The only other change is the brokers'
// name: the config file's bootstrap address becomes the test cluster's. It
// returns the process, its arguments and the root.
func (w *strimziWorld) preparePod(t *testing.T, r *rendered, spec *corev1.PodSpec) (*cli, []string, string) {
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
				val, ok := w.secrets[v.Secret.SecretName][it.Key]
				require.True(t, ok, "the pod would not start: Secret %s has no key %s (volume %s)", v.Secret.SecretName, it.Key, v.Name)
				require.NoError(t, os.WriteFile(filepath.Join(dir, it.Path), val, 0o600))
			}
		}
	}
	cl := newCLI(t)
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			val, ok := w.secrets[ref.Name][ref.Key]
			if !ok && ref.Optional != nil && *ref.Optional {
				continue
			}
			require.True(t, ok, "the pod would not start: Secret %s has no key %s (env %s)", ref.Name, ref.Key, e.Name)
			cl.env[e.Name] = string(val)
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
	return cl, args, root
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

	w.laggingGroup(t)

	cj := r.cronJobs["kadmin-lua-check-lag"]
	pod := &cj.Spec.JobTemplate.Spec.Template.Spec
	first, code := w.runPod(t, r, pod)
	require.Equal(t, ExitOK, code, first.stderr.String())
	assert.Zero(t, billingComplete(t, first), "one sample: no window yet")
	w.hasStateTopic(t, "the state is kept in the cluster")

	time.Sleep(1100 * time.Millisecond) // past the samples' min-distance (the CLI has no driven clock)
	second, code := w.runPod(t, r, pod)
	require.Equal(t, ExitOK, code, second.stderr.String())
	assert.Positive(t, billingComplete(t, second), "the second pod's window holds the first pod's sample")
	assert.NotContains(t, first.stdout.String()+first.stderr.String()+second.stdout.String()+second.stderr.String(), "generated-by-strimzi")
}

// TestKubernetesLoopWritesTheMetricsFileItsSidecarServes: the Deployment's
// kadmin-lua container runs check-lag in loop mode as the manifest says;
// after its first run the metrics file is in the emptyDir that the
// node_exporter sidecar's textfile collector reads, and the SIGTERM
// Kubernetes sends to stop a pod ends the loop (exit 143).
func TestKubernetesLoopWritesTheMetricsFileItsSidecarServes(t *testing.T) {
	r := renderDeploy(t)
	w := newStrimziWorld(t)
	w.ordersTopic(t)
	w.laggingGroup(t)

	spec := &r.deployments["kadmin-lua-lag-metrics"].Spec.Template.Spec
	container := func(name string) corev1.Container {
		i := slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == name })
		require.GreaterOrEqual(t, i, 0, name)
		return spec.Containers[i]
	}
	volumeAt := func(c corev1.Container, path string) string {
		for _, m := range c.VolumeMounts {
			if m.MountPath == path {
				return m.Name
			}
		}
		return ""
	}
	loop, exporter := container("kadmin-lua"), container("node-exporter")
	i := slices.Index(loop.Args, "--metrics-file")
	require.GreaterOrEqual(t, i, 0)
	metricsFile := loop.Args[i+1]
	assert.Equal(t, ".prom", filepath.Ext(metricsFile), "node_exporter's textfile collector reads *.prom only")
	var textfileDir string
	for _, a := range exporter.Args {
		if v, ok := strings.CutPrefix(a, "--collector.textfile.directory="); ok {
			textfileDir = v
		}
	}
	require.NotEmpty(t, textfileDir)
	require.NotEmpty(t, volumeAt(exporter, textfileDir))
	assert.Equal(t, volumeAt(exporter, textfileDir), volumeAt(loop, filepath.Dir(metricsFile)), "the sidecar reads the volume the loop writes")

	cl, args, root := w.preparePod(t, r, spec)
	running := startCLI(cl, nil, args...)
	written := filepath.Join(root, metricsFile)
	waitFor(t, "the first run's metrics file", func() bool {
		b, err := os.ReadFile(written)
		return err == nil && strings.Contains(string(b), "kadmin_lua_run_exit_code")
	})
	prom := readFile(t, written)
	assert.Contains(t, prom, `kadmin_lua_run_exit_code{script="check-lag.lua"} 0`+"\n")
	assert.Contains(t, prom, `kafka_consumergroup_total_lag{group="billing"} 40`+"\n")
	cl.sigs <- syscall.SIGTERM
	assert.Equal(t, "canceled", running.action(t))
	require.Equal(t, ExitTerminated, waitCode(t, running.done), cl.stderr.String())
	w.hasStateTopic(t, "the loop's state is kept in the cluster")
	assert.NotContains(t, prom+cl.stdout.String()+cl.stderr.String(), "generated-by-strimzi")
}

// TestKubernetesStrimziTLSUserReadsTheUserSecretFiles: for a KafkaUser with
// authentication tls, docs/kubernetes.md says to mount the user's Secret at
// /etc/kafka/user, use the profile strimzi-mtls and drop the password's
// env. The CronJob so changed (and in nothing else) keeps the package's rules, and runs check-lag on a
// listener that requires a client certificate with the Secret's user.crt
// and user.key.
func TestKubernetesStrimziTLSUserReadsTheUserSecretFiles(t *testing.T) {
	r := renderDeploy(t)
	w := newStrimziTLSUserWorld(t)
	w.ordersTopic(t)
	w.laggingGroup(t)

	cj := r.cronJobs["kadmin-lua-check-lag"].DeepCopy()
	pod := &cj.Spec.JobTemplate.Spec.Template.Spec
	c := &pod.Containers[0]
	i := slices.Index(c.Args, "--profile")
	require.GreaterOrEqual(t, i, 0)
	c.Args[i+1] = "strimzi-mtls"
	c.Env = nil // the user's Secret has no password: with the env the pod would not start
	pod.Volumes = append(pod.Volumes, corev1.Volume{Name: "user", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: "kadmin-lua", Items: []corev1.KeyToPath{{Key: "user.crt", Path: "user.crt"}, {Key: "user.key", Path: "user.key"}}}}})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "user", MountPath: "/etc/kafka/user", ReadOnly: true})
	checkJob(t, r, "check-lag with a tls KafkaUser", &cj.Spec.JobTemplate.Spec)

	run, code := w.runPod(t, r, pod)
	require.Equal(t, ExitOK, code, run.stderr.String())
	assert.Zero(t, billingComplete(t, run), "one sample: no window yet")
	w.hasStateTopic(t, "the state is kept in the cluster")
	assert.NotContains(t, run.stdout.String()+run.stderr.String(), "PRIVATE KEY")
}

// TestKubernetesCronJobNeedsOnlyTheDocumentedACLs: the KafkaUser granted
// exactly what docs/kubernetes.md lists for check-lag and its state, and
// nothing else, runs the CronJob as written (check-lag with --max-seconds
// reads the first unread records and the topics' retention) twice, the
// second pod judging from the first's state.
func TestKubernetesCronJobNeedsOnlyTheDocumentedACLs(t *testing.T) {
	r := renderDeploy(t)
	allow := func(res kmsg.ACLResourceType, name string, pattern kmsg.ACLResourcePatternType, ops ...kmsg.ACLOperation) []kfake.ACL {
		var out []kfake.ACL
		for _, op := range ops {
			out = append(out, kfake.ACL{Resource: res, Name: name, Pattern: pattern, Operation: op, Allow: true})
		}
		return out
	}
	lit, pre := kmsg.ACLResourcePatternTypeLiteral, kmsg.ACLResourcePatternTypePrefixed
	w := newStrimziWorldGranting(t, slices.Concat(
		allow(kmsg.ACLResourceTypeGroup, "*", lit, kmsg.ACLOperationDescribe),
		allow(kmsg.ACLResourceTypeTopic, "*", lit, kmsg.ACLOperationDescribe, kmsg.ACLOperationRead, kmsg.ACLOperationDescribeConfigs),
		allow(kmsg.ACLResourceTypeCluster, "kafka-cluster", lit, kmsg.ACLOperationDescribe),
		allow(kmsg.ACLResourceTypeTopic, "kadmin-lua-state", lit, kmsg.ACLOperationDescribe, kmsg.ACLOperationRead, kmsg.ACLOperationWrite, kmsg.ACLOperationCreate),
		allow(kmsg.ACLResourceTypeTransactionalId, "kadmin-lua-state/kadmin-lua-state/", pre, kmsg.ACLOperationDescribe, kmsg.ACLOperationWrite),
	)...)
	w.ordersTopic(t)
	w.laggingGroup(t)

	cj := r.cronJobs["kadmin-lua-check-lag"]
	pod := &cj.Spec.JobTemplate.Spec.Template.Spec
	first, code := w.runPod(t, r, pod)
	require.Equal(t, ExitOK, code, first.stderr.String())
	w.hasStateTopic(t, "the state is kept in the cluster")
	time.Sleep(1100 * time.Millisecond) // past the samples' min-distance (the CLI has no driven clock)
	second, code := w.runPod(t, r, pod)
	require.Equal(t, ExitOK, code, second.stderr.String())
	assert.Positive(t, billingComplete(t, second), "the second pod's window holds the first pod's sample")
}
