build-km/obj/src/features/network/l7/l7_conn.o: \
  src/features/network/l7/l7_conn.c src/features/network/l7/l7_conn.h \
  src/platform/promtext.h src/model/signal.h include/enav/abi.h \
  src/model/cgroup_path.h src/model/l7_op.h src/model/protocols.h \
  src/features/network/l7/l7.h src/platform/clock.h \
  src/platform/u64map.h src/features/network/ipname_cache.h

src/features/network/l7/l7_conn.h:

src/platform/promtext.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/features/network/l7/l7.h:

src/platform/clock.h:

src/platform/u64map.h:

src/features/network/ipname_cache.h:
