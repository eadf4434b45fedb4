build-km/obj/src/model/signal.o: src/model/signal.c src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:
