{{/*
Value combinations the schema cannot express, each refused with one sentence naming the value.
Included by the ConfigMap, so `helm template` and `helm install` stop before anything is made.
*/}}
{{- define "tideway.validate" -}}
{{- $v := .Values -}}
{{- if and $v.redis.enabled $v.redis.external.address -}}
{{- fail "redis.external.address is set while redis.enabled is true: use the chart's Redis (redis.enabled) or an external one (redis.enabled=false), not both" -}}
{{- end -}}
{{- if and (gt (int $v.coordinator.replicas) 1) (not (include "tideway.stateInRedis" .)) -}}
{{- fail (printf "coordinator.replicas is %d: several coordinators share their state in Redis; set redis.enabled=true or redis.external.address" (int $v.coordinator.replicas)) -}}
{{- end -}}
{{- $storage := (($v.engine.checkpoint | default dict).storage | default dict) -}}
{{- if $v.checkpoints.persistence.enabled -}}
{{- if or (and $storage.type (ne (lower $storage.type) "localfile")) (hasKey $storage "plugin-config") -}}
{{- fail "engine.checkpoint.storage.type or plugin-config is set while checkpoints.persistence.enabled is true: the chart's volume is the localfile storage at /var/lib/tideway/checkpoints/; set checkpoints.persistence.enabled=false to use your own storage (s3, hdfs)" -}}
{{- end -}}
{{- if and (gt (int $v.coordinator.replicas) 1) (not (has "ReadWriteMany" $v.checkpoints.persistence.accessModes)) (not $v.checkpoints.persistence.existingClaim) -}}
{{- fail (printf "checkpoints.persistence.accessModes is %v with %d coordinators: every coordinator mounts the checkpoint folder (a new leader restores what the old one wrote), which needs ReadWriteMany; or use S3 storage (engine.checkpoint.storage) with checkpoints.persistence.enabled=false" $v.checkpoints.persistence.accessModes (int $v.coordinator.replicas)) -}}
{{- end -}}
{{- else if and (gt (int $v.coordinator.replicas) 1) (or (not $storage) (eq (default "localfile" $storage.type) "localfile")) -}}
{{- fail "checkpoints.persistence.enabled is false and engine.checkpoint.storage is a local folder: with several coordinators a new leader must read what the old one wrote; use checkpoints.persistence or engine.checkpoint.storage.type s3 or hdfs" -}}
{{- end -}}
{{- if and $v.tls.enabled (not $v.tls.secretName) -}}
{{- fail "tls.enabled is true but tls.secretName is empty: name the Secret holding ca.pem and <role>.pem / <role>-key.pem of every role (`tideway cluster certs --out DIR`, see the chart's README)" -}}
{{- end -}}
{{- if and $v.auth.certificates (not $v.tls.enabled) -}}
{{- fail "auth.certificates is set while tls.enabled is false: client certificates are read from mutual TLS; enable tls" -}}
{{- end -}}
{{- if or $v.plugins.volume $v.plugins.mountPath -}}
{{- fail "plugins.volume / plugins.mountPath: not supported: Tideway does not load plugins from a folder yet (every plugin is built into the image; see the chart's README), so a mounted plugin folder would be ignored; leave both empty" -}}
{{- end -}}
{{- if $v.worker.preStop.command -}}
{{- if not (kindIs "slice" $v.worker.preStop.command) -}}
{{- fail "worker.preStop.command must be a list (the exec command of the workers' preStop hook)" -}}
{{- end -}}
{{- end -}}
{{- if and $v.metrics.serviceMonitor.enabled (not ($.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor")) -}}
{{- fail "metrics.serviceMonitor.enabled is true but this cluster has no monitoring.coreos.com/v1 ServiceMonitor (the Prometheus Operator's CRD); install the operator first (offline: helm template --api-versions monitoring.coreos.com/v1/ServiceMonitor)" -}}
{{- end -}}
{{- end -}}
