{{/*
Names. The release "tideway" gives the names of the old plain manifests: tideway-coordinator,
tideway-resource-manager, tideway-worker, tideway-redis, tideway-engine.
*/}}
{{- define "tideway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tideway.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "tideway.coordinator" -}}{{ include "tideway.fullname" . }}-coordinator{{- end -}}
{{- define "tideway.resourceManager" -}}{{ include "tideway.fullname" . }}-resource-manager{{- end -}}
{{- define "tideway.worker" -}}{{ include "tideway.fullname" . }}-worker{{- end -}}
{{- define "tideway.redis" -}}{{ include "tideway.fullname" . }}-redis{{- end -}}
{{- define "tideway.engineConfigMap" -}}{{ include "tideway.fullname" . }}-engine{{- end -}}
{{- define "tideway.checkpointClaim" -}}
{{- default (printf "%s-checkpoints" (include "tideway.fullname" .)) .Values.checkpoints.persistence.existingClaim -}}
{{- end -}}
{{- define "tideway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tideway.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object; selectors use only the stable ones. */}}
{{- define "tideway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tideway.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "tideway.labels" -}}
{{ include "tideway.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: tideway
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "tideway.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* host:port of coordinator N under the headless Service: a stable DNS name per pod. */}}
{{- define "tideway.coordinatorAddresses" -}}
{{- $c := include "tideway.coordinator" . -}}
{{- range $i := until (int .Values.coordinator.replicas) }}
- {{ printf "%s-%d.%s:%d" $c $i $c (int $.Values.coordinator.port) }}
{{- end -}}
{{- end -}}

{{/* host:port of the state Redis: the chart's own pod, or the external one. */}}
{{- define "tideway.redisAddress" -}}
{{- if .Values.redis.enabled -}}
{{- printf "%s-0.%s:%d" (include "tideway.redis" .) (include "tideway.redis" .) (int .Values.redis.port) -}}
{{- else -}}
{{- .Values.redis.external.address -}}
{{- end -}}
{{- end -}}

{{- define "tideway.stateInRedis" -}}
{{- if or .Values.redis.enabled .Values.redis.external.address -}}true{{- end -}}
{{- end -}}

{{/*
The address a worker registers with (and the others dial). Plaintext: its pod IP. With TLS the
coordinator checks the worker's certificate against the name it dials, and no certificate can
list pod IPs in advance: the worker then advertises its pod's DNS name under the headless worker
Service (spec.subdomain), which one wildcard name covers: *.<worker Service>.<namespace>.svc.
POD_IP and POD_NAME are filled in by the container before the process starts.
*/}}
{{- define "tideway.workerAdvertisedAddress" -}}
{{- if .Values.tls.enabled -}}
{{- printf "POD_NAME.%s.%s.svc:%d" (include "tideway.worker" .) .Release.Namespace (int .Values.worker.port) -}}
{{- else -}}
{{- printf "POD_IP:%d" (int .Values.worker.port) -}}
{{- end -}}
{{- end -}}

{{/* The host names the role certificates must hold (docs: `tideway cluster certs --host`). */}}
{{- define "tideway.tlsHosts" -}}
{{- $c := include "tideway.coordinator" . -}}
{{- range $i := until (int .Values.coordinator.replicas) }}
- {{ printf "%s-%d.%s" $c $i $c | quote }}
{{- end }}
- {{ include "tideway.resourceManager" . | quote }}
- {{ printf "*.%s.%s.svc" (include "tideway.worker" .) .Release.Namespace | quote }}
{{- end -}}

{{/* The TLS block of a role's engine config, the files mounted from the Secret. */}}
{{- define "tideway.tlsConfig" -}}
{{- if .root.Values.tls.enabled }}
tls:
  ca-file: /etc/tideway/tls/ca.pem
  cert-file: /etc/tideway/tls/{{ .role }}.pem
  key-file: /etc/tideway/tls/{{ .role }}-key.pem
{{- end -}}
{{- end -}}

{{/*
Probes: GET /readyz and /livez on the metrics port (HTTPS with TLS: server TLS only, the kubelet
does not verify the certificate and needs no client certificate). /readyz is false while a
coordinator follows without a live leader, or a worker is not registered with the resource
manager. A role's readinessProbe / livenessProbe value replaces these.
*/}}
{{- define "tideway.probes" -}}
{{- $v := .values -}}
{{- if $v.readinessProbe }}
readinessProbe:
  {{- toYaml $v.readinessProbe | nindent 2 }}
{{- else }}
readinessProbe:
  httpGet: { path: /readyz, port: metrics, scheme: {{ .root.Values.tls.enabled | ternary "HTTPS" "HTTP" }} }
  periodSeconds: 5
{{- end }}
{{- if $v.livenessProbe }}
livenessProbe:
  {{- toYaml $v.livenessProbe | nindent 2 }}
{{- else }}
livenessProbe:
  httpGet: { path: /livez, port: metrics, scheme: {{ .root.Values.tls.enabled | ternary "HTTPS" "HTTP" }} }
  initialDelaySeconds: 20
  periodSeconds: 10
{{- end }}
{{- end -}}

{{/* Prometheus scrape annotations of a pod template. */}}
{{- define "tideway.scrapeAnnotations" -}}
{{- if .root.Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .port | quote }}
prometheus.io/path: /metrics
{{- if .root.Values.tls.enabled }}
prometheus.io/scheme: https
{{- end }}
{{- end }}
{{- end -}}

{{/* Pod-level settings every Tideway pod shares. */}}
{{- define "tideway.podSpecCommon" -}}
serviceAccountName: {{ include "tideway.serviceAccountName" .root }}
automountServiceAccountToken: {{ .root.Values.serviceAccount.automountToken }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Volumes every Tideway pod shares: its engine config, a writable /tmp, and its TLS files. */}}
{{- define "tideway.commonVolumes" -}}
- name: engine
  configMap:
    name: {{ include "tideway.engineConfigMap" .root }}
    items:
      - { key: {{ .role }}.yaml, path: {{ .role }}.yaml }
- name: tmp
  {{- if .root.Values.tmpSizeLimit }}
  emptyDir: { sizeLimit: {{ .root.Values.tmpSizeLimit }} }
  {{- else }}
  emptyDir: {}
  {{- end }}
{{- if .root.Values.tls.enabled }}
- name: tls
  secret:
    secretName: {{ .root.Values.tls.secretName }}
    defaultMode: 0440
    items:
      - { key: ca.pem, path: ca.pem }
      - { key: {{ .role }}.pem, path: {{ .role }}.pem }
      - { key: {{ .role }}-key.pem, path: {{ .role }}-key.pem }
{{- end }}
{{- end -}}

{{- define "tideway.commonMounts" -}}
- { name: engine, mountPath: /etc/tideway/engine, readOnly: true }
- { name: tmp, mountPath: /tmp }
{{- if .root.Values.tls.enabled }}
- { name: tls, mountPath: /etc/tideway/tls, readOnly: true }
{{- end }}
{{- end -}}

{{/* The CLI inside the image, as deploy/Dockerfile's entrypoint runs it. */}}
{{- define "tideway.cli" -}}
node --import tsx --conditions=source services/cli/src/main.ts
{{- end -}}
