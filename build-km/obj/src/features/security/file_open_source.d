build-km/obj/src/features/security/file_open_source.o: \
  src/features/security/file_open_source.c \
  src/features/security/file_open_source.h src/runtime/host.h \
  src/config/config.h src/platform/log.h src/platform/promtext.h \
  src/model/signal.h include/enav/abi.h src/model/cgroup_path.h \
  src/model/l7_op.h src/model/protocols.h src/probe/features.h \
  src/platform/clock.h build-km/bpf/file_open_perf.skel.h \
  build-km/bpf/file_open_ringbuf.skel.h src/runtime/bpf_source.h \
  src/runtime/bpf_refusal.h src/runtime/event_decode.h \
  src/runtime/transport.h src/platform/tracefs.h

src/features/security/file_open_source.h:

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

build-km/bpf/file_open_perf.skel.h:

build-km/bpf/file_open_ringbuf.skel.h:

src/runtime/bpf_source.h:

src/runtime/bpf_refusal.h:

src/runtime/event_decode.h:

src/runtime/transport.h:

src/platform/tracefs.h:
