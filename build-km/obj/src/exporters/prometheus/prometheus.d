build-km/obj/src/exporters/prometheus/prometheus.o: \
  src/exporters/prometheus/prometheus.c \
  src/exporters/prometheus/prometheus.h src/runtime/host.h \
  src/config/config.h src/platform/log.h src/platform/promtext.h \
  src/model/signal.h include/enav/abi.h src/model/cgroup_path.h \
  src/model/l7_op.h src/model/protocols.h src/probe/features.h \
  src/features/profiling/pprof_http.h src/platform/http.h \
  src/features/profiling/profile_store.h src/runtime/profiles.h

src/exporters/prometheus/prometheus.h:

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

src/features/profiling/pprof_http.h:

src/platform/http.h:

src/features/profiling/profile_store.h:

src/runtime/profiles.h:
