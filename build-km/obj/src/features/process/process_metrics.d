build-km/obj/src/features/process/process_metrics.o: \
  src/features/process/process_metrics.c \
  src/features/process/process_metrics.h src/runtime/host.h \
  src/config/config.h src/platform/log.h src/platform/promtext.h \
  src/model/signal.h include/enav/abi.h src/model/cgroup_path.h \
  src/model/l7_op.h src/model/protocols.h src/probe/features.h

src/features/process/process_metrics.h:

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
