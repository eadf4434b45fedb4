build-km/obj/src/features/security/self_guard_source.o: \
  src/features/security/self_guard_source.c \
  src/features/security/self_guard_source.h src/runtime/host.h \
  src/config/config.h src/platform/log.h src/platform/promtext.h \
  src/model/signal.h include/enav/abi.h src/model/cgroup_path.h \
  src/model/l7_op.h src/model/protocols.h src/probe/features.h \
  src/platform/clock.h src/discovery/capture_filter.h \
  src/platform/u64map.h build-km/bpf/self_guard_perf.skel.h \
  build-km/bpf/self_guard_ringbuf.skel.h src/runtime/bpf_source.h \
  src/runtime/bpf_refusal.h src/runtime/event_decode.h \
  src/runtime/transport.h src/platform/tracefs.h

src/features/security/self_guard_source.h:

src/runtime/host.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/probe/features.h:

src/platform/clock.h:

src/discovery/capture_filter.h:

src/platform/u64map.h:

build-km/bpf/self_guard_perf.skel.h:

build-km/bpf/self_guard_ringbuf.skel.h:

src/runtime/bpf_source.h:

src/runtime/bpf_refusal.h:

src/runtime/event_decode.h:

src/runtime/transport.h:

src/platform/tracefs.h:
