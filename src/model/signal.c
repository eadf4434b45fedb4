/* SPDX-License-Identifier: Apache-2.0 */
#include "model/signal.h"

#include <stdlib.h>

static _Atomic uint64_t live_signals;

struct enav_signal *enav_signal_new(enum enav_signal_kind kind, uint32_t argv_len)
{
	struct enav_signal *s = calloc(1, sizeof(*s) + argv_len);
	if (!s)
		return NULL;
	atomic_init(&s->refs, 1);
	s->kind = kind;
	atomic_fetch_add(&live_signals, 1);
	return s;
}

void enav_signal_ref(struct enav_signal *s)
{
	atomic_fetch_add(&s->refs, 1);
}

void enav_signal_unref(struct enav_signal *s)
{
	if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
		if (s->attr_release)
			s->attr_release(s->attr_ref);
		atomic_fetch_sub(&live_signals, 1);
		free(s);
	}
}

void enav_signal_warn(struct enav_signal *s, const char *field, const char *reason)
{
	if (s->n_warnings < ENAV_SIGNAL_MAX_WARNINGS)
		s->warnings[s->n_warnings++] = (struct enav_field_warning){field, reason};
}

const char *enav_signal_kind_name(enum enav_signal_kind kind)
{
	switch (kind) {
	case ENAV_SIGNAL_PROCESS_EXEC:
		return "process.exec";
	case ENAV_SIGNAL_PROCESS_EXIT:
		return "process.exit";
	case ENAV_SIGNAL_TCP_OPEN:
		return "tcp.open";
	case ENAV_SIGNAL_TCP_CLOSE:
		return "tcp.close";
	case ENAV_SIGNAL_TCP_FAILED:
		return "tcp.failed";
	case ENAV_SIGNAL_DNS:
		return "dns.response";
	case ENAV_SIGNAL_EDGE:
		return "network.edge";
	case ENAV_SIGNAL_FINDING:
		return "security.finding";
	case ENAV_SIGNAL_SPAN:
		return "span";
	case ENAV_SIGNAL_CRED_CHANGE:
		return "process.cred_change";
	case ENAV_SIGNAL_FILE_OPEN:
		return "file.open";
	case ENAV_SIGNAL_BPF_ACCESS:
		return "agent.bpf_access";
	case ENAV_SIGNAL__COUNT:
		break;
	}
	return "unknown";
}

uint64_t enav_signal_live_count(void)
{
	return atomic_load(&live_signals);
}
