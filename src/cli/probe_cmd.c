/* SPDX-License-Identifier: Apache-2.0 */
/* `enav probe`: one row per capability, then the choices `auto` would make,
 * then (unless --skip-load-check) each feature as the agent's own programs
 * loaded.  A skipped check names itself and lists no feature: the probe
 * never says a program loads without having loaded it. */
#include <stdio.h>
#include <string.h>

#include "platform/json.h"
#include "probe/privileges.h"
#include "probe/features.h"

static void print_json(const struct enav_features *f, const struct enav_decisions *d, int rc,
		       const char *err, const struct enav_privileges *need,
		       const struct enav_probe_loads *loads, const char *check, const char *why)
{
	char start[256], runtime[256];
	enav_caps_format(need->start, start, sizeof(start));
	enav_caps_format(need->runtime, runtime, sizeof(runtime));
	static char buf[32768];
	struct enav_json j;
	enav_json_init(&j, buf, sizeof(buf));
	enav_json_object_begin(&j);
	enav_json_kv_string(&j, "kernel_release", f->kernel_release);
	enav_json_key(&j, "capabilities");
	enav_json_object_begin(&j);
	for (int i = 0; i < ENAV_FEAT__COUNT; i++) {
		enav_json_key(&j, enav_feature_name(i));
		enav_json_object_begin(&j);
		enav_json_kv_string(&j, "status", enav_probe_status_name(f->feat[i].status));
		enav_json_kv_i64(&j, "errno", f->feat[i].err);
		enav_json_kv_string(&j, "detail", f->feat[i].detail);
		enav_json_object_end(&j);
	}
	enav_json_object_end(&j);
	enav_json_key(&j, "cgroup");
	enav_json_object_begin(&j);
	enav_json_kv_string(&j, "layout", enav_cgroup_layout_name(f->cgroup_layout));
	enav_json_kv_string(&j, "cgroup2_mount", f->cgroup2_mount);
	enav_json_object_end(&j);
	enav_json_key(&j, "privileges");
	enav_json_object_begin(&j);
	for (int i = 0; i < ENAV_CAP__COUNT; i++)
		enav_json_kv_bool(&j, enav_cap_name(i), f->caps[i]);
	enav_json_object_end(&j);
	/* The minimal sets for this configuration (docs/deployment.md). */
	enav_json_key(&j, "needed_capabilities");
	enav_json_object_begin(&j);
	enav_json_kv_string(&j, "start", start);
	enav_json_kv_string(&j, "runtime", runtime);
	enav_json_kv_string(&j, "kept_for", why);
	enav_json_object_end(&j);
	enav_json_kv_bool(&j, "can_run", rc == 0);
	if (rc == 0) {
		enav_json_key(&j, "auto");
		enav_json_object_begin(&j);
		enav_json_kv_string(&j, "transport", enav_transport_choice_name(d->transport));
		enav_json_kv_string(&j, "transport_reason", d->transport_reason);
		enav_json_kv_string(&j, "hooks", enav_hook_choice_name(d->hooks));
		enav_json_kv_string(&j, "hooks_reason", d->hooks_reason);
		enav_json_kv_string(&j, "exec_hook",
				    d->exec_hook == ENAV_EXEC_HOOK_TP_BTF ? "tp_btf" : "raw_tp");
		enav_json_kv_string(&j, "payload_hook", enav_payload_hook_name(d->payload_hook));
		enav_json_kv_string(&j, "payload_hook_reason", d->payload_hook_reason);
		enav_json_object_end(&j);
	} else {
		enav_json_kv_string(&j, "error", err);
	}
	/* The agent's own programs, loaded with this configuration (empty when
	 * the agent cannot run here); no list at all when the check was skipped. */
	enav_json_kv_string(&j, "load_check", check);
	if (strcmp(check, "skipped") != 0) {
		enav_json_key(&j, "features");
		enav_json_array_begin(&j);
		for (unsigned i = 0; i < loads->n; i++) {
			const struct enav_probe_load_row *r = &loads->rows[i];
			enav_json_object_begin(&j);
			enav_json_kv_string(&j, "source", r->source);
			enav_json_kv_string(&j, "feature", r->feature);
			enav_json_kv_string(&j, "state", r->state);
			enav_json_kv_string(&j, "program", r->program);
			enav_json_kv_string(&j, "detail", r->detail);
			enav_json_object_end(&j);
		}
		enav_json_array_end(&j);
	}
	enav_json_object_end(&j);
	if (enav_json_finish(&j) >= 0)
		printf("%s\n", buf);
}

static void print_text(const struct enav_features *f, const struct enav_decisions *d, int rc,
		       const char *err, const struct enav_privileges *need,
		       const struct enav_probe_loads *loads, const char *check, const char *why)
{
	char start[256], runtime[256];
	enav_caps_format(need->start, start, sizeof(start));
	enav_caps_format(need->runtime, runtime, sizeof(runtime));
	printf("%-22s %-8s %s\n", "capability", "status", "evidence");
	printf("%-22s %-8s %s\n", "kernel", "-", f->kernel_release);
	for (int i = 0; i < ENAV_FEAT__COUNT; i++)
		printf("%-22s %-8s %s\n", enav_feature_name(i),
		       enav_probe_status_name(f->feat[i].status), f->feat[i].detail);
	printf("%-22s %-8s %s\n", "cgroup_layout", enav_cgroup_layout_name(f->cgroup_layout),
	       f->cgroup2_mount[0] ? f->cgroup2_mount : "(no cgroup2 mount)");
	for (int i = 0; i < ENAV_CAP__COUNT; i++)
		printf("%-22s %-8s %s\n", enav_cap_name(i), f->caps[i] ? "yes" : "no",
		       "effective capability set");
	printf("%-22s %-8s %s\n", "caps_to_start", "-", start);
	printf("%-22s %-8s %s\n", "caps_after_start", "-", runtime);
	printf("%-22s %-8s %s\n", "caps_kept_for", "-", why);
	if (rc == 0) {
		printf("%-22s %-8s %s\n", "auto_transport",
		       enav_transport_choice_name(d->transport), d->transport_reason);
		printf("%-22s %-8s %s\n", "auto_hooks", enav_hook_choice_name(d->hooks),
		       d->hooks_reason);
		printf("%-22s %-8s %s\n", "exec_hook",
		       d->exec_hook == ENAV_EXEC_HOOK_TP_BTF ? "tp_btf" : "raw_tp",
		       "program variant the exec source loads");
		printf("%-22s %-8s %s\n", "payload_hook", enav_payload_hook_name(d->payload_hook),
		       d->payload_hook_reason);
		if (!strcmp(check, "skipped"))
			printf("%-22s %-8s %s\n", "load_check", "skipped",
			       "--skip-load-check: the agent's programs were not loaded; no "
			       "feature is listed");
		for (unsigned i = 0; i < loads->n; i++) {
			const struct enav_probe_load_row *r = &loads->rows[i];
			char name[64];
			snprintf(name, sizeof(name), "%s/%s", r->source, r->feature);
			printf("%-22s %-8s %s%s%s\n", name, strcmp(r->state, "on") ? "off" : "yes",
			       r->state, r->program[0] ? ": " : "", r->program);
			if (r->detail[0])
				printf("%-22s %-8s %s\n", "", "", r->detail);
		}
		printf("verdict: enav can run here\n");
	} else {
		printf("verdict: enav cannot run here: %s\n", err);
	}
}

int enav_probe_command(const struct enav_config *cfg, bool json, enav_probe_load_fn load_check)
{
	struct enav_features f;
	struct enav_decisions d;
	char err[256] = "";
	enav_features_probe(&f);
	/* The probe reports what `auto` would pick, whatever the config says. */
	struct enav_config autocfg = *cfg;
	autocfg.transport = ENAV_TRANSPORT_AUTO;
	autocfg.hooks = ENAV_HOOKS_AUTO;
	memset(&d, 0, sizeof(d));
	int rc = enav_features_decide(&f, &autocfg, &d, err, sizeof(err));
	struct enav_privileges need;
	enav_privileges_needed(cfg, &need);
	/* Then what this configuration's own choices load (hooks, transport). */
	static struct enav_probe_loads loads;
	struct enav_decisions mine;
	char err2[256];
	/* done: loaded; skipped: asked not to (load_check NULL); not_run: the
	 * agent cannot run here or this configuration's choices fail. */
	const char *check = load_check ? "not_run" : "skipped";
	if (rc == 0 && load_check &&
	    enav_features_decide(&f, cfg, &mine, err2, sizeof(err2)) == 0) {
		load_check(cfg, &f, &mine, &loads);
		check = "done";
	}
	static char why[1024];
	enav_caps_reasons_format(cfg, why, sizeof(why));
	if (json)
		print_json(&f, &d, rc, err, &need, &loads, check, why);
	else
		print_text(&f, &d, rc, err, &need, &loads, check, why);
	return rc == 0 ? 0 : 1;
}
