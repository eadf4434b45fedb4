build-km/obj/src/discovery/discovery.o: src/discovery/discovery.c \
  src/discovery/discovery.h src/runtime/host.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h src/probe/features.h src/discovery/k8s.h \
  src/platform/clock.h src/platform/u64map.h \
  src/discovery/capture_filter.h src/discovery/cgroup_layout.h \
  src/discovery/selectors.h

src/discovery/discovery.h:

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

src/discovery/k8s.h:

src/platform/clock.h:

src/platform/u64map.h:

src/discovery/capture_filter.h:

src/discovery/cgroup_layout.h:

src/discovery/selectors.h:
