build-km/obj/src/runtime/agent.o: src/runtime/agent.c \
  src/runtime/agent_priv.h src/runtime/host.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h src/probe/features.h src/runtime/profiles.h \
  src/runtime/runner.h src/probe/privileges.h src/platform/clock.h \
  src/runtime/bpf_source.h src/runtime/bpf_refusal.h \
  src/runtime/event_decode.h src/runtime/transport.h build-km/version.h

src/runtime/agent_priv.h:

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

src/runtime/profiles.h:

src/runtime/runner.h:

src/probe/privileges.h:

src/platform/clock.h:

src/runtime/bpf_source.h:

src/runtime/bpf_refusal.h:

src/runtime/event_decode.h:

src/runtime/transport.h:

build-km/version.h:
