build-km/obj/src/features/host/host_source.o: \
  src/features/host/host_source.c src/runtime/host.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h src/probe/features.h src/platform/clock.h \
  src/discovery/cgroup_layout.h src/discovery/discovery.h \
  src/discovery/k8s.h src/features/host/host.h \
  src/features/host/host_source.h

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

src/discovery/cgroup_layout.h:

src/discovery/discovery.h:

src/discovery/k8s.h:

src/features/host/host.h:

src/features/host/host_source.h:
