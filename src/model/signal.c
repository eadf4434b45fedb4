/* SPDX-License-Identifier: Apache-2.0 */
#include "model/signal.h"

#include <stdlib.h>
#include <string.h>

#include "model/cgroup_path.h"

static _Atomic uint64_t live_signals;

static const struct enav_cgroup_identity no_identity;

#define TAIL_ALIGN _Alignof(max_align_t)

/* The end of member m of the payload union. */
#define END_OF(m) (offsetof(struct enav_signal, m) + sizeof(((struct enav_signal *)0)->m))

/* Where the kind's payload ends: the header plus its own union member. */
static size_t payload_end(enum enav_signal_kind kind)
{
	switch (kind) {
	case ENAV_SIGNAL_TCP_OPEN:
	case ENAV_SIGNAL_TCP_CLOSE:
	case ENAV_SIGNAL_TCP_FAILED:
	case ENAV_SIGNAL_DNS:
		return END_OF(net);
	case ENAV_SIGNAL_SPAN:
		return END_OF(span);
	case ENAV_SIGNAL_EDGE:
		return END_OF(edge);
	case ENAV_SIGNAL_CRED_CHANGE:
		return END_OF(cred);
	case ENAV_SIGNAL_BPF_ACCESS:
		return END_OF(bpf);
	case ENAV_SIGNAL_FILE_OPEN:
		return END_OF(file);
	case ENAV_SIGNAL_FINDING:
		return END_OF(finding);
	case ENAV_SIGNAL_PROCESS_EXEC:
	case ENAV_SIGNAL_PROCESS_EXIT:
	case ENAV_SIGNAL__COUNT:
		break;
	}
	return ENAV_SIGNAL_HEADER_SIZE;
}

static size_t tail_offset(enum enav_signal_kind kind)
{
	return (payload_end(kind) + TAIL_ALIGN - 1) & ~(TAIL_ALIGN - 1);
}

size_t enav_signal_size(enum enav_signal_kind kind, uint32_t tail_len)
{
	return tail_offset(kind) + tail_len;
}

struct enav_signal *enav_signal_new(enum enav_signal_kind kind, uint32_t tail_len)
{
	unsigned char *mem = malloc(enav_signal_size(kind, tail_len));
	if (!mem)
		return NULL;
	memset(mem, 0, payload_end(kind));
	struct enav_signal *s = (struct enav_signal *)mem;
	atomic_init(&s->refs, 1);
	s->kind = kind;
	s->process.filename = "";
	s->process.exe = "";
	s->process.cgroup_path = "";
	s->process.identity = &no_identity;
	s->process.argv = "";
	atomic_fetch_add(&live_signals, 1);
	return s;
}

void *enav_signal_tail(struct enav_signal *s)
{
	return (unsigned char *)s + tail_offset(s->kind);
}

/* Two pins behind one attr_ref. */
struct pin_pair {
	void *first_ref, *second_ref;
	void (*first_release)(void *ref);
	void (*second_release)(void *ref);
};

static void release_pair(void *ref)
{
	struct pin_pair *pp = ref;
	pp->first_release(pp->first_ref);
	pp->second_release(pp->second_ref);
	free(pp);
}

int enav_signal_pin(struct enav_signal *s, void *ref, void (*release)(void *ref))
{
	if (!s->attr_release) {
		s->attr_ref = ref;
		s->attr_release = release;
		return 0;
	}
	struct pin_pair *pp = malloc(sizeof(*pp));
	if (!pp)
		return -1;
	*pp = (struct pin_pair){s->attr_ref, ref, s->attr_release, release};
	s->attr_ref = pp;
	s->attr_release = release_pair;
	return 0;
}

void *enav_signal_pinned(const struct enav_signal *s, void (*release)(void *ref))
{
	void *ref = s->attr_ref;
	void (*rel)(void *) = s->attr_release;
	while (rel == release_pair) {
		const struct pin_pair *pp = ref;
		if (pp->second_release == release)
			return pp->second_ref;
		ref = pp->first_ref;
		rel = pp->first_release;
	}
	return rel == release ? ref : NULL;
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
