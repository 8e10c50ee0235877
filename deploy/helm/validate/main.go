// Command tideway-k8s-validate checks rendered Kubernetes manifests (the output of `helm
// template`) without a cluster: every YAML document is decoded strictly into the typed Go
// struct of its apiVersion and kind, from the k8s.io/api module (and the Prometheus Operator's
// for ServiceMonitor), the same structs the API server decodes into. An unknown kind, an unknown
// or duplicated field, or a value of the wrong type fails. A few rules the API server's
// validation applies beyond the types are checked too (names, labels, selectors, port names).
//
// Usage: helm template ... | tideway-k8s-validate   (or tideway-k8s-validate FILE...)
// Prints one line per document; exits 1 when any document fails, 2 when nothing can be read.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	sch := runtime.NewScheme()
	if err := scheme.AddToScheme(sch); err != nil {
		fail(err)
	}
	if err := monitoringv1.AddToScheme(sch); err != nil {
		fail(err)
	}
	decoder := serializer.NewCodecFactory(sch, serializer.EnableStrict).UniversalDeserializer()

	var inputs []namedReader
	if len(os.Args) > 1 {
		for _, path := range os.Args[1:] {
			f, err := os.Open(path)
			if err != nil {
				fail(err)
			}
			defer f.Close()
			inputs = append(inputs, namedReader{path, f})
		}
	} else {
		inputs = append(inputs, namedReader{"<stdin>", os.Stdin})
	}

	count, failed := 0, 0
	for _, in := range inputs {
		reader := utilyaml.NewYAMLReader(bufio.NewReader(in.r))
		for index := 1; ; index++ {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				fail(fmt.Errorf("%s: document %d: %w", in.name, index, err))
			}
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			count++
			obj, gvk, err := decoder.Decode(doc, nil, nil)
			where := fmt.Sprintf("%s: document %d", in.name, index)
			if gvk != nil {
				where += fmt.Sprintf(" (%s %s)", gvk.GroupVersion().String(), gvk.Kind)
			}
			if err == nil {
				err = rules(obj)
			}
			if err != nil {
				failed++
				fmt.Printf("FAIL %s %s: %v\n", where, nameOf(obj), err)
				continue
			}
			fmt.Printf("ok   %s %s\n", where, nameOf(obj))
		}
	}
	if count == 0 {
		fail(errors.New("no Kubernetes documents in the input"))
	}
	fmt.Printf("%d documents, %d failed\n", count, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

type namedReader struct {
	name string
	r    io.Reader
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "tideway-k8s-validate: %v\n", err)
	os.Exit(2)
}

// stripComments drops whole-line comments, so a document of comments only counts as empty.
func stripComments(doc []byte) []byte {
	var out bytes.Buffer
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			out.WriteString(line)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

func nameOf(obj runtime.Object) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetName()
	}
	return ""
}

// rules checks what the types alone do not: valid object names, labels and annotations keys,
// workload selectors that match their pod template, container and port names, and probes and
// Services that name ports the containers have.
func rules(obj runtime.Object) error {
	m, ok := obj.(metav1.Object)
	if !ok {
		return fmt.Errorf("not an object with metadata")
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if m.GetName() == "" {
		add("metadata.name is empty")
	}
	for _, msg := range validation.IsDNS1123Subdomain(m.GetName()) {
		add("metadata.name %q: %s", m.GetName(), msg)
	}
	checkLabels := func(where string, l map[string]string) {
		for k, v := range l {
			for _, msg := range validation.IsQualifiedName(k) {
				add("%s key %q: %s", where, k, msg)
			}
			for _, msg := range validation.IsValidLabelValue(v) {
				add("%s %q value %q: %s", where, k, v, msg)
			}
		}
	}
	checkLabels("metadata.labels", m.GetLabels())
	for k := range m.GetAnnotations() {
		for _, msg := range validation.IsQualifiedName(strings.ToLower(k)) {
			add("metadata.annotations key %q: %s", k, msg)
		}
	}
	workload := func(selector *metav1.LabelSelector, tpl *corev1.PodTemplateSpec, claims ...string) {
		if selector == nil {
			add("spec.selector is missing")
			return
		}
		sel, err := metav1.LabelSelectorAsSelector(selector)
		if err != nil {
			add("spec.selector: %v", err)
			return
		}
		if !sel.Matches(labels.Set(tpl.Labels)) {
			add("spec.selector %s does not match the pod template's labels %v", sel, tpl.Labels)
		}
		checkLabels("spec.template.metadata.labels", tpl.Labels)
		podSpec(&tpl.Spec, claims, add)
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		workload(o.Spec.Selector, &o.Spec.Template)
	case *appsv1.StatefulSet:
		var claims []string
		for _, c := range o.Spec.VolumeClaimTemplates {
			claims = append(claims, c.Name)
		}
		workload(o.Spec.Selector, &o.Spec.Template, claims...)
		if o.Spec.ServiceName == "" {
			add("spec.serviceName is empty")
		}
	case *appsv1.DaemonSet:
		workload(o.Spec.Selector, &o.Spec.Template)
	case *corev1.Pod:
		podSpec(&o.Spec, nil, add)
	case *corev1.Service:
		for _, p := range o.Spec.Ports {
			if p.Port < 1 || p.Port > 65535 {
				add("spec.ports %q: port %d out of range", p.Name, p.Port)
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// podSpec checks a pod template; claims are a StatefulSet's volume claim templates, which its
// containers mount like volumes.
func podSpec(spec *corev1.PodSpec, claims []string, add func(string, ...any)) {
	if len(spec.Containers) == 0 {
		add("the pod template has no containers")
	}
	volumes := map[string]bool{}
	for _, c := range claims {
		volumes[c] = true
	}
	for _, v := range spec.Volumes {
		if volumes[v.Name] {
			add("volume %q is listed twice", v.Name)
		}
		volumes[v.Name] = true
	}
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			add("container name %q: %s", c.Name, msg)
		}
		ports := map[string]bool{}
		for _, p := range c.Ports {
			if p.Name != "" {
				for _, msg := range validation.IsValidPortName(p.Name) {
					add("container %s port name %q: %s", c.Name, p.Name, msg)
				}
				ports[p.Name] = true
			}
		}
		for _, mount := range c.VolumeMounts {
			if !volumes[mount.Name] {
				add("container %s mounts volume %q, which the pod does not have", c.Name, mount.Name)
			}
		}
		for what, probe := range map[string]*corev1.Probe{"readinessProbe": c.ReadinessProbe, "livenessProbe": c.LivenessProbe, "startupProbe": c.StartupProbe} {
			if probe == nil {
				continue
			}
			handlers := 0
			if probe.Exec != nil {
				handlers++
			}
			if probe.HTTPGet != nil {
				handlers++
				if name := probe.HTTPGet.Port.StrVal; name != "" && !ports[name] {
					add("container %s %s.httpGet names port %q, which the container does not have", c.Name, what, name)
				}
			}
			if probe.TCPSocket != nil {
				handlers++
				if name := probe.TCPSocket.Port.StrVal; name != "" && !ports[name] {
					add("container %s %s.tcpSocket names port %q, which the container does not have", c.Name, what, name)
				}
			}
			if probe.GRPC != nil {
				handlers++
			}
			if handlers != 1 {
				add("container %s %s has %d handlers (exactly one of exec, httpGet, tcpSocket, grpc)", c.Name, what, handlers)
			}
		}
	}
}
