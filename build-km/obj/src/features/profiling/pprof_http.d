build-km/obj/src/features/profiling/pprof_http.o: \
  src/features/profiling/pprof_http.c \
  src/features/profiling/pprof_http.h src/platform/http.h \
  src/features/profiling/profile_store.h include/enav/abi.h \
  src/runtime/profiles.h src/runtime/host.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h src/model/signal.h \
  src/model/cgroup_path.h src/model/l7_op.h src/model/protocols.h \
  src/probe/features.h src/platform/parse.h

src/features/profiling/pprof_http.h:

src/platform/http.h:

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

src/platform/parse.h:
