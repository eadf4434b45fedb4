{{/* The label every object carries and the DaemonSet selects on. */}}
{{- define "enav.labels" -}}
app.kubernetes.io/name: enav
{{- end -}}
