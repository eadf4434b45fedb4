build-km/obj/src/features/network/net_edges.o: \
  src/features/network/net_edges.c src/features/network/net_edges.h \
  src/runtime/host.h src/config/config.h src/platform/log.h \
  src/platform/promtext.h src/model/signal.h include/enav/abi.h \
  src/model/cgroup_path.h src/model/l7_op.h src/model/protocols.h \
  src/probe/features.h src/platform/clock.h src/discovery/k8s.h \
  src/features/network/dns.h src/enrich/attribution.h \
  src/features/network/ipname_cache.h

src/features/network/net_edges.h:

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

src/discovery/k8s.h:

src/features/network/dns.h:

src/enrich/attribution.h:

src/features/network/ipname_cache.h:
