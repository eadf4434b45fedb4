build-km/obj/src/exporters/ndjson/ndjson_limit.o: \
  src/exporters/ndjson/ndjson_limit.c \
  src/exporters/ndjson/ndjson_limit.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h

src/exporters/ndjson/ndjson_limit.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:
