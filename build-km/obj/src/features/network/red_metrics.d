build-km/obj/src/features/network/red_metrics.o: \
  src/features/network/red_metrics.c src/features/network/red_metrics.h \
  src/runtime/host.h src/config/config.h src/platform/log.h \
  src/platform/promtext.h src/model/signal.h include/enav/abi.h \
  src/model/cgroup_path.h src/model/l7_op.h src/model/protocols.h \
  src/probe/features.h src/platform/numfmt.h src/platform/u64map.h \
  src/enrich/attribution.h src/features/network/ipname_cache.h \
  src/features/network/l7/l7.h

src/features/network/red_metrics.h:

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

src/platform/numfmt.h:

src/platform/u64map.h:

src/enrich/attribution.h:

src/features/network/ipname_cache.h:

src/features/network/l7/l7.h:
