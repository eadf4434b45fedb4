build-km/obj/src/features/profiling/profile_source.o: \
  src/features/profiling/profile_source.c \
  src/features/profiling/profile_source.h src/runtime/host.h \
  src/config/config.h src/platform/log.h src/platform/promtext.h \
  src/model/signal.h include/enav/abi.h src/model/cgroup_path.h \
  src/model/l7_op.h src/model/protocols.h src/probe/features.h \
  src/platform/clock.h src/features/profiling/profile_store.h \
  src/runtime/profiles.h build-km/bpf/profile_perf.skel.h \
  build-km/bpf/profile_ringbuf.skel.h \
  src/features/profiling/profile_spool.h \
  src/exporters/pyroscope/pyroscope.h src/runtime/bpf_source.h \
  src/runtime/bpf_refusal.h src/runtime/event_decode.h \
  src/runtime/transport.h src/platform/tracefs.h \
  src/features/profiling/pprof_pull.h \
  src/features/profiling/unwind_tables.h \
  src/features/profiling/eh_frame.h

src/features/profiling/profile_source.h:

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

src/features/profiling/profile_store.h:

src/runtime/profiles.h:

build-km/bpf/profile_perf.skel.h:

build-km/bpf/profile_ringbuf.skel.h:

src/features/profiling/profile_spool.h:

src/exporters/pyroscope/pyroscope.h:

src/runtime/bpf_source.h:

src/runtime/bpf_refusal.h:

src/runtime/event_decode.h:

src/runtime/transport.h:

src/platform/tracefs.h:

src/features/profiling/pprof_pull.h:

src/features/profiling/unwind_tables.h:

src/features/profiling/eh_frame.h:
