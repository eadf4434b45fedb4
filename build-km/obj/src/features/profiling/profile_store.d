build-km/obj/src/features/profiling/profile_store.o: \
  src/features/profiling/profile_store.c \
  src/features/profiling/profile_store.h include/enav/abi.h \
  src/runtime/profiles.h src/runtime/host.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h src/model/signal.h \
  src/model/cgroup_path.h src/model/l7_op.h src/model/protocols.h \
  src/probe/features.h src/platform/bcache.h src/platform/clock.h \
  src/model/pprof.h src/discovery/discovery.h src/discovery/k8s.h \
  src/enrich/attribution.h src/features/profiling/go_buildinfo.h \
  src/features/profiling/pprof_filter.h \
  src/features/profiling/symbolize.h src/features/profiling/flamegraph.h

src/features/profiling/profile_store.h:

include/enav/abi.h:

src/runtime/profiles.h:

src/runtime/host.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:

src/model/signal.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/probe/features.h:

src/platform/bcache.h:

src/platform/clock.h:

src/model/pprof.h:

src/discovery/discovery.h:

src/discovery/k8s.h:

src/enrich/attribution.h:

src/features/profiling/go_buildinfo.h:

src/features/profiling/pprof_filter.h:

src/features/profiling/symbolize.h:

src/features/profiling/flamegraph.h:
