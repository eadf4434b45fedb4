build-km/obj/src/enrich/attribution.o: src/enrich/attribution.c \
  src/enrich/attribution.h src/runtime/host.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h src/probe/features.h src/platform/bcache.h \
  src/discovery/discovery.h src/discovery/k8s.h

src/enrich/attribution.h:

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

src/platform/bcache.h:

src/discovery/discovery.h:

src/discovery/k8s.h:
