build-km/obj/src/cli/profile_cmd.o: src/cli/profile_cmd.c \
  src/cli/profile_cmd.h src/config/config.h src/platform/log.h \
  src/platform/clock.h src/runtime/bpf_refusal.h src/runtime/runner.h \
  src/runtime/host.h src/platform/promtext.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h src/probe/features.h \
  src/features/profiling/profile_store.h src/runtime/profiles.h \
  src/features/profiling/profile_source.h

src/cli/profile_cmd.h:

src/config/config.h:

src/platform/log.h:

src/platform/clock.h:

src/runtime/bpf_refusal.h:

src/runtime/runner.h:

src/runtime/host.h:

src/platform/promtext.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/probe/features.h:

src/features/profiling/profile_store.h:

src/runtime/profiles.h:

src/features/profiling/profile_source.h:
