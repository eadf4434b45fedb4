build-km/obj/src/features/host/cgroups.o: src/features/host/cgroups.c \
  src/platform/parse.h src/features/host/host.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h \
  src/features/host/cgroups_priv.h src/discovery/cgroup_layout.h \
  src/probe/features.h src/discovery/discovery.h src/runtime/host.h \
  src/model/signal.h include/enav/abi.h src/model/cgroup_path.h \
  src/model/l7_op.h src/model/protocols.h src/discovery/k8s.h

src/platform/parse.h:

src/features/host/host.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:

src/features/host/cgroups_priv.h:

src/discovery/cgroup_layout.h:

src/probe/features.h:

src/discovery/discovery.h:

src/runtime/host.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/discovery/k8s.h:
