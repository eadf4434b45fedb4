build-km/obj/src/main.o: src/main.c src/runtime/runner.h \
  src/runtime/host.h src/config/config.h src/platform/log.h \
  src/platform/promtext.h src/model/signal.h include/enav/abi.h \
  src/model/cgroup_path.h src/model/l7_op.h src/model/protocols.h \
  src/probe/features.h src/cli/pprof_filter_cmd.h src/cli/profile_cmd.h \
  src/cli/bench_cmd.h src/probe/privileges.h \
  src/features/profiling/go_buildinfo.h build-km/version.h

src/runtime/runner.h:

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

src/cli/pprof_filter_cmd.h:

src/cli/profile_cmd.h:

src/cli/bench_cmd.h:

src/probe/privileges.h:

src/features/profiling/go_buildinfo.h:

build-km/version.h:
